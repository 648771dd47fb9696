"""Inputs as distributions: catalog spreads, user distributions, truncation to the valid range.

Every catalog value marked ``estimate`` or ``unverified`` has a stated spread in
``data/uncertainty/spreads.csv`` (keyed by table, parameter and confidence; ``*`` is a table's
default), each with its reasoning. A spread is a distribution of the *multiplier* of the catalog
value, given by the multipliers at the ends of a central interval (``low_mult`` and ``high_mult``
at ``coverage``, e.g. p5 and p95 for 0.90):

* ``lognormal``: ``log(mult)`` normal with those quantiles (stays positive);
* ``normal``: ``mult`` normal with those quantiles;
* ``uniform``: ``mult`` uniform on ``[low_mult, high_mult]`` (coverage 1);
* ``triangular``: ``mult`` triangular on ``[low_mult, high_mult]`` with mode 1 (coverage 1).

Users give utilization, prices and license terms as a number (fixed), any frozen
``scipy.stats`` distribution, or a :class:`Spread`.

**Truncation rule.** Every draw must lie in its parameter's valid range (a positive quantity
stays > 0, a fraction in [0, 1], utilization in (0, 1]). A distribution is *truncated* to that
range (sampled by inverse CDF on the part of its support inside it, so quasi-Monte Carlo points
stay stratified), provided at least half of its probability lies inside; with less it is
*refused* (``ValueError`` naming the parameter: the spread is stated on the wrong scale), and a
distribution with no probability in the range raises, naming the parameter. A user's
distribution with more than :data:`MAX_SILENT_MASS_OUTSIDE` (1 %) of its probability outside the
range is truncated with a ``UserWarning`` naming the parameter, the share outside and the range
(:func:`warn_if_truncated`): truncation moves its mean and narrows its spread. The share is
``1 - (F(high) - F(low))`` from the distribution's own CDF (scipy's ``cdf`` for a frozen
``scipy.stats`` distribution, the closed form for a :class:`Spread`; a number lies inside the
range or is refused).

**Unit slips.** A user distribution is also checked against its parameter's *plausible* range
(:func:`check_plausible_distribution`): a fraction whose median lies in (1, 100] is a percent
(60 for 0.60), a price whose median lies outside the vocabulary's plausible range of
``data/parameters.csv`` is a $/token figure given as $/Mtok (or the reverse); both raise
``ValueError`` naming the parameter.

**Sampling many inputs at once.** :class:`ColumnSampler` maps an (inputs, draws) matrix of
uniform numbers to draws of every input with one vectorised inverse CDF per distribution family
(normal and lognormal spreads of all systems in one call), so the cost does not grow with a
Python loop over systems.
"""

from __future__ import annotations

import datetime as dt
import math
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special, stats

from tokenomics.catalog import data_dir

__all__ = [
    "MAX_SILENT_MASS_OUTSIDE",
    "MIN_MASS_IN_RANGE",
    "SPREAD_KINDS",
    "Bounded",
    "ColumnSampler",
    "Scaled",
    "Spread",
    "bounded",
    "check_plausible_distribution",
    "load_spreads",
    "spread_for",
    "warn_if_truncated",
]

SpreadKind = Literal["lognormal", "normal", "uniform", "triangular"]
SPREAD_KINDS: tuple[str, ...] = ("lognormal", "normal", "uniform", "triangular")
"""Distribution kinds a catalog spread may use."""

MIN_MASS_IN_RANGE: float = 0.5
"""Smallest share of a distribution's probability inside the valid range for truncation."""

MAX_SILENT_MASS_OUTSIDE: float = 0.01
"""Largest share of a user distribution's probability outside the valid range truncated without a warning."""

_SPREAD_COLUMNS = ("table", "parameter", "confidence", "distribution", "low_mult", "high_mult", "coverage",
                   "source", "as_of", "note")
_UNCERTAIN = ("estimate", "unverified")


