"""Gross margin per token class: input, cached input and output.

A provider that knows its cost per Mtok of each class (e.g. from
:func:`tokenomics.economics.cost_split_per_mtok`) and sells at a per-class list price (e.g.
:func:`tokenomics.price`) keeps, per class ``c``::

    margin_c = (price_c * (1 - license_fee_frac) - cost_c) / price_c

and, over a token mix with input share ``s_in`` and cache-hit fraction ``h`` (shares
``s_unc = s_in (1 - h)``, ``s_cached = s_in h``, ``s_out = 1 - s_in``), the blended margin is the
revenue-weighted mean of the class margins::

    margin = sum(s_c * price_c * margin_c) / sum(s_c * price_c)

which equals ``(revenue - license - cost) / revenue`` of the whole mix, so the per-class figures add
up to the total. Functions broadcast like the other economics kernels (scalar, ndarray, Series,
dask, DataArray).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from tokenomics._numeric import kernel, prepare
from tokenomics._validate import check_fraction, check_nonnegative, check_range
from tokenomics.economics import check_usd_per_mtok

if TYPE_CHECKING:
    from tokenomics.catalog import ApiPrice
    from tokenomics.economics import CostSplit

__all__ = ["ClassMargins", "blended_margin_frac", "class_margins", "class_margins_from_price"]


class ClassMargins(NamedTuple):
    """Gross margin of each token class, fractions (negative for a loss)."""

    input_margin_frac: Any
    cached_input_margin_frac: Any
    output_margin_frac: Any


def _fee(name: str, value: Any) -> None:
    check_fraction(name, value, high_inclusive=False)


def _share(name: str, value: Any) -> None:
    check_fraction(name, value)


def _price(name: str, value: Any) -> None:
    check_usd_per_mtok(name, value, allow_zero=False)


@kernel
def class_margins(
    input_cost_usd_per_mtok: Any,
    cached_input_cost_usd_per_mtok: Any,
    output_cost_usd_per_mtok: Any,
    input_usd_per_mtok: Any,
    cached_input_usd_per_mtok: Any,
    output_usd_per_mtok: Any,
    license_fee_frac: Any = 0.0,
) -> ClassMargins:
    """Gross margin of each token class from its cost and its price.

    ``margin_c = 1 - license_fee_frac - cost_c / price_c``.

    Parameters
    ----------
    input_cost_usd_per_mtok, cached_input_cost_usd_per_mtok, output_cost_usd_per_mtok : array_like
        Cost of serving one million tokens of each class [USD/Mtok], >= 0.
    input_usd_per_mtok, cached_input_usd_per_mtok, output_usd_per_mtok : array_like
        List price of each class, > 0 and in the price vocabulary's plausible range
        (:func:`tokenomics.economics.check_usd_per_mtok`: a $/token figure is refused) [USD/Mtok].
    license_fee_frac : array_like, default 0
        Share of revenue paid to the model's licensor, in [0, 1).

    Returns
    -------
    ClassMargins
        ``input_margin_frac``, ``cached_input_margin_frac``, ``output_margin_frac``; same
        container as the inputs.

    Raises
    ------
    ValueError
        A negative cost, a non-positive or implausible price ($/token) or a fee outside [0, 1),
        naming the field.

    Examples
    --------
    >>> m = class_margins(0.10, 0.01, 0.80, 0.28, 0.028, 0.42)
    >>> round(float(m.output_margin_frac), 4)
    -0.9048
    """
    (ci, cc, co, pi, pc, po, f), restore = prepare(
        ("input_cost_usd_per_mtok", input_cost_usd_per_mtok, check_nonnegative),
        ("cached_input_cost_usd_per_mtok", cached_input_cost_usd_per_mtok, check_nonnegative),
        ("output_cost_usd_per_mtok", output_cost_usd_per_mtok, check_nonnegative),
        ("input_usd_per_mtok", input_usd_per_mtok, _price),
        ("cached_input_usd_per_mtok", cached_input_usd_per_mtok, _price),
        ("output_usd_per_mtok", output_usd_per_mtok, _price),
        ("license_fee_frac", license_fee_frac, _fee),
    )
    return ClassMargins(
        restore(1.0 - f - ci / pi, "input_margin_frac"),
        restore(1.0 - f - cc / pc, "cached_input_margin_frac"),
        restore(1.0 - f - co / po, "output_margin_frac"),
    )


def class_margins_from_price(split: CostSplit, price: ApiPrice, license_fee_frac: Any = 0.0) -> ClassMargins:
    """Gross margin of each token class from a cost split and a catalog price.

    Parameters
    ----------
    split : CostSplit
        Per-class cost from :func:`tokenomics.economics.cost_split_per_mtok` [USD/Mtok].
    price : ApiPrice
        A list price from :func:`tokenomics.price` (any tier).
    license_fee_frac : array_like, default 0
        Share of revenue paid to the licensor, in [0, 1).

    Returns
    -------
    ClassMargins
        As :func:`class_margins`.

    Raises
    ------
    ValueError
        If the price publishes no cached-input rate (the cached class then has no price to
        compare with; pass it to :func:`class_margins` explicitly), or as :func:`class_margins`.
    """
    if price.cached_input_usd_per_mtok is None:
        raise ValueError(
            f"{price.provider} publishes no cached_input_usd_per_mtok for {price.model_id} "
            f"({price.tier} tier, {price.as_of}); pass the cached price to class_margins() explicitly"
        )
    return class_margins(
        split.input_usd_per_mtok,
        split.cached_input_usd_per_mtok,
        split.output_usd_per_mtok,
        price.input_usd_per_mtok,
        price.cached_input_usd_per_mtok,
        price.output_usd_per_mtok,
        license_fee_frac,
    )


@kernel
def blended_margin_frac(
    margins: ClassMargins,
    input_usd_per_mtok: Any,
    cached_input_usd_per_mtok: Any,
    output_usd_per_mtok: Any,
    input_share_frac: Any,
    cache_hit_frac: Any = 0.0,
) -> Any:
    """Gross margin of a token mix: the revenue-weighted mean of the class margins.

    ``m = sum(s_c p_c m_c) / sum(s_c p_c)`` with ``s_unc = s_in (1 - h)``, ``s_cached = s_in h``,
    ``s_out = 1 - s_in``; equal to (revenue - license - cost) / revenue of the mix.

    Parameters
    ----------
    margins : ClassMargins
        From :func:`class_margins`.
    input_usd_per_mtok, cached_input_usd_per_mtok, output_usd_per_mtok : array_like
        The prices the margins were computed with, > 0 and plausible (as in
        :func:`class_margins`) [USD/Mtok].
    input_share_frac : array_like
        Input (uncached + cached) tokens as a share of all tokens, in [0, 1].
    cache_hit_frac : array_like, default 0
        Share of input tokens served from the prefix cache, in [0, 1].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Blended gross margin, a fraction.

    Raises
    ------
    ValueError
        Invalid or implausible prices ($/token) or shares, naming the field.
    """
    (mi, mc, mo, pi, pc, po, s_in, h), restore = prepare(
        ("input_margin_frac", margins.input_margin_frac, check_range),
        ("cached_input_margin_frac", margins.cached_input_margin_frac, check_range),
        ("output_margin_frac", margins.output_margin_frac, check_range),
        ("input_usd_per_mtok", input_usd_per_mtok, _price),
        ("cached_input_usd_per_mtok", cached_input_usd_per_mtok, _price),
        ("output_usd_per_mtok", output_usd_per_mtok, _price),
        ("input_share_frac", input_share_frac, _share),
        ("cache_hit_frac", cache_hit_frac, _share),
    )
    r_unc = s_in * (1.0 - h) * pi
    r_cached = s_in * h * pc
    r_out = (1.0 - s_in) * po
    return restore((r_unc * mi + r_cached * mc + r_out * mo) / (r_unc + r_cached + r_out), "blended_margin_frac")
