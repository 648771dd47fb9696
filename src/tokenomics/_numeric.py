"""One in/out helper for every kernel: scalar, ndarray, pandas Series, dask array, xarray DataArray.

A kernel converts its inputs with :func:`prepare` (validating each on the way), computes with
plain arithmetic on the arrays it gets back, and hands the result to the returned
:class:`Restore`, which

* gives the caller's container back: float for scalars, ndarray for arrays, Series (index of the
  Series inputs) for Series, a *lazy* dask array for dask inputs, a DataArray (dims and coords of
  the DataArray inputs, dask-backed or not) for DataArrays;
* refuses a non-finite result (the finite-result guard): an overflow or 0/0 raises
  ``ValueError`` naming the result, the input fields and their values at the first bad element,
  never returns inf or NaN silently.

Dask inputs stay lazy: validation and the finite-result guard run block by block inside the
task graph (``map_blocks``), so a bad value raises ``ValueError`` when the result is computed,
naming the field and the position in the whole array. Nothing here calls ``numpy.asarray`` on a
dask array.

Mixing containers: Series with dask or DataArray inputs, or unlabeled arrays (ndim >= 1) with
DataArrays, is refused (no silent positional alignment).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, ParamSpec, TypeVar

import numpy as np
import pandas as pd

from tokenomics._validate import check_numeric, chunk_of, position_phrase

__all__ = [
    "Check",
    "Restore",
    "as_arrays",
    "checked",
    "inputs_trusted",
    "is_dask",
    "is_lazy",
    "is_xarray",
    "kernel",
    "lazy_raise_where",
    "prepare",
    "trusted_inputs",
]

Check = Callable[[str, Any], None]
"""A validator ``check(name, value)`` raising ``ValueError`` (those of :mod:`tokenomics._validate`)."""

Mode = Literal["scalar", "array", "series", "dask", "xarray"]


_P = ParamSpec("_P")
_R = TypeVar("_R")


_TRUSTED: ContextVar[bool] = ContextVar("tokenomics_trusted_inputs", default=False)


@contextlib.contextmanager
def trusted_inputs() -> Iterator[None]:
    """Skip the element-wise input checks of the kernels called inside; the finite-result guard stays.

    For a caller that constructs every input inside its valid range (e.g. Monte Carlo draws by
    inverse CDF truncated to the range, with the base values checked once by a validating call):
    the checks would only repeat what the construction guarantees. Per thread (a context variable).

    Examples
    --------
    >>> from tokenomics.economics import cost_per_mtok
    >>> with trusted_inputs():
    ...     round(cost_per_mtok(1.48, 55.6, 1.0), 2)
    7.39
    """
    token = _TRUSTED.set(True)
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def inputs_trusted() -> bool:
    """Whether the kernels' input checks are skipped here (inside :func:`trusted_inputs`).

    Returns
    -------
    bool
        True inside :func:`trusted_inputs` (this thread).
    """
    return _TRUSTED.get()


def kernel(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run a kernel with floating-point warnings silenced: its finite-result guard reports instead.

    Parameters
    ----------
    func : callable
        A kernel whose results pass through :class:`Restore`.

    Returns
    -------
    callable
        The same kernel, computing under ``numpy.errstate(all="ignore")``.
    """

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with np.errstate(all="ignore"):
            return func(*args, **kwargs)

    return wrapper


def is_dask(value: Any) -> bool:
    """Whether ``value`` is a dask array (without importing dask when the caller never did)."""
    mod = sys.modules.get("dask.array")
    return mod is not None and isinstance(value, mod.Array)


def is_xarray(value: Any) -> bool:
    """Whether ``value`` is an xarray DataArray (without importing xarray when never imported)."""
    mod = sys.modules.get("xarray")
    return mod is not None and isinstance(value, mod.DataArray)


def is_lazy(value: Any) -> bool:
    """Whether ``value`` is a dask array or a dask-backed DataArray."""
    return is_dask(value) or (is_xarray(value) and is_dask(value.data))


@contextlib.contextmanager
def _in_block(block_info: Any) -> Iterator[None]:
    """Count the positions reported inside in the whole dask array (dask's ``block_info`` of the output)."""
    info = block_info.get(None) if isinstance(block_info, dict) else None
    if not info or "array-location" not in info or "shape" not in info:
        yield
        return
    with chunk_of([lo for lo, _ in info["array-location"]], info["shape"]):
        yield


def _checked_block(block: np.ndarray, field: str, check: Check, block_info: Any = None) -> np.ndarray:
    with _in_block(block_info):
        check(field, block)
    return block