@dataclass(frozen=True)
class Spread:
    """Distribution of a multiplier of a central value (see the module docstring).

    Parameters
    ----------
    distribution : {"lognormal", "normal", "uniform", "triangular"}
        Kind.
    low_mult, high_mult : float
        Multipliers at the ends of the central ``coverage`` interval; ``low_mult <= 1 <= high_mult``.
    coverage : float, default 0.9
        Probability of the central interval, in (0, 1]; 1 for uniform and triangular.
    note : str, default ""
        Reasoning behind the spread.

    Examples
    --------
    >>> s = Spread("lognormal", 0.8, 1.25)
    >>> [round(float(x), 3) for x in s.multiplier().ppf([0.05, 0.5, 0.95])]
    [0.8, 1.0, 1.25]
    """

    distribution: SpreadKind
    low_mult: float
    high_mult: float
    coverage: float = 0.9
    note: str = ""

    def __post_init__(self) -> None:
        if self.distribution not in SPREAD_KINDS:
            raise ValueError(f"distribution={self.distribution!r} is not one of {', '.join(SPREAD_KINDS)}")
        if not (math.isfinite(self.low_mult) and math.isfinite(self.high_mult)):
            raise ValueError("low_mult and high_mult must be finite")
        if not self.low_mult <= 1.0 <= self.high_mult:
            raise ValueError(
                f"low_mult={self.low_mult!r}, high_mult={self.high_mult!r}: need low_mult <= 1 <= high_mult "
                "(multipliers of the catalog value)"
            )
        if self.distribution == "lognormal" and self.low_mult <= 0:
            raise ValueError(f"lognormal low_mult={self.low_mult!r} must be > 0")
        if not 0.0 < self.coverage <= 1.0 or (self.distribution in ("normal", "lognormal") and self.coverage >= 1.0):
            raise ValueError(f"coverage={self.coverage!r} must be in (0, 1) (uniform and triangular: 1)")

    def multiplier(self) -> Any:
        """Return the frozen ``scipy.stats`` distribution of the multiplier.

        Returns
        -------
        scipy.stats.rv_continuous (frozen)
            The multiplier's distribution.
        """
        z = float(special.ndtri(0.5 + self.coverage / 2.0)) if self.coverage < 1.0 else 1.0
        if self.distribution == "lognormal":
            lo, hi = math.log(self.low_mult), math.log(self.high_mult)
            sigma = (hi - lo) / (2.0 * z)
            return stats.lognorm(s=max(sigma, 1e-300), scale=math.exp((hi + lo) / 2.0))
        if self.distribution == "normal":
            return stats.norm(loc=(self.low_mult + self.high_mult) / 2.0,
                              scale=max((self.high_mult - self.low_mult) / (2.0 * z), 1e-300))
        width = self.high_mult - self.low_mult
        if self.distribution == "uniform":
            return stats.uniform(loc=self.low_mult, scale=width)
        mode = (1.0 - self.low_mult) / width if width > 0 else 0.5
        return stats.triang(c=mode, loc=self.low_mult, scale=max(width, 1e-300))

    def fast(self) -> _FastMultiplier:
        """Return the multiplier's distribution with closed-form ``ppf``/``cdf`` (no scipy overhead).

        Returns
        -------
        _FastMultiplier
            Same distribution as :meth:`multiplier`.
        """
        m = self.multiplier()
        if self.distribution == "lognormal":
            return _FastMultiplier("lognormal", math.log(m.kwds["scale"]), m.kwds["s"])
        if self.distribution == "normal":
            return _FastMultiplier("normal", m.kwds["loc"], m.kwds["scale"])
        return _FastMultiplier(self.distribution, self.low_mult, self.high_mult)

    def around(self, value: float) -> Any:
        """Return the distribution of ``value * multiplier`` (frozen scipy distribution).

        Parameters
        ----------
        value : float
            Central value, > 0.

        Returns
        -------
        scipy.stats.rv_continuous (frozen)
            Scaled distribution.
        """
        if not value > 0:
            raise ValueError(f"a spread scales a positive central value, got {value!r}")
        return Scaled(self.fast(), float(value))


