"""Input validation shared by every module: clear errors, never a silent zero or NaN.

The helpers here check scalars, numpy arrays and pandas Series element-wise and raise
``ValueError`` naming the field, the offending value and the allowed range, or ``KeyError``
listing the closest valid names.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np
import pandas as pd

_NON_ALNUM = re.compile(r"[\W_]+")


def normalize_name(name: str) -> str:
    """Return a lookup key that ignores case, spaces and punctuation.

    The name is first put in Unicode NFKC form, so full-width and other compatibility
    characters count as the ASCII ones they stand for (``"ｋｉｍｉ-ｋ２.５"`` is ``"kimi-k2.5"``);
    then case is folded and everything but letters and digits (of any script) is dropped. A
    letter or digit is never dropped, so ``"kimi-k2.５"`` can only match ``kimi-k2.5``.

    Parameters
    ----------
    name : str
        A user-facing name such as ``"GB200 NVL72"`` or ``"gb200-nvl72"``.

    Returns
    -------
    str
        Case-folded alphanumeric key, e.g. ``"gb200nvl72"``.

    Examples
    --------
    >>> normalize_name("GB200 NVL-72")
    'gb200nvl72'
    >>> normalize_name("kimi-k2.\uff15")
    'kimik25'
    """
    return _NON_ALNUM.sub("", unicodedata.normalize("NFKC", str(name)).casefold())


def error_text(err: BaseException) -> str:
    """Return an error's message on one line (a KeyError's without the quotes ``str`` adds).

    Parameters
    ----------
    err : BaseException
        The error.

    Returns
    -------
    str
        Its message, whitespace runs (line breaks included) as single spaces.
    """
    text = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return " ".join(str(text).split())


def unknown_name_error(
    kind: str, name: object, valid: Iterable[str], ids: Iterable[str] | None = None
) -> KeyError:
    """Build a ``KeyError`` for an unknown name that lists the closest valid names.

    Parameters
    ----------
    kind : str
        What was looked up, e.g. ``"hardware"``.
    name : object
        The name the caller gave.
    valid : iterable of str
        Every valid name (ids and aliases), searched for close matches.
    ids : iterable of str, optional
        The canonical ids to list in the message (default: ``valid``).

    Returns
    -------
    KeyError
        The error to raise; its message names up to five close matches and the valid ids.
    """
    valid_list = sorted(set(valid))
    by_key: dict[str, str] = {}
    for v in valid_list:
        by_key.setdefault(normalize_name(v), v)
    close_keys = difflib.get_close_matches(normalize_name(str(name)), list(by_key), n=5, cutoff=0.5)
    close = [by_key[k] for k in close_keys]
    if not close:
        key = normalize_name(str(name))
        close = [v for v in valid_list if key and (key in normalize_name(v) or normalize_name(v) in key)][:5]
    hint = f"; closest: {', '.join(close)}" if close else ""
    id_list = sorted(set(ids)) if ids is not None else valid_list
    shown = ", ".join(id_list[:60]) + (" ..." if len(id_list) > 60 else "")
    return KeyError(f"unknown {kind} {name!r}{hint}. Valid ids: {shown}")


class NotANumberError(TypeError, ValueError):
    """A boolean or a string given where a number is expected.

    Both a ``TypeError`` (the value has the wrong type) and a ``ValueError`` (what every other
    input check raises), so callers catching either see it.
    """


_FIX_TEXT = "parse text into numbers first (float(...), pandas.to_numeric)"
_FIX_FLAG = "a flag would silently count as 1.0 or 0.0: give the numbers meant"


def _element_kind(v: Any) -> str | None:
    if isinstance(v, bool | np.bool_):
        return "a boolean"
    if isinstance(v, str | bytes | np.str_ | np.bytes_):
        return "a string"
    return None


def _first_bad_element(name: str, flat: Any, labels: Any = None) -> None:
    for k, v in enumerate(flat):
        kind = _element_kind(v)
        if kind is not None:
            where = f"index {labels[k]!r}" if labels is not None else f"position {k}"
            fix = _FIX_FLAG if kind == "a boolean" else _FIX_TEXT
            raise NotANumberError(f"{name} holds {v!r} at {where}: not a number ({kind}); {fix}")


def check_numeric(name: str, value: Any) -> None:
    """Raise ``NotANumberError`` for a boolean or a string given where a number is expected.

    ``numpy.asarray(True, dtype=float)`` is 1.0 and ``numpy.asarray("2500", dtype=float)`` is
    2500.0: without this check a flag or an unparsed text field passes as a number. Only types
    are inspected, never values, so a dask array is checked by its dtype without computing it.

    Parameters
    ----------
    name : str
        Field name for the message.
    value : float, array_like, pandas.Series, dask or xarray array
        Value(s) to check.

    Raises
    ------
    NotANumberError
        (a ``TypeError`` and a ``ValueError``) naming the field and the value: a bool, a str or
        bytes, an array or Series of booleans or strings, or a list or object array holding one.

    Examples
    --------
    >>> check_numeric("throughput_tok_per_s_per_gpu", 2500)
    >>> try:
    ...     check_numeric("x", True)
    ... except TypeError as err:
    ...     print(err)
    x=True is not a number (a boolean); a flag would silently count as 1.0: give the number meant
    """
    kind = _element_kind(value)
    if kind is not None:
        fix = f"a flag would silently count as {float(value)!r}: give the number meant" if kind == "a boolean" \
            else _FIX_TEXT
        raise NotANumberError(f"{name}={value!r} is not a number ({kind}); {fix}")
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        if isinstance(value, list | tuple):
            _first_bad_element(name, np.asarray(value, dtype=object).ravel())
        return
    code = getattr(dtype, "kind", "")
    if isinstance(dtype, pd.StringDtype) or code in ("b", "U", "S"):
        what = "booleans" if code == "b" else "text"
        raise NotANumberError(f"{name} has dtype {dtype} ({what}, not numbers); "
                              f"{_FIX_FLAG if code == 'b' else _FIX_TEXT}")
    if code == "O":
        if isinstance(value, pd.Series):
            _first_bad_element(name, value.to_numpy(), value.index)
        elif isinstance(value, np.ndarray | pd.Index):
            _first_bad_element(name, np.asarray(value).ravel())


_CHUNK: ContextVar[tuple[tuple[int, ...], tuple[int, ...]] | None] = ContextVar("tokenomics_chunk", default=None)


@contextlib.contextmanager
def chunk_of(start: Sequence[int], shape: Sequence[int]) -> Iterator[None]:
    """Report the positions found by the checks inside in the whole array a checked block is part of.

    A lazy (dask) array is checked block by block; inside this context a position is counted
    in the whole array (the block starting at ``start``), not in the block.

    Parameters
    ----------
    start : sequence of int
        Index of the block's first element in the whole array, one per dimension.
    shape : sequence of int
        Shape of the whole array.
    """
    token = _CHUNK.set((tuple(int(i) for i in start), tuple(int(n) for n in shape)))
    try:
        yield
    finally:
        _CHUNK.reset(token)


def position_phrase(bad: Any, shape: Sequence[int], *, counted: str = " bad") -> str:
    """Say where the first flagged element is: ``" at position 2 (1 of 3 bad)"``; ``""`` for a scalar.

    Positions count elements in C order. Inside :func:`chunk_of` they count in the whole array,
    and the count of flagged elements is that of the block (``" at position 5 of 8 (1 of 2 bad in
    its chunk)"``).

    Parameters
    ----------
    bad : array_like of bool
        Flagged elements of the block (any shape with ``shape``'s size).
    shape : sequence of int
        Shape of the checked block.
    counted : str, default " bad"
        Word after the count.

    Returns
    -------
    str
        The phrase, starting with a space, or ``""`` for a 0-d value outside a chunk.
    """
    flat = np.asarray(bad, dtype=bool).ravel()
    idx = int(np.flatnonzero(flat)[0])
    n_bad, size = int(flat.sum()), flat.size
    chunk = _CHUNK.get()
    if chunk is not None and len(chunk[0]) == len(shape) == len(chunk[1]):
        start, whole = chunk
        local = np.unravel_index(idx, tuple(shape)) if len(shape) else ()
        pos = int(np.ravel_multi_index(tuple(s + int(i) for s, i in zip(start, local, strict=True)), whole)) \
            if len(whole) else 0
        return f" at position {pos} of {int(np.prod(whole))} ({n_bad} of {size}{counted} in its chunk)"
    if len(shape) == 0:
        return ""
    return f" at position {idx} ({n_bad} of {size}{counted})"


def _as_float_array(value: Any) -> np.ndarray:
    if isinstance(value, pd.Series | pd.Index):
        return np.asarray(value.to_numpy(dtype=float, na_value=np.nan), dtype=float)
    return np.asarray(value, dtype=float)


_PLAIN_SCALARS = (float, int, np.float64)


def check_range(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    allow_nan: bool = False,
) -> None:
    """Raise ``ValueError`` if any element of ``value`` lies outside ``[low, high]``.

    Parameters
    ----------
    name : str
        The field name used in the message (e.g. ``"utilization_frac"``).
    value : float, array_like or pandas.Series
        Value(s) to check, element-wise.
    low, high : float, optional
        Bounds; ``None`` means unbounded on that side.
    low_inclusive, high_inclusive : bool
        Whether each bound is allowed.
    allow_nan : bool
        If False (default), NaN is an error.

    Raises
    ------
    ValueError
        Naming the field, the first offending value (and its position for arrays) and the
        allowed range; a boolean or a string (:func:`check_numeric`) is a
        :class:`NotANumberError`, a ``ValueError`` that is also a ``TypeError``.
    """
    if type(value) in _PLAIN_SCALARS:  # the common in-range scalar, without building an array
        try:
            v = float(value)
        except OverflowError:
            raise ValueError(f"{name}: the integer {str(value)[:20]}... ({len(str(value))} digits) is too "
                             "large for a float") from None
        if (not math.isnan(v) and (low is None or (v >= low if low_inclusive else v > low))
                and (high is None or (v <= high if high_inclusive else v < high))):
            return  # NaN, and every value out of range, fall through to the message
    check_numeric(name, value)
    if value is None:
        lo = "-inf" if low is None else repr(low)
        hi = "inf" if high is None else repr(high)
        raise ValueError(f"{name} is missing (None); a value in {'[' if low_inclusive else '('}{lo}, {hi}"
                         f"{']' if high_inclusive else ')'} is required")
    try:
        arr = _as_float_array(value)
    except (TypeError, ValueError):
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        raise ValueError(f"{name}={shown} is not a number (or array of numbers)") from None
    flat = arr.ravel()
    bad = np.zeros(flat.shape, dtype=bool)
    nan = np.isnan(flat)
    if not allow_nan:
        bad |= nan
    with np.errstate(invalid="ignore"):
        if low is not None:
            bad |= ~nan & ((flat < low) if low_inclusive else (flat <= low))
        if high is not None:
            bad |= ~nan & ((flat > high) if high_inclusive else (flat >= high))
    if not bad.any():
        return
    idx = int(np.flatnonzero(bad)[0])
    lo = "-inf" if low is None else repr(low)
    hi = "inf" if high is None else repr(high)
    rng = f"{'[' if low_inclusive else '('}{lo}, {hi}{']' if high_inclusive else ')'}"
    where = position_phrase(bad, arr.shape)
    if isinstance(value, pd.Series):
        where = f" at index {value.index[idx]!r} ({int(bad.sum())} of {flat.size} bad)"
    msg = f"{name}={float(flat[idx])!r}{where} is outside the allowed range {rng}"
    if nan[idx]:
        msg = f"{name} is NaN{where}; a value in {rng} is required"
    raise ValueError(msg)


def check_fraction(
    name: str,
    value: Any,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> None:
    """Check that ``value`` is a fraction in [0, 1], with a percent hint on failure.

    Parameters
    ----------
    name : str
        Field name (conventionally ending in ``_frac``).
    value : float, array_like or pandas.Series
        Fraction(s) to check.
    low_inclusive, high_inclusive : bool
        Whether 0 and 1 are allowed.

    Raises
    ------
    ValueError
        If any element lies outside the range or is NaN; a value from 2 to 100 gets the hint
        that a percent was probably given where a fraction is expected (30 for 0.30), one
        between 1 and 2 the percent reading as a possibility.
    """
    try:
        check_range(
            name, value, low=0.0, high=1.0, low_inclusive=low_inclusive, high_inclusive=high_inclusive
        )
    except NotANumberError:
        raise
    except ValueError as err:
        v = _first_percent_like(value, err, above_one_inclusive=False)
        if v is not None:
            if v >= 2.0:
                hint = f"it looks like a percent: fractions are 0..1 (write {v / 100:.10g}, not {v:.10g})"
            else:  # 1 < v < 2: more likely a fraction slightly too large than a percent
                hint = f"fractions are 0..1 (if {v:.10g} is a percent, write {v / 100:.10g})"
            raise ValueError(f"{err}; {hint}") from None
        raise


def _first_percent_like(value: Any, err: ValueError, *, above_one_inclusive: bool) -> float | None:
    """Return the first element of ``value`` that reads as a percent (above 1, up to 100), else None.

    ``err`` (the range error being handled) is re-raised where ``value`` is not numeric.
    """
    try:
        arr = _as_float_array(value).ravel()
    except (TypeError, ValueError):
        raise err from None
    above_one = arr >= 1.0 if above_one_inclusive else arr > 1.0
    pct = arr[above_one & (arr <= 100.0 if not above_one_inclusive else arr < 100.0)]
    return float(pct[0]) if pct.size else None


MIN_TARGET_MARGIN_FRAC: float = -1e12
"""Lowest target gross margin accepted (a loss-making target is allowed, a non-finite one is not)."""


def check_target_margin(name: str, value: Any) -> None:
    """Check a target gross margin: a fraction below 1 (negative allowed), with a percent hint on failure.

    Parameters
    ----------
    name : str
        Field name (conventionally ``target_margin_frac``).
    value : float, array_like or pandas.Series
        Target margin(s), in [:data:`MIN_TARGET_MARGIN_FRAC`, 1).

    Raises
    ------
    ValueError
        A value of 1 or more (no revenue leaves a margin of 100 %), NaN or below the minimum;
        one in [1, 100) gets the hint that a percent was given where a fraction is meant
        (50 -> write 0.5).

    Examples
    --------
    >>> check_target_margin("target_margin_frac", 0.5)
    >>> try:
    ...     check_target_margin("target_margin_frac", 50)
    ... except ValueError as err:
    ...     print(str(err).split("; ")[1])
    it looks like a percent: margins are fractions below 1 (write 0.5, not 50)
    """
    try:
        check_range(name, value, low=MIN_TARGET_MARGIN_FRAC, high=1.0, high_inclusive=False)
    except NotANumberError:
        raise
    except ValueError as err:
        v = _first_percent_like(value, err, above_one_inclusive=True)
        if v is not None:
            raise ValueError(f"{err}; it looks like a percent: margins are fractions below 1 "
                             f"(write {v / 100:.10g}, not {v:.10g})") from None
        raise


def check_positive(name: str, value: Any) -> None:
    """Raise ``ValueError`` unless every element of ``value`` is finite and > 0.

    Parameters
    ----------
    name : str
        Field name for the message.
    value : float, array_like or pandas.Series
        Value(s) to check.

    Raises
    ------
    ValueError
        If any element is NaN, infinite, zero or negative.
    """
    check_range(name, value, low=0.0, low_inclusive=False, high=np.inf, high_inclusive=False)


def check_nonnegative(name: str, value: Any) -> None:
    """Raise ``ValueError`` unless every element of ``value`` is finite and >= 0.

    Parameters
    ----------
    name : str
        Field name for the message.
    value : float, array_like or pandas.Series
        Value(s) to check.

    Raises
    ------
    ValueError
        If any element is NaN, infinite or negative.
    """
    check_range(name, value, low=0.0, high=np.inf, high_inclusive=False)


def check_plausible(
    name: str,
    value: Any,
    *,
    low: float | None,
    high: float | None,
    unit: str,
    allow_zero: bool = False,
    hint: str | None = None,
    high_hint: str | None = None,
) -> None:
    """Raise ``ValueError`` if any element is not finite or outside the plausible range.

    Guards the unit slips a kind-only check lets through: $/token written as $/Mtok, TB
    written as GB, ms written as s, W written as kW.

    Parameters
    ----------
    name : str
        Field name for the message.
    value : float, array_like or pandas.Series
        Value(s) to check, element-wise.
    low, high : float or None
        Plausible range (inclusive); None for unbounded.
    unit : str
        Unit shown in the message.
    allow_zero : bool
        Whether an exact 0 is allowed below ``low`` (a free tier, no fee).
    hint : str, optional
        The likely slip named for a value below ``low`` (default: a per-token figure where
        per-million is meant). Given, every value below ``low`` gets the unit-slip message;
        otherwise only with ``allow_zero`` (else the plain range message).
    high_hint : str, optional
        The likely slip named for a value above ``high`` (e.g. W where kW is meant); without it
        a value above ``high`` gets the plain range message.

    Raises
    ------
    ValueError
        Naming the field, the first offending value and the plausible range.
    """
    if not (allow_zero or hint is not None or high_hint is not None):
        check_range(name, value, low=low, high=high)
        return
    check_range(name, value, allow_nan=True)  # numbers (never flags or text)
    arr = _as_float_array(value).ravel()
    zero = "0 or " if allow_zero else ""
    rng = f"{zero}[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}] {unit}"
    if np.isnan(arr).any():
        raise ValueError(f"{name} is NaN; a value in {rng} is required")
    over = ~np.isfinite(arr)
    if high is not None:
        over |= arr > high
    if low is not None and low >= 0:
        over |= arr < 0  # a negative figure is no unit slip
    if over.any():
        v = float(arr[np.flatnonzero(over)[0]])
        if high_hint is not None and high is not None and np.isfinite(v) and v > high:
            raise ValueError(f"{name}={v!r} {unit} is above the plausible maximum {high:g} {unit} (a unit slip? "
                             f"e.g. {high_hint}); allowed {rng}")
        above = " (above the plausible maximum)" if np.isfinite(v) and v > 0 else ""
        raise ValueError(f"{name}={v!r} {unit} is outside the allowed range {rng}{above}")
    if low is None:
        return
    bad = (arr < low) & ~((arr == 0) & allow_zero)
    if bad.any():
        v = float(arr[np.flatnonzero(bad)[0]])
        if hint is None and not allow_zero:
            raise ValueError(f"{name}={v!r} {unit} is below the plausible minimum {low:g} {unit}; allowed {rng}")
        raise ValueError(
            f"{name}={v!r} {unit} is below the plausible minimum {low:g} {unit} (a unit slip? "
            f"e.g. {hint or 'a per-token figure where per-million is meant'}); allowed {rng}"
        )