def _apply_check(name: str, value: Any, check: Check | None) -> Any:
    """Validate a dask array lazily, block by block; return the array to compute with."""
    if check is None:
        return value
    return value.map_blocks(_checked_block, dtype=float, meta=np.array((), dtype=float), field=name, check=check)


def checked(name: str, value: Any, check: Check) -> Any:
    """Validate ``value`` now, or block by block when computed for a dask array; return it.

    Parameters
    ----------
    name : str
        Field name for the message.
    value : float, numpy.ndarray or dask.array.Array
        Value(s) to check.
    check : callable
        ``check(name, value)`` raising ``ValueError``.

    Returns
    -------
    Any
        ``value`` (for dask, the lazily checked array to compute with).
    """
    if is_dask(value):
        return _apply_check(name, value, check)
    check(name, value)
    return value


def _describe_inputs(names: Sequence[str], arrays: Sequence[Any], shape: tuple[int, ...], idx: int) -> str:
    parts = []
    for name, arr in zip(names, arrays, strict=True):
        if is_dask(arr):
            parts.append(name)
            continue
        a = np.broadcast_to(np.asarray(arr, dtype=float), shape).ravel()
        parts.append(f"{name}={float(a[idx]):.6g}")
    return ", ".join(parts)


def _finite_error(
    result_name: str, result: np.ndarray, bad: np.ndarray, names: Sequence[str], arrays: Sequence[Any]
) -> ValueError:
    flat = np.asarray(result, dtype=float).ravel()
    bad_flat = np.asarray(bad).ravel()
    idx = int(np.flatnonzero(bad_flat)[0])
    where = position_phrase(bad_flat, np.shape(result), counted="")
    inputs = _describe_inputs(names, arrays, np.shape(result), idx) if names else "the inputs"
    return ValueError(
        f"{result_name} is not finite ({float(flat[idx])!r}){where}: the inputs ({inputs}) overflow or "
        "underflow double precision; check their units and magnitudes"
    )


def _guard_block(
    result: np.ndarray, *inputs: Any, result_name: str, names: Sequence[str], allow_nan: bool
) -> np.ndarray:
    bad = ~np.isfinite(result)
    if allow_nan:
        bad &= ~np.isnan(result)
    if bad.any():
        raise _finite_error(result_name, result, bad, names, inputs)
    return result


def lazy_raise_where(
    result: Any, mask: Any, make_error: Callable[..., Exception], *context: Any
) -> Any:
    """Return ``result``, raising ``make_error(result, mask, *context)`` where ``mask`` is True.

    Eager for numpy input; for dask input the test runs block by block when computed (positions
    reported inside count in the whole array, :func:`tokenomics._validate.position_phrase`).

    Parameters
    ----------
    result, mask : numpy.ndarray or dask.array.Array
        Values and the boolean mask of bad elements (broadcastable together).
    make_error : callable
        Builds the exception from the (block of the) result and mask, and of each context array.
    *context : numpy.ndarray or dask.array.Array
        Further arrays the message needs (e.g. the inputs compared), broadcast like ``mask``.

    Returns
    -------
    numpy.ndarray or dask.array.Array
        ``result`` itself (a lazy array that checks on compute, for dask).
    """
    if is_dask(result) or is_dask(mask) or any(is_dask(c) for c in context):
        import dask.array as da  # heavy optional import: only reached with dask input

        def _block(r: np.ndarray, m: np.ndarray, *ctx: np.ndarray, block_info: Any = None) -> np.ndarray:
            m = np.broadcast_to(m, np.shape(r))
            if m.any():
                with _in_block(block_info):
                    raise make_error(r, m, *(np.broadcast_to(c, m.shape) for c in ctx))
            return r

        r, m, *ctx = da.broadcast_arrays(da.asarray(result), da.asarray(mask), *(da.asarray(c) for c in context))
        return da.map_blocks(_block, r, m, *ctx, dtype=float, meta=np.array((), dtype=float))
    m = np.broadcast_to(mask, np.broadcast_shapes(np.shape(result), np.shape(mask)))
    if m.any():
        raise make_error(np.broadcast_to(np.asarray(result), m.shape), m,
                         *(np.broadcast_to(np.asarray(c), m.shape) for c in context))
    return result