@dataclass(frozen=True)
class _FastMultiplier:
    """Closed-form ``ppf``/``cdf`` of a :class:`Spread` multiplier (parameters ``a``, ``b``)."""

    kind: str
    a: float
    b: float

    def ppf(self, q: Any) -> Any:
        q = np.asarray(q, dtype=float)
        if self.kind == "lognormal":
            return np.exp(self.a + self.b * special.ndtri(q))
        if self.kind == "normal":
            return self.a + self.b * special.ndtri(q)
        lo, hi = self.a, self.b
        if self.kind == "uniform":
            return lo + q * (hi - lo)
        c = (1.0 - lo) / (hi - lo) if hi > lo else 0.5
        left = lo + np.sqrt(q * (hi - lo) * (1.0 - lo))
        return np.where(q < c, left, hi - np.sqrt((1.0 - q) * (hi - lo) * (hi - 1.0)))

    def cdf(self, x: Any) -> Any:
        x = np.asarray(x, dtype=float)
        if self.kind == "lognormal":
            with np.errstate(divide="ignore"):
                return np.where(x > 0, special.ndtr((np.log(np.maximum(x, 1e-300)) - self.a) / self.b), 0.0)
        if self.kind == "normal":
            return special.ndtr((x - self.a) / self.b)
        lo, hi = self.a, self.b
        if hi <= lo:
            return np.where(x >= lo, 1.0, 0.0)
        if self.kind == "uniform":
            return np.clip((x - lo) / (hi - lo), 0.0, 1.0)
        left = (x - lo) ** 2 / ((hi - lo) * (1.0 - lo)) if lo < 1.0 else np.ones_like(x)
        right = 1.0 - (hi - x) ** 2 / ((hi - lo) * (hi - 1.0)) if hi > 1.0 else np.ones_like(x)
        return np.where(x <= lo, 0.0, np.where(x >= hi, 1.0, np.where(x <= 1.0, left, right)))


@dataclass(frozen=True)
class Scaled:
    """``value * X`` for a frozen scipy distribution ``X`` (``ppf`` and ``cdf`` only)."""

    dist: Any
    value: float

    def ppf(self, q: Any) -> Any:
        """Inverse CDF [unit of the value]."""
        return self.value * self.dist.ppf(q)

    def cdf(self, x: Any) -> Any:
        """CDF at ``x`` [unit of the value]."""
        return self.dist.cdf(np.asarray(x, dtype=float) / self.value)


@dataclass(frozen=True)
class Bounded:
    """A distribution truncated to a parameter's valid range, sampled by inverse CDF.

    Built by :func:`bounded`.
    """

    name: str
    dist: Any
    low: float
    high: float
    cdf_low: float
    cdf_high: float
    valid_range: str = ""

    @property
    def outside_frac(self) -> float:
        """Share of the distribution's probability outside the valid range, in [0, 1)."""
        return min(max(1.0 - (self.cdf_high - self.cdf_low), 0.0), 1.0)

    def ppf(self, u: Any) -> np.ndarray:
        """Map uniform numbers in [0, 1) to draws inside the valid range.

        Parameters
        ----------
        u : array_like
            Uniform numbers (random or quasi-random).

        Returns
        -------
        numpy.ndarray
            Draws in the valid range [unit of the parameter].
        """
        q = self.cdf_low + np.asarray(u, dtype=float) * (self.cdf_high - self.cdf_low)
        x = np.asarray(self.dist.ppf(q), dtype=float)
        return np.clip(x, self.low, self.high)

    @property
    def median(self) -> float:
        """Median of the truncated distribution."""
        return float(self.ppf(0.5))


