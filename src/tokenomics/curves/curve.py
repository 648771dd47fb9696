"""Throughput-vs-interactivity curves: a validated Pareto frontier with monotone interpolation.

:class:`ThroughputCurve` holds the frontier knots of one configuration family and interpolates
between them with a piecewise-cubic Hermite interpolant (``scipy.interpolate.PchipInterpolator``)
in **log-log space**: ``log(throughput)`` as a function of ``log(interactivity)``. PCHIP keeps
the monotonicity of the knots, so between two knots the curve stays between their values, and
the back-transform ``exp`` keeps every value strictly positive: no overshoot, never below zero.

Target rule (a curve answers "what throughput per GPU can serve users at *at least* this
interactivity?"): serving faster than asked meets the target, so a target below the frontier's
lowest interactivity is met at the throughput of that lowest-interactivity point (the frontier's
highest throughput), never NaN. Above the highest measured interactivity nothing is known to
meet the target: NaN by default (see :meth:`ThroughputCurve.can_meet`), or raise or clip on
request. The inverse is symmetric: a throughput below the lowest knot throughput is met at the
highest measured interactivity. Consequently adding a measurement that dominates earlier ones
never makes the curve undefined where it was defined: the highest measured interactivity can
only grow.

:func:`cost_curve` turns a curve and a $/GPU-hour into cost per million tokens vs interactivity
with :mod:`tokenomics.economics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.interpolate import PchipInterpolator

from tokenomics._numeric import is_dask, is_xarray
from tokenomics._validate import check_numeric, check_plausible, check_positive, check_range
from tokenomics.curves.frontier import (
    CONFIG_COLUMN,
    DEFAULT_GROUP_COLUMNS,
    ENVELOPE_MARK,
    config_envelope,
    pareto_frontier,
)

__all__ = ["ThroughputCurve", "check_curve_matches", "cost_curve"]

Extrapolate = Literal["nan", "raise", "clip"]
_EXTRAPOLATE = ("nan", "raise", "clip")
_X = "interactivity_tok_per_s_per_user"
_BISECTION_STEPS = 64
_Y = "throughput_tok_per_s_per_gpu"


def _restore(values: Any, result: np.ndarray) -> Any:
    if isinstance(values, pd.Series):
        return pd.Series(result, index=values.index, name=values.name)
    if np.ndim(values) == 0:
        return float(result.reshape(()))
    return result


def _as_array(values: Any, name: str = "value") -> np.ndarray:
    if values is None:
        raise ValueError(f"{name} is missing (None): give a number or an array of numbers")
    check_numeric(name, values)  # "40" or True is not read as a number
    try:
        if isinstance(values, pd.Series | pd.Index):
            return np.asarray(values.to_numpy(dtype=float, na_value=np.nan), dtype=float)
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        shown = repr(values) if len(repr(values)) <= 80 else repr(values)[:77] + "..."
        raise ValueError(f"{name}={shown} is not a number (or array of numbers)") from None


class ThroughputCurve:
    """Pareto frontier of throughput per GPU vs interactivity, with monotone interpolation.

    Interpolation space: ``log(y) = PCHIP(log(x))`` with ``x`` interactivity [tok/s/user]
    and ``y`` throughput [tok/s/GPU].

    Parameters
    ----------
    interactivity_tok_per_s_per_user : array_like, shape (n,)
        Knot interactivities [tok/s/user], finite, > 0, strictly increasing.
    throughput_tok_per_s_per_gpu : array_like, shape (n,)
        Knot throughputs [tok/s/GPU], finite, > 0, strictly decreasing (a Pareto frontier).
    kind : str
        ``"measured"``, ``"floor"``, ``"projected"``, ``"anchored"`` (a projection scaled to
        measured points) or ``"mixed"`` (only when the caller explicitly allowed mixed kinds in
        :meth:`from_points`).
    throughput_column : str
        Which throughput the knots are (total by default; output for MLPerf points).
    points : pandas.DataFrame, optional
        The frontier rows the knots came from (kept for provenance).
    label : str, optional
        Display name.

    Raises
    ------
    ValueError
        If the knots are empty, not finite and positive, or not a frontier (interactivity
        strictly increasing and throughput strictly decreasing), or ``kind`` is unknown.

    Examples
    --------
    >>> c = ThroughputCurve([10.0, 40.0, 100.0], [4000.0, 1500.0, 300.0])
    >>> c.throughput_at(40.0)
    1500.0
    >>> bool(np.isnan(c.throughput_at(500.0)))
    True
    """

    KINDS = ("measured", "floor", "projected", "anchored", "mixed")

    def __init__(
        self,
        interactivity_tok_per_s_per_user: Any,
        throughput_tok_per_s_per_gpu: Any,
        *,
        kind: str = "measured",
        throughput_column: str = _Y,
        points: pd.DataFrame | None = None,
        label: str | None = None,
    ) -> None:
        x = _as_array(interactivity_tok_per_s_per_user, _X).ravel()
        y = _as_array(throughput_tok_per_s_per_gpu, throughput_column).ravel()
        if x.size == 0 or x.shape != y.shape:
            raise ValueError(f"need >= 1 knot with matching lengths, got {x.size} and {y.size}")
        check_range("interactivity_tok_per_s_per_user", x, low=0.0, low_inclusive=False,
                    high=np.inf, high_inclusive=False)
        check_range(throughput_column, y, low=0.0, low_inclusive=False, high=np.inf,
                    high_inclusive=False)
        if np.any(np.diff(x) <= 0) or np.any(np.diff(y) >= 0):
            raise ValueError(
                "knots are not a Pareto frontier: interactivity must strictly increase and "
                "throughput strictly decrease; build the curve with ThroughputCurve.from_points"
            )
        if kind not in self.KINDS:
            raise ValueError(f"kind={kind!r} is not one of {self.KINDS}")
        self._x = x
        self._y = y
        self.kind = kind
        self.throughput_column = throughput_column
        self.label = label
        self.space = "log-log"
        self._points = points.copy() if points is not None else pd.DataFrame(
            {_X: x, throughput_column: y})
        self._fwd: PchipInterpolator | None = None
        if x.size >= 2:
            self._fwd = PchipInterpolator(np.log(x), np.log(y), extrapolate=False)

    # --- construction ---------------------------------------------------------------------------
    @classmethod
    def from_points(
        cls,
        points: pd.DataFrame,
        *,
        throughput: str = _Y,
        interactivity: str = _X,
        allow_mixed_kinds: bool = False,
        allow_mixed_groups: bool = False,
        group_columns: Sequence[str] = DEFAULT_GROUP_COLUMNS,
        label: str | None = None,
    ) -> ThroughputCurve:
        """Build a curve from curve points: take their Pareto frontier and validate it.

        Parameters
        ----------
        points : pandas.DataFrame
            Curve points of one configuration family (see :mod:`tokenomics.curves.schema`).
        throughput : str
            Throughput column [tok/s/GPU] (``"output_throughput_tok_per_s_per_gpu"`` for
            output-only sources such as MLPerf).
        interactivity : str
            Interactivity column [tok/s/user].
        allow_mixed_kinds : bool
            Measured, floor and projected points are never mixed silently: with more than one
            ``kind`` present this raises unless True (the curve's kind is then ``"mixed"``).
        allow_mixed_groups : bool
            Points from more than one group of ``group_columns`` (e.g. two hardware types)
            raise unless True (an envelope over configurations). Points of several serving
            configurations (a ``config`` column with more than one value) are then read as the
            best configuration at each interactivity, :func:`~tokenomics.curves.frontier.config_envelope`,
            unless they already are one (its ``interpolated`` column); other points as their
            pooled Pareto frontier.
        group_columns : sequence of str
            Columns that must hold one value each (those present in ``points``).
        label : str, optional
            Display name (default built from hardware, model and workload).

        Returns
        -------
        ThroughputCurve
            The frontier curve; ``points`` holds the frontier rows.

        Raises
        ------
        TypeError
            If ``points`` is not a DataFrame.
        ValueError
            If kinds or groups are mixed without permission, or no point has positive
            throughput and interactivity.
        """
        if not isinstance(points, pd.DataFrame):
            raise TypeError(
                f"points must be a pandas DataFrame of curve points, got {type(points).__name__}"
            )
        kinds = sorted(points["kind"].dropna().unique()) if "kind" in points else []
        if len(kinds) > 1 and not allow_mixed_kinds:
            raise ValueError(
                f"points mix kinds {kinds}; measured, floor and projected points are not "
                "combined silently; filter by kind or pass allow_mixed_kinds=True"
            )
        cols = [c for c in group_columns if c in points.columns]
        if cols and not allow_mixed_groups:
            n_groups = points[cols].astype("string").fillna("<NA>").drop_duplicates().shape[0]
            if n_groups > 1:
                raise ValueError(
                    f"points span {n_groups} configuration groups over {cols}; filter to one "
                    "(or pass allow_mixed_groups=True for an envelope across them)"
                )
        configs = points[CONFIG_COLUMN].dropna().nunique() if CONFIG_COLUMN in points.columns else 0
        if allow_mixed_groups and configs > 1 and ENVELOPE_MARK not in points.columns:
            front = config_envelope(points, throughput=throughput, interactivity=interactivity)
        else:
            front = pareto_frontier(points, throughput=throughput, interactivity=interactivity, by=None)
        if front.empty:
            raise ValueError(
                f"no point has positive {throughput} and {interactivity} "
                f"({front.attrs.get('excluded_nonpositive', 0)} excluded)"
            )
        kind = "mixed" if len(kinds) > 1 else (kinds[0] if kinds else "measured")
        if label is None:
            parts = [str(front[c].iloc[0]) for c in ("hardware_id", "model_id", "workload")
                     if c in front.columns and pd.notna(front[c].iloc[0])]
            label = " ".join(parts) or None
        return cls(
            front[interactivity].to_numpy(dtype=float),
            front[throughput].to_numpy(dtype=float),
            kind=kind,
            throughput_column=throughput,
            points=front,
            label=label,
        )

    # --- properties -------------------------------------------------------------------------------
    @property
    def points(self) -> pd.DataFrame:
        """Frontier rows, interactivity ascending (a copy)."""
        return self._points.copy()

    @property
    def interactivity_range(self) -> tuple[float, float]:
        """Measured interactivity range (min, max) [tok/s/user]."""
        return float(self._x[0]), float(self._x[-1])

    @property
    def throughput_range(self) -> tuple[float, float]:
        """Measured throughput range (min, max) [tok/s/GPU]."""
        return float(self._y[-1]), float(self._y[0])

    def __len__(self) -> int:
        return int(self._x.size)

    def __repr__(self) -> str:
        lo, hi = self.interactivity_range
        name = f" {self.label!r}" if self.label else ""
        return (f"ThroughputCurve({name.strip() or 'unnamed'}, {len(self)} knots, kind={self.kind}, "
                f"interactivity {lo:.4g}..{hi:.4g} tok/s/user, space={self.space})")

    # --- evaluation -------------------------------------------------------------------------------
    def in_range(self, interactivity_tok_per_s_per_user: Any) -> Any:
        """Return True where interactivity lies within the measured knots (inclusive).

        Parameters
        ----------
        interactivity_tok_per_s_per_user : float, array_like or pandas.Series
            Interactivity [tok/s/user].

        Returns
        -------
        bool, numpy.ndarray of bool or pandas.Series of bool
            Same container as the input; NaN is out of range.
        """
        x = _as_array(interactivity_tok_per_s_per_user)
        with np.errstate(invalid="ignore"):
            inside = (x >= self._x[0]) & (x <= self._x[-1])
        if isinstance(interactivity_tok_per_s_per_user, pd.Series):
            return pd.Series(inside, index=interactivity_tok_per_s_per_user.index)
        return bool(inside) if np.ndim(inside) == 0 else inside

    def can_meet(self, interactivity_tok_per_s_per_user: Any) -> Any:
        """Return True where an interactivity target can be met (``0 < x <= highest knot``).

        A target below the lowest knot is met by serving faster than asked, at the lowest
        knot's throughput (see the module's target rule); :meth:`throughput_at` is finite
        exactly where this is True.

        Parameters
        ----------
        interactivity_tok_per_s_per_user : float, array_like or pandas.Series
            Interactivity target [tok/s/user].

        Returns
        -------
        bool, numpy.ndarray of bool or pandas.Series of bool
            Same container as the input; NaN cannot be met.
        """
        x = _as_array(interactivity_tok_per_s_per_user)
        with np.errstate(invalid="ignore"):
            ok = (x > 0) & (x <= self._x[-1])
        if isinstance(interactivity_tok_per_s_per_user, pd.Series):
            return pd.Series(ok, index=interactivity_tok_per_s_per_user.index)
        return bool(ok) if np.ndim(ok) == 0 else ok

    def _inverse_log(self, log_y: np.ndarray) -> np.ndarray:
        """Solve ``fwd(log x) = log_y`` by vectorised bisection (``fwd`` is decreasing)."""
        assert self._fwd is not None
        lo = np.full(log_y.shape, np.log(self._x[0]))
        hi = np.full(log_y.shape, np.log(self._x[-1]))
        for _ in range(_BISECTION_STEPS):
            mid = 0.5 * (lo + hi)
            above = self._fwd(mid) > log_y  # still left of the solution
            lo = np.where(above, mid, lo)
            hi = np.where(above, hi, mid)
        return np.asarray(0.5 * (lo + hi))

    def _evaluate(self, values: Any, knots_x: np.ndarray, knots_y: np.ndarray,
                  interp: Any, name: str, extrapolate: str, result_name: str) -> Any:
        if extrapolate not in _EXTRAPOLATE:
            raise ValueError(f"extrapolate={extrapolate!r} is not one of {_EXTRAPOLATE}")
        if is_xarray(values):
            import xarray as xr  # heavy optional import: only reached with DataArray input

            data = self._evaluate(values.data, knots_x, knots_y, interp, name, extrapolate, result_name)
            return xr.DataArray(data, dims=values.dims, coords=values.coords, name=result_name)
        if is_dask(values):
            check_numeric(name, values)  # by dtype, without computing

            def block(b: np.ndarray) -> np.ndarray:  # validated and interpolated when computed
                return np.asarray(self._evaluate(b, knots_x, knots_y, interp, name, extrapolate, result_name),
                                  dtype=float)

            return values.astype(float).map_blocks(block, dtype=float, meta=np.array((), dtype=float))
        v = _as_array(values, name)
        # a Series is checked as given so the message names the offending index label
        check_positive(name, values if isinstance(values, pd.Series) else v)
        lo, hi = knots_x[0], knots_x[-1]
        if name == "interactivity_tok_per_s_per_user" and np.any(v < lo):
            # the target rule would meet these at the slowest point: refuse the implausible ones
            # (a TPOT in seconds read as tok/s/user) instead of answering them silently
            from tokenomics import catalog

            spec = catalog.parameter_spec("curve", name)
            low = min(float(spec.min_value or 0.0), float(lo))
            check_plausible(name, values if isinstance(values, pd.Series) else v, low=low, high=None,
                            unit=spec.unit, hint="a TPOT in seconds per token where tokens per second per user "
                                                 "(1 / TPOT) are meant")
        with np.errstate(invalid="ignore"):
            outside = v > hi
        if extrapolate == "raise" and np.any(outside):
            bad = float(v[outside].ravel()[0])
            raise ValueError(
                f"{name}={bad!r} is above the highest measured value {float(hi)!r} of this curve "
                f"(measured range [{float(lo)!r}, {float(hi)!r}]); nothing measured meets it; use "
                "extrapolate='nan' or 'clip'"
            )
        # target rule: a target below the lowest knot is met at that knot (serving faster than
        # asked, or at a higher throughput than asked, meets the target)
        v = np.clip(v, lo, hi) if extrapolate == "clip" else np.maximum(v, lo)
        out = np.full(v.shape, np.nan)
        ok = np.isfinite(v) & (v >= lo) & (v <= hi)
        if interp is None:
            out[ok] = knots_y[0]
        elif np.any(ok):
            # PCHIP stays within the knot range; the clip only removes exp(log(.)) round-off
            out[ok] = np.clip(np.exp(interp(np.log(v[ok]))), knots_y.min(), knots_y.max())
            # exact knots return the knot (guards rounding in exp(log(.)))
            at_knot = ok & np.isin(v, knots_x)
            if np.any(at_knot):
                out[at_knot] = knots_y[np.searchsorted(knots_x, v[at_knot])]
        return _restore(values, out)

    def throughput_at(self, interactivity_tok_per_s_per_user: Any,
                      extrapolate: Extrapolate = "nan") -> Any:
        """Interpolated throughput per GPU at a given interactivity.

        Parameters
        ----------
        interactivity_tok_per_s_per_user : float, array_like, pandas.Series, dask array or xarray.DataArray
            Interactivity [tok/s/user], finite and > 0 element-wise.
        extrapolate : {"nan", "raise", "clip"}
            Above the highest measured interactivity: NaN (default; see :meth:`can_meet`),
            raise ``ValueError``, or clip to the last knot. Below the lowest knot the target
            is met at the lowest knot's throughput in every mode (the module's target rule).

        Returns
        -------
        float, numpy.ndarray, pandas.Series, dask array or xarray.DataArray
            Throughput [tok/s/GPU] of :attr:`throughput_column`, same container as the input
            (a Series keeps its index, a DataArray its dims and coords; a dask array stays
            lazy).

        Raises
        ------
        ValueError
            NaN, infinite or non-positive interactivity (the message names the argument and
            the first offending element); one below both the lowest knot and the vocabulary's
            plausible minimum (1 tok/s/user: a TPOT in seconds given where its inverse is
            meant); or out of range with ``extrapolate="raise"`` (for dask input: when computed).
        """
        return self._evaluate(interactivity_tok_per_s_per_user, self._x, self._y, self._fwd,
                              "interactivity_tok_per_s_per_user", extrapolate, self.throughput_column)

    def interactivity_at(self, throughput_tok_per_s_per_gpu: Any,
                         extrapolate: Extrapolate = "nan") -> Any:
        """Interpolated interactivity at a given throughput per GPU (inverse of the curve).

        The exact inverse of :meth:`throughput_at` (the same interpolant, solved by bisection),
        so ``throughput_at(interactivity_at(y)) == y`` to floating-point precision.

        Parameters
        ----------
        throughput_tok_per_s_per_gpu : float, array_like, pandas.Series, dask array or xarray.DataArray
            Throughput [tok/s/GPU], finite and > 0 element-wise.
        extrapolate : {"nan", "raise", "clip"}
            Above the highest knot throughput: NaN, raise, or clip. Below the lowest knot
            throughput the highest measured interactivity is returned (the target rule).

        Returns
        -------
        float, numpy.ndarray, pandas.Series, dask array or xarray.DataArray
            Interactivity [tok/s/user], same container as the input (as
            :meth:`throughput_at`).

        Raises
        ------
        ValueError
            NaN, infinite or non-positive throughput (the message names the argument and the
            first offending element), or out of range with ``extrapolate="raise"`` (for dask
            input: when computed).
        """
        inverse = None if self._fwd is None else self._inverse_log
        return self._evaluate(throughput_tok_per_s_per_gpu, self._y[::-1], self._x[::-1],
                              inverse, self.throughput_column, extrapolate, _X)


def cost_curve(
    curve: ThroughputCurve,
    cost_usd_per_gpu_hour: Any,
    utilization_frac: float = 1.0,
    *,
    interactivity_tok_per_s_per_user: Any = None,
    input_share_frac: float | None = None,
    cache_hit_frac: float = 0.0,
    rule: Literal["gpu_time", "price"] | None = None,
    **split_inputs: Any,
) -> pd.DataFrame:
    """Cost per million tokens vs interactivity along a throughput curve.

    ``total_usd_per_mtok(x) = cost_per_mtok(cost_usd_per_gpu_hour, curve.throughput_at(x),
    utilization_frac)`` (see :func:`tokenomics.economics.cost_per_mtok`). With ``rule`` given,
    the total is split additively into input, cached-input and output cost with
    :func:`tokenomics.economics.cost_split_per_mtok`.

    Parameters
    ----------
    curve : ThroughputCurve
        The curve; its throughput should be total (input + output) tokens per GPU for a cost
        of all tokens (an output-only curve gives cost per output token).
    cost_usd_per_gpu_hour : float or object with ``usd_per_gpu_hour``
        TCO basis [USD/GPU-hour], e.g. ``tokenomics.published_tco("b200")``.
    utilization_frac : float
        Busy fraction of paid hours, in (0, 1].
    interactivity_tok_per_s_per_user : array_like or pandas.Series, optional
        Where to evaluate [tok/s/user]; default the curve's knots. Targets above the highest
        measured interactivity are dropped from the table (never extrapolated); targets below
        the lowest are met at the lowest knot's throughput (the module's target rule).
    input_share_frac : float, optional
        Input share of all tokens, for the split; default ``ISL / (ISL + OSL)`` when the curve's
        points have one ISL/OSL.
    cache_hit_frac : float
        Cached share of input tokens, for the split.
    rule : {"gpu_time", "price"}, optional
        Split rule of :func:`~tokenomics.economics.cost_split_per_mtok`; None for total only.
    **split_inputs
        The rule's inputs (e.g. ``input_usd_per_mtok=``, ``output_usd_per_mtok=`` for
        ``"price"``; ``prefill_throughput_tok_per_s_per_gpu=`` and
        ``decode_throughput_tok_per_s_per_gpu=`` for ``"gpu_time"``).

    Returns
    -------
    pandas.DataFrame
        Columns ``interactivity_tok_per_s_per_user``, ``throughput_tok_per_s_per_gpu``,
        ``total_usd_per_mtok`` and, with a rule, ``input_usd_per_mtok``,
        ``cached_input_usd_per_mtok``, ``output_usd_per_mtok`` [USD/Mtok]; for a Series of
        interactivities, indexed by its labels (of the targets kept).

    Raises
    ------
    ValueError
        Invalid cost or utilization (from the economics engine), or a split without an input
        share.

    Examples
    --------
    >>> c = ThroughputCurve([10.0, 50.0], [2000.0, 500.0])
    >>> cost_curve(c, 2.0)["total_usd_per_mtok"].round(3).tolist()
    [0.278, 1.111]
    """
    from tokenomics.economics import cost_per_mtok, cost_split_per_mtok

    rate = getattr(cost_usd_per_gpu_hour, "usd_per_gpu_hour", cost_usd_per_gpu_hour)
    lo, hi = curve.interactivity_range
    index = None
    if interactivity_tok_per_s_per_user is None:
        x = curve.points[_X].to_numpy(dtype=float) if _X in curve.points else np.array([lo, hi])
    else:
        x = _as_array(interactivity_tok_per_s_per_user).ravel()
        if isinstance(interactivity_tok_per_s_per_user, pd.Series):
            index = interactivity_tok_per_s_per_user.index
    met = curve.can_meet(x)
    x = x[met]
    tput = np.asarray(curve.throughput_at(x), dtype=float)
    out = pd.DataFrame({_X: x, _Y: tput}, index=None if index is None else index[met])
    out["total_usd_per_mtok"] = cost_per_mtok(rate, tput, utilization_frac)
    if rule is None:
        return out
    share = input_share_frac
    if share is None:
        pts = curve.points
        if {"isl_tokens", "osl_tokens"} <= set(pts.columns):
            pairs = pts[["isl_tokens", "osl_tokens"]].dropna().drop_duplicates()
            if len(pairs) == 1:
                isl, osl = (float(v) for v in pairs.iloc[0])
                share = isl / (isl + osl)
    if share is None:
        raise ValueError("a split needs input_share_frac (the curve has no single ISL/OSL)")
    split = cost_split_per_mtok(rate, tput, utilization_frac, share, cache_hit_frac, rule=rule,
                                **split_inputs)
    out["input_usd_per_mtok"] = split.input_usd_per_mtok
    out["cached_input_usd_per_mtok"] = split.cached_input_usd_per_mtok
    out["output_usd_per_mtok"] = split.output_usd_per_mtok
    return out


def check_curve_matches(
    points: pd.DataFrame | None,
    *,
    model_id: str | None = None,
    hardware_id: str | None = None,
    workload: Any = None,
    field: str = "throughput_curve",
) -> None:
    """Raise if curve points state another model, hardware or workload than the one evaluated.

    Only what the points state is checked: a column that is absent or empty passes. A fixed
    workload (``workload.is_fixed``) is compared on ``isl_tokens``/``osl_tokens`` where the
    points carry them (relative tolerance 1 %), else on ``workload``; a session workload on its
    name.

    Parameters
    ----------
    points : pandas.DataFrame or None
        The curve's points (``ThroughputCurve.points``) or plan rows.
    model_id, hardware_id : str, optional
        Catalog ids of the system evaluated.
    workload : Workload, optional
        The traffic evaluated.
    field : str
        Name of the argument the points came from, for the message.

    Raises
    ------
    ValueError
        Naming the curve's and the evaluated model, hardware or workload.
    """
    if points is None or len(points) == 0:
        return

    def stated(column: str) -> list[Any]:
        if column not in points.columns:
            return []
        return sorted({v for v in points[column].dropna().tolist() if str(v).strip()}, key=str)

    def mismatch(what: str, theirs: list[Any], ours: Any) -> ValueError:
        shown = ", ".join(str(v) for v in theirs)
        return ValueError(f"{field} is for {what} {shown}, not {ours}: give a curve measured or projected "
                          f"for {ours}, or evaluate {shown}")

    if model_id is not None:
        theirs = stated("model_id")
        if theirs and model_id not in theirs:
            raise mismatch("model", theirs, model_id)
    if hardware_id is not None:
        theirs = stated("hardware_id")
        if theirs and hardware_id not in theirs:
            raise mismatch("hardware", theirs, hardware_id)
    if workload is None:
        return
    if getattr(workload, "is_fixed", False) and stated("isl_tokens") and stated("osl_tokens"):
        isl = points["isl_tokens"].dropna().to_numpy(dtype=float)
        osl = points["osl_tokens"].dropna().to_numpy(dtype=float)
        if not (np.allclose(isl, float(workload.isl_tokens), rtol=0.01)
                and np.allclose(osl, float(workload.osl_tokens), rtol=0.01)):
            theirs = sorted({f"ISL/OSL {a:g}/{b:g}" for a, b in zip(isl, osl, strict=False)})
            raise mismatch("workload", theirs, f"{workload.name} (ISL/OSL {float(workload.isl_tokens):g}/"
                                               f"{float(workload.osl_tokens):g})")
        return
    theirs = stated("workload")
    if theirs and workload.name not in theirs:
        raise mismatch("workload", theirs, workload.name)