@dataclass
class Restore:
    """Gives a kernel's result back in the caller's container, after the finite-result guard.

    Built by :func:`prepare`; call it on each result array.
    """

    mode: Mode
    names: tuple[str, ...] = ()
    arrays: tuple[Any, ...] = ()
    index: pd.Index | None = None
    template: Any = None
    _dims: tuple[str, ...] = field(default=())

    def __call__(self, result: Any, name: str = "result", *, allow_nan: bool = False, guard: bool = True) -> Any:
        """Guard ``result`` (finite, NaN too where ``allow_nan``) and wrap it like the inputs.

        Parameters
        ----------
        result : numpy.ndarray, float or dask.array.Array
            Computed values, broadcast from the prepared arrays.
        name : str, default "result"
            Field name of the result (e.g. ``"cost_usd_per_mtok"``), for the error message and as
            the name of a Series or DataArray result (none for the default).
        allow_nan : bool, default False
            Let NaN through (a kernel's documented "no solution" marker); inf still raises.
        guard : bool, default True
            Apply the finite-result guard.

        Returns
        -------
        float, numpy.ndarray, pandas.Series, dask.array.Array or xarray.DataArray
            The result in the caller's container; a Series or DataArray is named ``name``.

        Raises
        ------
        ValueError
            A non-finite element, naming ``name``, the input fields and their values there.
        """
        if guard:
            result = self._guard(result, name, allow_nan)
        if self.mode == "xarray":
            import xarray as xr  # heavy optional import: only reached with DataArray input

            tmpl = self.template
            data = result if is_dask(result) else np.asarray(result, dtype=float)
            if is_dask(data):
                data = data.astype(float)
            if np.shape(data) != tmpl.shape:
                data = np.broadcast_to(data, tmpl.shape) if not is_dask(data) else data
            return xr.DataArray(data, dims=tmpl.dims, coords=tmpl.coords, name=name if name != "result" else None)
        if self.mode == "dask":
            import dask.array as da  # heavy optional import: only reached with dask input

            return da.asarray(result).astype(float)
        if self.mode == "series":
            assert self.index is not None
            return pd.Series(np.broadcast_to(result, (len(self.index),)), index=self.index, dtype=float,
                             name=name if name != "result" else None)
        if self.mode == "array":
            return np.asarray(result, dtype=float)
        return float(np.asarray(result))

    def _guard(self, result: Any, name: str, allow_nan: bool) -> Any:
        if is_dask(result):
            import dask.array as da  # heavy optional import: only reached with dask input

            dask_inputs = [a for a in self.arrays if is_dask(a) or np.ndim(a) > 0]
            # inputs travel block-aligned with the result so the message can show their values
            ins = [da.broadcast_to(da.asarray(a), result.shape).rechunk(result.chunks) for a in dask_inputs]
            names = [n for n, a in zip(self.names, self.arrays, strict=True) if is_dask(a) or np.ndim(a) > 0]
            scal = {
                n: float(a)
                for n, a in zip(self.names, self.arrays, strict=True)
                if not (is_dask(a) or np.ndim(a) > 0)
            }

            def _block(r: np.ndarray, *xs: np.ndarray, block_info: Any = None) -> np.ndarray:
                all_names = [*names, *scal]
                all_arrays: list[Any] = [*xs, *(np.float64(v) for v in scal.values())]
                with _in_block(block_info):
                    return _guard_block(r, *all_arrays, result_name=name, names=all_names, allow_nan=allow_nan)

            return da.map_blocks(_block, result, *ins, dtype=float, meta=np.array((), dtype=float))
        res = np.asarray(result, dtype=float)
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(res)
            if allow_nan:
                bad &= ~np.isnan(res)
        if bad.any():
            raise _finite_error(name, res, bad, self.names, self.arrays)
        return res