def bounded(
    name: str,
    dist: Any,
    low: float = 0.0,
    high: float = math.inf,
    *,
    low_inclusive: bool = False,
    high_inclusive: bool = True,
) -> Bounded:
    """Truncate a distribution to a parameter's valid range, or refuse it.

    Parameters
    ----------
    name : str
        Parameter name, for messages.
    dist : frozen scipy.stats distribution, Spread-derived or a number
        The distribution (a number is a point mass, which must lie in the range).
    low, high : float
        Valid range.
    low_inclusive, high_inclusive : bool
        Whether the bounds themselves are valid values.

    Returns
    -------
    Bounded
        The truncated distribution.

    Raises
    ------
    ValueError
        No probability inside the range, or less than :data:`MIN_MASS_IN_RANGE` of it (the
        spread would make the quantity invalid too often: refused, naming the parameter).

    Examples
    --------
    >>> b = bounded("utilization_frac", stats.uniform(0.5, 1.0), 0.0, 1.0)
    >>> float(b.ppf(0.999)) <= 1.0
    True
    """
    eps_lo = 0.0 if low_inclusive else np.nextafter(low, math.inf) - low if math.isfinite(low) else 0.0
    lo = low + eps_lo if math.isfinite(low) else low
    hi = high if high_inclusive or not math.isfinite(high) else float(np.nextafter(high, -math.inf))
    rng = f"{'[' if low_inclusive else '('}{low:g}, {high:g}{']' if high_inclusive else ')'}"
    if isinstance(dist, int | float | np.floating):
        v = float(dist)
        if not (lo <= v <= hi) or math.isnan(v):
            raise ValueError(f"{name}={v!r} is outside the valid range {rng}")
        return Bounded(name, stats.uniform(loc=v, scale=0.0), v, v, 0.0, 1.0, rng)
    if not hasattr(dist, "ppf") or not hasattr(dist, "cdf"):
        raise TypeError(
            f"{name}: give a number, a frozen scipy.stats distribution or a Spread, not {type(dist).__name__}"
        )
    c_lo = float(dist.cdf(low)) if math.isfinite(low) else 0.0
    c_hi = float(dist.cdf(high)) if math.isfinite(high) else 1.0
    mass = c_hi - c_lo
    if not mass > 0.0:
        raise ValueError(f"{name}: the distribution has no probability in the valid range {rng}")
    if mass < MIN_MASS_IN_RANGE:
        raise ValueError(
            f"{name}: only {mass:.1%} of the distribution lies in the valid range {rng} (refused below "
            f"{MIN_MASS_IN_RANGE:.0%}); state the spread on a scale that stays valid, e.g. lognormal for a positive "
            "quantity"
        )
    return Bounded(name, dist, lo, hi, c_lo, c_hi, rng)


def warn_if_truncated(dist: Bounded) -> None:
    """Warn when truncation to the valid range changes a user's distribution noticeably.

    Parameters
    ----------
    dist : Bounded
        A distribution truncated by :func:`bounded`.

    Warns
    -----
    UserWarning
        More than :data:`MAX_SILENT_MASS_OUTSIDE` of the probability lies outside the valid
        range; the message names the parameter, the share and the range.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_truncated(bounded("utilization_frac", stats.uniform(0.4, 1.0), 0.0, 1.0))
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    utilization_frac: 40.0% of the distribution lies outside the valid range (0, 1]; ...
    """
    share = dist.outside_frac
    if share <= MAX_SILENT_MASS_OUTSIDE:
        return
    warnings.warn(
        f"{dist.name}: {share:.1%} of the distribution lies outside the valid range {dist.valid_range}; its draws "
        "are truncated to the range (sampled from the part inside it), which moves its mean and narrows its "
        "spread; state a distribution inside the range to avoid this (e.g. scipy.stats.truncnorm, beta for a "
        "fraction, lognorm for a price)",
        UserWarning,
        stacklevel=_caller_level(),
    )


def _caller_level() -> int:
    """``stacklevel`` of the innermost frame outside this package: the call that gave the input."""
    package = str(Path(__file__).resolve().parents[1])
    frame = sys._getframe(1)
    level = 1
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(package):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