def prepare(*fields: tuple[str, Any, Check | None]) -> tuple[list[Any], Restore]:
    """Validate and convert kernel inputs; return float arrays and a :class:`Restore`.

    Parameters
    ----------
    *fields : (str, value, check or None)
        Field name, the caller's value (float, array_like, Series, dask array, DataArray) and a
        validator ``check(name, value)`` (None: no check). Eager inputs are checked now; dask
        inputs (also inside a DataArray) are checked block by block when computed.

    Returns
    -------
    (list, Restore)
        Float arrays (numpy, or dask for dask inputs), in the order given, and the function that
        guards a result and gives it back in the caller's container.

    Raises
    ------
    ValueError
        A failed check, Series with different indexes, or containers that cannot be combined
        without silent alignment.
    TypeError
        A pandas DataFrame (a table, not one value per element: pass one column).
    """
    names = tuple(f[0] for f in fields)
    values = [f[1] for f in fields]
    checks = [f[2] for f in fields]
    for name, value in zip(names, values, strict=True):
        if isinstance(value, pd.DataFrame):
            raise TypeError(
                f"{name} is a pandas DataFrame of {value.shape[1]} column{'' if value.shape[1] == 1 else 's'}, "
                "not one value per element: pass one column (frame[column]), a Series that keeps the index"
            )
    has_xr = any(is_xarray(v) for v in values)
    has_dask = any(is_dask(v) for v in values)
    has_series = any(isinstance(v, pd.Series) for v in values)
    if has_series and (has_xr or has_dask):
        raise ValueError(
            "pandas Series cannot be combined with dask arrays or xarray DataArrays: convert the Series "
            f"first (inputs: {', '.join(names)})"
        )
    if has_xr:
        return _prepare_xarray(names, values, checks)
    index: pd.Index | None = None
    is_array = False
    trusted = _TRUSTED.get()
    arrays: list[Any] = []
    for name, value, check in zip(names, values, checks, strict=True):
        if isinstance(value, pd.Series):
            if index is None:
                index = value.index
            elif not value.index.equals(index):
                raise ValueError(
                    "pandas Series inputs must share the same index; align them first (e.g. with Series.reindex)"
                )
            try:
                arr: Any = np.asarray(value.to_numpy(dtype=float, na_value=np.nan), dtype=float)
            except (TypeError, ValueError):
                arr = _as_float(name, value.to_numpy(dtype=object))
        elif is_dask(value):
            if check is not None:
                check_numeric(name, value)  # by dtype: a dask array of booleans or text is no number
            arr = value.astype(float)
        else:
            arr = _as_float(name, value)
            is_array = is_array or arr.ndim > 0
        arrays.append(_apply_check(name, arr, check) if is_dask(arr) else arr)
        if not is_dask(arr) and check is not None and not trusted:
            check(name, value)
    eager = [(n, a) for n, a in zip(names, arrays, strict=True) if not is_dask(a)]
    try:
        np.broadcast_shapes(*(a.shape for _, a in eager))
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in eager if a.ndim)
        raise ValueError(f"inputs of different lengths cannot be combined element-wise: shapes {shapes}; give "
                         "scalars or arrays of one length") from None
    mode: Mode = "series" if index is not None else "dask" if has_dask else "array" if is_array else "scalar"
    return arrays, Restore(mode, names, tuple(arrays), index)


def _as_float(name: str, value: Any) -> np.ndarray:
    """Float array of an eager input, or ``ValueError`` naming the field and the value that is not a number."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        flat = np.asarray(value, dtype=object).reshape(-1)
        bad = next((v for v in flat if not _is_number(v)), value)
        raise ValueError(f"{name}={bad!r} is not a number; give a float, an array of floats or a pandas Series") \
            from None


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _prepare_xarray(names: tuple[str, ...], values: list[Any], checks: list[Check | None]) -> tuple[list[Any], Restore]:
    import xarray as xr  # heavy optional import: only reached with DataArray input

    for name, value in zip(names, values, strict=True):
        if not is_xarray(value) and np.ndim(value) > 0:
            raise ValueError(
                f"{name} is an unlabeled array while other inputs are xarray DataArrays: wrap it in a "
                "DataArray with named dims (no positional alignment)"
            )
    labeled = [v for v in values if is_xarray(v)]
    aligned = xr.broadcast(*labeled)
    template = aligned[0]
    arrays: list[Any] = []
    it = iter(aligned)
    for name, value, check in zip(names, values, checks, strict=True):
        if check is not None:
            check_numeric(name, value)  # by dtype: lost once converted to float below
        if is_xarray(value):
            data = next(it).data
            data = data.astype(float) if is_dask(data) else np.asarray(data, dtype=float)
        else:
            data = np.asarray(value, dtype=float)
        if is_dask(data):
            data = _apply_check(name, data, check)
        elif check is not None:
            check(name, data)
        arrays.append(data)
    return arrays, Restore("xarray", names, tuple(arrays), None, template)


def as_arrays(*values: Any) -> tuple[list[Any], Restore]:
    """Convert unvalidated inputs; :func:`prepare` without names or checks.

    Parameters
    ----------
    *values : float, array_like, pandas.Series, dask array or xarray.DataArray
        Inputs.

    Returns
    -------
    (list, Restore)
        As :func:`prepare`; the finite-result guard names the inputs ``arg0``, ``arg1``, ...

    Examples
    --------
    >>> (a, b), restore = as_arrays(2.0, [1.0, 4.0])
    >>> restore(a / b)
    array([2. , 0.5])
    """
    return prepare(*((f"arg{i}", v, None) for i, v in enumerate(values)))


def series_index(**inputs: Any) -> pd.Index | None:
    """Return the index shared by the pandas Series among ``inputs`` (None without any); ValueError if they differ."""
    index: pd.Index | None = None
    first = ""
    for name, value in inputs.items():
        if not isinstance(value, pd.Series):
            continue
        if index is None:
            index, first = value.index, name
        elif not value.index.equals(index):
            raise ValueError(f"pandas Series inputs {first} and {name} have different indexes; align them first "
                             "(e.g. with Series.reindex)")
    return index