class ColumnSampler:
    """Draws of many truncated distributions from one matrix of uniform numbers (one row per input).

    Spread-based normal and lognormal inputs (the catalog spreads of every system) share one
    vectorised inverse CDF, ``x = clip(g(mu + sigma * ndtri(F_lo + u * (F_hi - F_lo))), low, high)``
    with ``g = exp`` for lognormal and identity for normal; any other distribution uses its own
    ``ppf`` (column by column).

    Parameters
    ----------
    dists : sequence of Bounded
        One distribution per column of the uniform matrix.

    Examples
    --------
    >>> s = ColumnSampler([bounded("a", Spread("lognormal", 0.8, 1.25).around(2.0)),
    ...                    bounded("b", stats.uniform(0.4, 0.4), 0.0, 1.0)])
    >>> np.round(s.ppf(np.array([[0.5], [0.5]])), 6).tolist()
    [[2.0], [0.6]]
    """

    def __init__(self, dists: list[Bounded]) -> None:
        self.dims = len(dists)
        self.groups: list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                np.ndarray]] = []
        self.other: list[tuple[int, Bounded]] = []
        families: dict[str, list[tuple[int, float, float, Bounded]]] = {"lognormal": [], "normal": []}
        for j, b in enumerate(dists):
            d = b.dist
            if isinstance(d, Scaled) and isinstance(d.dist, _FastMultiplier) and d.dist.kind in families:
                if d.dist.kind == "lognormal":
                    families["lognormal"].append((j, math.log(d.value) + d.dist.a, d.dist.b, b))
                else:
                    families["normal"].append((j, d.value * d.dist.a, d.value * d.dist.b, b))
            else:
                self.other.append((j, b))
        for kind, members in families.items():
            if members:
                cols = np.array([m[0] for m in members])
                mu = np.array([m[1] for m in members])
                sigma = np.array([m[2] for m in members])
                q_lo = np.array([m[3].cdf_low for m in members])
                span = np.array([m[3].cdf_high - m[3].cdf_low for m in members])
                low = np.array([m[3].low for m in members])
                high = np.array([m[3].high for m in members])
                self.groups.append((kind, cols, mu, sigma, q_lo, span, low, high))

    def ppf(self, u: np.ndarray) -> np.ndarray:
        """Map uniform numbers of shape (dims, draws) to draws of every input (same shape).

        Parameters
        ----------
        u : numpy.ndarray
            Uniform numbers in [0, 1), one row per distribution.

        Returns
        -------
        numpy.ndarray
            Draws, each row in its parameter's valid range [unit of the parameter].
        """
        out = np.empty(u.shape, dtype=float)
        for kind, rows, mu, sigma, q_lo, span, low, high in self.groups:
            q = u[rows]
            if (q_lo != 0.0).any() or (span != 1.0).any():
                q = q_lo[:, None] + q * span[:, None]
            x = special.ndtri(q)
            x *= sigma[:, None]
            x += mu[:, None]
            if kind == "lognormal":
                np.exp(x, out=x)
            np.clip(x, low[:, None], high[:, None], out=x)
            out[rows] = x
        for j, b in self.other:
            out[j] = b.ppf(u[j])
        return out


def check_plausible_distribution(
    name: str,
    dist: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    unit: str = "",
    fraction: bool = False,
) -> None:
    """Refuse a distribution whose median implies a unit slip.

    Parameters
    ----------
    name : str
        Parameter name, for the message.
    dist : frozen scipy.stats distribution, Scaled or a number
        The distribution as given.
    low, high : float, optional
        Plausible range of the parameter [unit]; None for unbounded.
    unit : str
        Unit shown in the message.
    fraction : bool
        A 0..1 fraction: a median in (1, 100] is taken for a percent.

    Raises
    ------
    ValueError
        Naming the parameter, the median and the plausible range.

    Examples
    --------
    >>> check_plausible_distribution("utilization_frac", stats.uniform(50, 20), fraction=True)
    Traceback (most recent call last):
    ...
    ValueError: utilization_frac: the distribution's median is 60, a percent? fractions are 0..1 (0.6, not 60)
    """
    if isinstance(dist, int | float | np.floating):
        median = float(dist)
    elif hasattr(dist, "ppf"):
        median = float(np.asarray(dist.ppf(0.5), dtype=float))
    else:
        return
    if not math.isfinite(median):
        raise ValueError(f"{name}: the distribution's median is {median!r}, not a finite number")
    if fraction and 1.0 < median <= 100.0:
        raise ValueError(f"{name}: the distribution's median is {median:g}, a percent? fractions are 0..1 "
                         f"({median / 100:g}, not {median:g})")
    if (low is not None and 0.0 < median < low) or (high is not None and median > high):
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(
            f"{name}: the distribution's median {median:g} {unit} lies outside the plausible range [{lo}, {hi}] "
            f"{unit} (a unit slip? e.g. a per-token figure where per-million is meant)"
        )


def _data_path() -> Path:
    return data_dir() / "uncertainty" / "spreads.csv"


_CACHE: dict[str, pd.DataFrame] = {}


def load_spreads(path: str | Path | None = None) -> pd.DataFrame:
    """Read and validate a spreads catalog (default: the bundled ``data/uncertainty/spreads.csv``).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        A CSV with columns ``table, parameter, confidence, distribution, low_mult, high_mult,
        coverage, source, as_of, note``.

    Returns
    -------
    pandas.DataFrame
        One row per spread, indexed by ``(table, parameter, confidence)``.

    Raises
    ------
    ValueError
        Naming file, line and field: a missing column, unknown table or parameter (checked
        against ``data/parameters.csv``; ``*`` is a table default), a confidence other than
        estimate/unverified, an invalid spread, an empty note (the reasoning is required), a
        malformed or future date, or a duplicate key.
    """
    key = str(path) if path is not None else ""
    if key in _CACHE:
        return _CACHE[key]
    file = Path(path) if path is not None else _data_path()
    raw = pd.read_csv(file, dtype=str, keep_default_na=False, comment="#")
    missing = [c for c in _SPREAD_COLUMNS if c not in raw.columns]
    if missing:
        raise ValueError(f"{file}: missing columns {missing}")
    vocab = pd.read_csv(data_dir() / "parameters.csv", dtype=str)
    known = set(zip(vocab["table"], vocab["parameter"], strict=True))
    tables = set(vocab["table"]) | {"roofline", "scenario"}
    rows = []
    seen: set[tuple[str, str, str]] = set()
    today = dt.datetime.now(dt.UTC).date()
    for i, r in raw.iterrows():
        line = int(str(i)) + 2

        def bad(field: str, msg: str, line: int = line) -> ValueError:
            return ValueError(f"{file}, line {line}, field {field!r}: {msg}")

        if r["table"] not in tables:
            raise bad("table", f"unknown table {r['table']!r}; known: {', '.join(sorted(tables))}")
        own_vocabulary = r["table"] not in ("roofline", "scenario")
        if r["parameter"] != "*" and own_vocabulary and (r["table"], r["parameter"]) not in known:
            raise bad("parameter", f"{r['parameter']!r} is not a parameter of table {r['table']!r} in parameters.csv")
        if r["confidence"] not in _UNCERTAIN:
            raise bad("confidence", f"{r['confidence']!r}: spreads are stated for {', '.join(_UNCERTAIN)} values")
        if not r["note"].strip():
            raise bad("note", "the reasoning behind the spread is required")
        if not r["source"].strip():
            raise bad("source", "a source (or 'judgement: ...') is required")
        try:
            as_of = dt.date.fromisoformat(r["as_of"])
        except ValueError:
            raise bad("as_of", f"{r['as_of']!r} is not a YYYY-MM-DD date") from None
        if as_of > today:
            raise bad("as_of", f"{as_of} is in the future")
        try:
            spread = Spread(r["distribution"], float(r["low_mult"]), float(r["high_mult"]),
                            float(r["coverage"]), r["note"])
        except (ValueError, TypeError) as err:
            raise bad("distribution", str(err)) from None
        k = (r["table"], r["parameter"], r["confidence"])
        if k in seen:
            raise bad("parameter", f"duplicate spread for {k}")
        seen.add(k)
        rows.append({"table": k[0], "parameter": k[1], "confidence": k[2], "spread": spread,
                     "source": r["source"], "as_of": as_of, "note": r["note"]})
    out = pd.DataFrame(rows, columns=["table", "parameter", "confidence", "spread", "source", "as_of", "note"])
    out = out.set_index(["table", "parameter", "confidence"]).sort_index()
    _CACHE[key] = out
    return out


def spread_for(table: str, parameter: str, confidence: str, spreads: pd.DataFrame | None = None) -> Spread | None:
    """Return the stated spread of a catalog value, or None for verified and secondary values.

    The parameter's own row wins over the table's ``*`` default.

    Parameters
    ----------
    table, parameter : str
        Catalog table (as in ``data/parameters.csv``) and parameter.
    confidence : str
        The value's confidence level.
    spreads : pandas.DataFrame, optional
        From :func:`load_spreads` (default: bundled).

    Returns
    -------
    Spread or None
        The spread; None when the value is verified or secondary (taken as exact).

    Raises
    ------
    KeyError
        An estimate or unverified value without any stated spread.

    Examples
    --------
    >>> spread_for("tco_system", "capex_usd_per_accelerator", "estimate").distribution
    'lognormal'
    """
    if confidence not in _UNCERTAIN:
        return None
    table_ = load_spreads() if spreads is None else spreads
    for key in ((table, parameter, confidence), (table, "*", confidence)):
        if key in table_.index:
            return table_.loc[key, "spread"]
    raise KeyError(
        f"no spread stated for {table}.{parameter} ({confidence}); add a row to data/uncertainty/spreads.csv"
    )
