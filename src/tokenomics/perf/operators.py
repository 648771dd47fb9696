"""Operator-level efficiencies: GEMM, grouped MoE GEMM and collectives as functions of shape.

The step model of :mod:`tokenomics.perf.step` prices each operator of a decode step with its own
measured roofline instead of one efficiency for every matrix multiply. The bundled tables in
``data/perf/`` were fitted (``benchmarks/fit_operator_tables.py``) to NVIDIA AIConfigurator's
per-kernel latencies (``aiconfigurator-core`` 0.12.0, Apache-2.0, TensorRT-LLM 1.3.0rc20 kernels,
NCCL 2.27-2.29); the library only reads the CSV files.

**GEMM** (dense, or grouped over the experts of one MoE layer) with ``M`` tokens (for MoE:
``M`` = tokens per expert)::

    t = max(FLOP / (R_max x M / (M + M_half)),  weight bytes / BW_w) + launches x t_launch

``R_max`` [FLOP/s] is the large-``M`` rate, ``M_half`` the tokens at which half of it is reached,
``BW_w`` the weight-streaming rate at small ``M`` and ``t_launch`` the fixed time per kernel.
All GEMMs of a layer share ``M`` and the ratio FLOP / bytes, so the formula holds for their sum.

**Collectives** (all-reduce, all-to-all) of a group of ``n`` ranks on an ``S``-byte message::

    t = t_latency(n) + bus bytes / BW_bus(n),   bus bytes = 2 (n-1)/n S (all-reduce), (n-1)/n S

**Decode attention** reads each sequence's KV cache once per step. With few sequences or a short
context the kernel cannot keep every streaming multiprocessor busy, so the achieved KV-read rate
is a fraction of the large-batch one that rises with the work per call::

    t_kv = KV bytes / (BW_kv x f(streams, context))

``f`` (:func:`kv_read_frac`) is interpolated in a measured grid over context length and KV
streams (sequences per GPU for MLA, sequences x KV heads per GPU for GQA); ``BW_kv`` is the
large-batch rate, which the calibrated HBM efficiency stands for.

Hardware without measured tables (AMD, TPU, Trainium, H800, Rubin) gets each quantity as the
median *fraction of its own catalog peak* over the measured NVIDIA systems (``R_max / peak FLOP/s``,
``BW_w / HBM bandwidth``, ``BW_bus / scale-up bandwidth``), ``M_half`` and latencies as the
median (for decode attention the median grid); :func:`gemm_kernel` says which in ``source``.
Groups larger than the largest measured one use that group's values; groups that span several
scale-up domains run over the scale-out network at its catalog bandwidth.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.interpolate import RectBivariateSpline

from tokenomics.catalog import Hardware
from tokenomics.precision import canonical_precision
from tokenomics.units import BYTES_PER_GB, FLOPS_PER_TFLOPS

OPERATORS: tuple[str, ...] = ("gemm", "moe")
"""Operators with measured GEMM tables."""
COLLECTIVES: tuple[str, ...] = ("all_reduce", "all_to_all")
"""Collectives with measured tables."""
_PEAK_PRECISION = {"bf16": "bf16", "fp8": "fp8", "fp4": "fp4", "w4a16": "bf16"}
"""Tensor-core rate a table precision runs at (W4A16 multiplies in BF16)."""
_WEIGHT_BYTES = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5, "w4a16": 0.5}
KV_READ_KERNELS: dict[str, str] = {"mla": "mla", "csa": "mla", "gqa": "gqa", "mha": "gqa"}
"""Measured decode-attention grid each attention type reads with: one shared latent per token
(MLA, DeepSeek-V4 CSA) or per-head K and V (GQA, MHA)."""


@dataclass(frozen=True)
class GemmKernel:
    """Measured roofline of one GEMM operator on one accelerator at one precision.

    Attributes
    ----------
    max_flop_per_s : float
        Large-``M`` rate [FLOP/s].
    half_tokens : float
        Tokens (per expert for MoE) at which half of ``max_flop_per_s`` is reached [tokens].
    weight_bytes_per_s : float
        Weight-streaming rate at small ``M`` [bytes/s].
    launch_s : float
        Fixed time per kernel call [s].
    source : str
        Table row, or how it was derived for hardware without measurements.
    """

    max_flop_per_s: float
    half_tokens: float
    weight_bytes_per_s: float
    launch_s: float
    source: str

    def time_s(self, flop: ArrayLike, weight_bytes: ArrayLike, tokens: ArrayLike) -> np.ndarray:
        """Return :func:`gemm_time_s` of this kernel [s]."""
        return np.asarray(gemm_time_s(self.max_flop_per_s, self.half_tokens, self.weight_bytes_per_s,
                                      flop, weight_bytes, tokens))


def gemm_time_s(max_flop_per_s: ArrayLike, half_tokens: ArrayLike, weight_bytes_per_s: ArrayLike,
                flop: ArrayLike, weight_bytes: ArrayLike, tokens: ArrayLike) -> Any:
    """Return the time of one GEMM operator call, launches excluded [s].

    ``max(FLOP / (R_max M / (M + M_half)), bytes / BW_w)``, element-wise: the kernel's rate
    rises with the tokens ``M`` in the call (per expert for grouped MoE GEMMs) towards
    ``R_max``, and a call streams its weights at least once. For hot paths whose inputs are
    already checked (the step model): nothing is validated here.

    Parameters
    ----------
    max_flop_per_s, half_tokens, weight_bytes_per_s : float or array_like
        The kernel's large-``M`` rate [FLOP/s], half-rate tokens [tokens] and weight-streaming
        rate [bytes/s] (:class:`GemmKernel`); arrays for several kernels at once.
    flop, weight_bytes, tokens : float or array_like
        Work of the call: FLOPs, weight bytes read and tokens ``M`` (clipped at 1e-9).

    Returns
    -------
    float or numpy.ndarray
        Seconds, broadcast over the inputs.
    """
    m = np.maximum(np.asarray(tokens, dtype=float), 1e-9)
    rate = np.multiply(max_flop_per_s, m) / (m + half_tokens)
    return np.maximum(np.asarray(flop, dtype=float) / rate, np.asarray(weight_bytes, dtype=float) / weight_bytes_per_s)


def _perf_dir() -> Path:
    from tokenomics.catalog import data_dir

    return data_dir() / "perf"


@functools.cache
def operator_table() -> pd.DataFrame:
    """Return the bundled GEMM and MoE GEMM kernel table (``data/perf/operator_efficiency.csv``).

    Returns
    -------
    pandas.DataFrame
        One row per (``hardware_id``, ``operator``, ``precision``): ``max_tflops`` [TFLOP/s],
        ``half_tokens`` [tokens], ``weight_stream_gb_per_s`` [GB/s], ``launch_latency_us``
        [us], fit quality, ``source``, ``as_of``.

    Raises
    ------
    ValueError
        If a row names an unknown operator or precision, or a rate is not positive.
    """
    return _kernel_rows("operator_efficiency.csv", ("max_tflops", "half_tokens", "weight_stream_gb_per_s"))


def _kernel_rows(name: str, positive: tuple[str, ...]) -> pd.DataFrame:
    """Read a kernel table of ``data/perf/``: known operator and precision, positive ``positive`` columns."""
    path = _perf_dir() / name
    table = pd.read_csv(path)
    for line, row in enumerate(table.itertuples(index=False), start=2):
        if row.operator not in OPERATORS or row.precision not in _PEAK_PRECISION:
            raise ValueError(f"{path}: line {line}: unknown operator/precision {row.operator!r}/{row.precision!r}")
        for col in positive:
            value = getattr(row, col)
            if not value > 0:
                raise ValueError(f"{path}: line {line}, {col}: {value!r} must be > 0")
    return table


@functools.cache
def published_gemm_rates() -> pd.DataFrame:
    """Return the published large-``M`` GEMM rates of hardware without kernel tables.

    ``data/perf/published_gemm_rates.csv``: vendor microbenchmarks of one large dense GEMM (AMD's
    Max-Achievable FLOPs of MI300X and MI325X). They set ``max_flop_per_s`` of
    :func:`gemm_kernel` for that hardware; the shape terms stay the measured systems' medians.

    Returns
    -------
    pandas.DataFrame
        One row per (``hardware_id``, ``operator``, ``precision``): ``max_tflops`` [TFLOP/s],
        ``source``, ``as_of``, ``note``.

    Raises
    ------
    ValueError
        If a row names an unknown operator or precision, or a rate is not positive.
    """
    return _kernel_rows("published_gemm_rates.csv", ("max_tflops",))


@functools.cache
def _published_index() -> dict[tuple[str, str, str], tuple[float, str]]:
    return {(str(r.hardware_id), str(r.operator), str(r.precision)): (float(r.max_tflops), str(r.source))
            for r in published_gemm_rates().itertuples(index=False)}


@functools.cache
def collective_table() -> pd.DataFrame:
    """Return the bundled collective table (``data/perf/collectives.csv``).

    Returns
    -------
    pandas.DataFrame
        One row per (``hardware_id``, ``collective``, ``group_size``): ``latency_us`` [us],
        ``bus_bw_gb_per_s`` [GB/s], fit quality, ``source``, ``as_of``.

    Raises
    ------
    ValueError
        If a row names an unknown collective or a bandwidth is not positive.
    """
    path = _perf_dir() / "collectives.csv"
    table = pd.read_csv(path)
    for line, row in enumerate(table.itertuples(index=False), start=2):
        if row.collective not in COLLECTIVES or row.bus_bw_gb_per_s <= 0 or row.group_size < 2:
            raise ValueError(f"{path}: line {line}: bad collective row {row.collective!r}")
    return table


def table_precision(operator: str, weight_precision: str, activation_precision: str) -> str:
    """Return the table precision of an operator: the wider of weight and multiply precision.

    4-bit weights multiplied in BF16 are ``"w4a16"`` for MoE (a dense one uses the BF16 row).

    Parameters
    ----------
    operator : str
        ``"gemm"`` or ``"moe"``.
    weight_precision, activation_precision : str
        Precisions of the weights and of the multiply.

    Returns
    -------
    str
        ``"bf16"``, ``"fp8"``, ``"fp4"`` or ``"w4a16"``.

    Examples
    --------
    >>> table_precision("moe", "fp4", "bf16")
    'w4a16'
    """
    w, act = canonical_precision(weight_precision), canonical_precision(activation_precision)
    if act == "bf16" and w == "fp4" and operator == "moe":
        return "w4a16"
    order = ("fp4", "fp8", "bf16")
    return max(w, act, key=order.index)  # the wider of the two sets the multiply


def _peak_flop_per_s(hw: Hardware, precision: str) -> float:
    return hw.dense_tflops(_PEAK_PRECISION[precision]) * FLOPS_PER_TFLOPS


@functools.cache
def _measured_fractions(operator: str, precision: str) -> tuple[float, float, float, float, str]:
    """Median fractions of peak over the measured systems (any precision if none at this one)."""
    from tokenomics.catalog import hardware as lookup

    t = operator_table()
    rows = t[(t["operator"] == operator) & (t["precision"] == precision)]
    if rows.empty:
        rows = t[t["operator"] == operator]
    r, bw = [], []
    for row in rows.itertuples(index=False):
        hw = lookup(str(row.hardware_id))
        r.append(row.max_tflops * FLOPS_PER_TFLOPS / _peak_flop_per_s(hw, str(row.precision)))
        bw.append(row.weight_stream_gb_per_s * BYTES_PER_GB / hw.hbm_bandwidth_bytes_per_s)
    systems = ", ".join(sorted(set(rows["hardware_id"])))
    return (float(np.median(r)), float(rows["half_tokens"].median()), float(np.median(bw)),
            float(rows["launch_latency_us"].median()) * 1e-6, systems)


@functools.cache
def _operator_index() -> dict[tuple[str, str, str], tuple[float, float, float, float, str]]:
    t = operator_table()
    return {
        (str(r.hardware_id), str(r.operator), str(r.precision)):
            (float(r.max_tflops), float(r.half_tokens), float(r.weight_stream_gb_per_s),
             float(r.launch_latency_us), str(r.source))
        for r in t.itertuples(index=False)
    }


@functools.cache
def _collective_index() -> dict[tuple[str, str], dict[int, tuple[float, float]]]:
    out: dict[tuple[str, str], dict[int, tuple[float, float]]] = {}
    for r in collective_table().itertuples(index=False):
        out.setdefault((str(r.hardware_id), str(r.collective)), {})[int(r.group_size)] = (
            float(r.bus_bw_gb_per_s), float(r.latency_us))
    return out


def gemm_kernel(hardware: Hardware, operator: str, precision: str) -> GemmKernel:
    """Return the measured (or derived) GEMM roofline of an operator on a hardware.

    Parameters
    ----------
    hardware : Hardware
        Catalog hardware.
    operator : str
        ``"gemm"`` (dense) or ``"moe"`` (grouped expert GEMM of one MoE layer, gated FFN).
    precision : str
        Table precision (:func:`table_precision`).

    Returns
    -------
    GemmKernel
        From the table row of that hardware; else its published large-``M`` rate
        (:func:`published_gemm_rates`) with the measured systems' median shape terms; else the
        median fractions of peak over the measured systems applied to its catalog peaks.

    Raises
    ------
    KeyError
        For an unknown operator.

    Examples
    --------
    >>> import tokenomics as tk
    >>> k = gemm_kernel(tk.hardware("h200"), "gemm", "fp8")
    >>> round(k.max_flop_per_s / 1e12)  # measured large-M FP8 GEMM rate of H200 [TFLOP/s]
    1116
    """
    if operator not in OPERATORS:
        from tokenomics._validate import unknown_name_error

        raise unknown_name_error("operator", operator, OPERATORS)
    hit = _operator_index().get((hardware.hardware_id, operator, precision))
    if hit is not None:
        tflops, half, gbs, launch_us, source = hit
        return GemmKernel(
            max_flop_per_s=min(tflops * FLOPS_PER_TFLOPS, _peak_flop_per_s(hardware, precision)),
            half_tokens=half,
            weight_bytes_per_s=min(gbs * BYTES_PER_GB, hardware.hbm_bandwidth_bytes_per_s),
            launch_s=launch_us * 1e-6,
            source=source,
        )
    r, half, bw, launch, systems = _measured_fractions(operator, precision)
    derived = f"median fractions of peak of the measured {operator} {precision} kernels ({systems})"
    published = _published_index().get((hardware.hardware_id, operator, precision))
    if published is not None:
        tflops, source = published
        return GemmKernel(
            max_flop_per_s=min(tflops * FLOPS_PER_TFLOPS, _peak_flop_per_s(hardware, precision)),
            half_tokens=half,
            weight_bytes_per_s=bw * hardware.hbm_bandwidth_bytes_per_s,
            launch_s=launch,
            source=f"published large-M rate: {source}; shape terms derived: {derived}",
        )
    return GemmKernel(
        max_flop_per_s=r * _peak_flop_per_s(hardware, precision),
        half_tokens=half,
        weight_bytes_per_s=bw * hardware.hbm_bandwidth_bytes_per_s,
        launch_s=launch,
        source=f"derived: {derived}",
    )


@dataclass(frozen=True)
class Link:
    """Measured (or derived) cost of one collective over a group.

    Attributes
    ----------
    bus_bytes_per_s : float
        Bus bandwidth per rank [bytes/s].
    latency_s : float
        Fixed time per call [s].
    """

    bus_bytes_per_s: float
    latency_s: float


@functools.cache
def _collective_fractions(collective: str, group: int) -> tuple[float, float]:
    from tokenomics.catalog import hardware as lookup

    t = collective_table()
    rows = t[t["collective"] == collective]
    sizes = sorted(set(rows["group_size"]))
    size = max([s for s in sizes if s <= group] or sizes[:1])
    rows = rows[rows["group_size"] == size]
    frac = [r.bus_bw_gb_per_s / lookup(str(r.hardware_id)).scaleup_bw_unidir_gb_per_s
            for r in rows.itertuples(index=False)]
    return float(np.median(frac)), float(rows["latency_us"].median()) * 1e-6


def collective_link(hardware: Hardware, collective: str, group: int, scaleout_gb_per_s: float) -> Link:
    """Return bus bandwidth and latency of a collective over ``group`` ranks.

    Parameters
    ----------
    hardware : Hardware
        Catalog hardware.
    collective : str
        ``"all_reduce"`` or ``"all_to_all"``.
    group : int
        Ranks in the collective, >= 2.
    scaleout_gb_per_s : float
        Scale-out bandwidth per rank, one way [GB/s], used when the group spans scale-up domains.

    Returns
    -------
    Link
        Measured values of the largest measured group not above ``group`` (inside one scale-up
        domain), else derived from the median fraction of scale-up bandwidth; beyond the
        scale-up domain the scale-out bandwidth with the same latency.

    Examples
    --------
    >>> import tokenomics as tk
    >>> link = collective_link(tk.hardware("h200"), "all_reduce", 8, 50.0)
    >>> round(link.bus_bytes_per_s / 1e9)  # NCCL all-reduce bus bandwidth, 8x H200 [GB/s]
    368
    """
    measured = _collective_index().get((hardware.hardware_id, collective), {})
    if measured:
        size = max([s for s in measured if s <= group] or [min(measured)])
        gbs, latency_us = measured[size]
        bw = gbs * BYTES_PER_GB
        latency = latency_us * 1e-6
    else:
        frac, latency = _collective_fractions(collective, group)
        bw = frac * hardware.scaleup_bw_unidir_gb_per_s * BYTES_PER_GB
    if group > hardware.scaleup_domain_accelerators:
        bw = min(bw, scaleout_gb_per_s * BYTES_PER_GB)
    return Link(bus_bytes_per_s=bw, latency_s=latency)


@functools.cache
def decode_attention_table() -> pd.DataFrame:
    """Return the bundled decode-attention KV-read grid (``data/perf/decode_attention.csv``).

    Returns
    -------
    pandas.DataFrame
        One row per (``hardware_id``, ``attention_type``, ``context_tokens``, ``kv_streams``):
        ``kv_read_frac`` (achieved KV-read rate / the table's large-work rate, 0..1),
        ``asymptote_frac_of_peak`` (that rate / catalog HBM bandwidth), ``points``, ``source``,
        ``as_of``.

    Raises
    ------
    ValueError
        If a row names an unknown attention kernel, a non-positive context or stream count, or a
        fraction outside (0, 1], naming file, line and field.
    """
    path = _perf_dir() / "decode_attention.csv"
    table = pd.read_csv(path)
    kinds = set(KV_READ_KERNELS.values())
    for line, row in enumerate(table.itertuples(index=False), start=2):
        if row.attention_type not in kinds:
            raise ValueError(f"{path}: line {line}: attention_type {row.attention_type!r} not in {sorted(kinds)}")
        for field in ("context_tokens", "kv_streams"):
            if not getattr(row, field) > 0:
                raise ValueError(f"{path}: line {line}: {field} must be > 0, got {getattr(row, field)}")
        for field in ("kv_read_frac", "asymptote_frac_of_peak"):
            if not 0.0 < getattr(row, field) <= 1.0:
                raise ValueError(f"{path}: line {line}: {field} must be in (0, 1], got {getattr(row, field)}")
    return table


def _filled_grid(rows: pd.DataFrame, contexts: np.ndarray, streams: np.ndarray) -> np.ndarray:
    """``kv_read_frac`` on the full grid; cells beyond the measured work take their neighbours'."""
    g = rows.pivot_table(index="context_tokens", columns="kv_streams", values="kv_read_frac")
    g = g.reindex(index=contexts, columns=streams)
    # unmeasured cells lie at more work than measured ones: they run at least as fast
    return np.asarray(g.ffill(axis=1).ffill(axis=0).fillna(1.0).to_numpy(dtype=float))


@functools.cache
def _kv_grid_values(kernel: str) -> tuple[np.ndarray, np.ndarray, dict[str, tuple[np.ndarray, str]]]:
    """Axes and filled grid of every measured system, plus their median (key ``""``)."""
    t = decode_attention_table()
    t = t[t["attention_type"] == kernel]
    contexts = np.sort(t["context_tokens"].unique()).astype(float)
    streams = np.sort(t["kv_streams"].unique()).astype(float)
    grids = {str(hw): (_filled_grid(rows, contexts, streams), str(rows["source"].iloc[0]))
             for hw, rows in t.groupby("hardware_id")}
    systems = ", ".join(sorted(grids))
    median = np.median([g for g, _ in grids.values()], axis=0)
    grids[""] = (median, f"derived: median decode-attention {kernel} grid of the measured systems ({systems})")
    return contexts, streams, grids


@functools.cache
def _kv_read_grid(hardware_id: str, kernel: str) -> tuple[RectBivariateSpline, str]:
    contexts, streams, grids = _kv_grid_values(kernel)
    values, source = grids.get(hardware_id, grids[""])
    # log f linear in log work: time (work / f) stays monotone between the grid points; a
    # degree-1 interpolating spline (s=0) is the bilinear interpolant of the grid
    return RectBivariateSpline(np.log2(contexts), np.log2(streams), np.log2(values), kx=1, ky=1, s=0), source


def _kv_kernel(hardware: Hardware | str, attention_type: str) -> tuple[Hardware, str]:
    """Catalog hardware and measured grid of an attention type; ``KeyError`` with close matches."""
    from tokenomics._validate import unknown_name_error

    if isinstance(hardware, str):
        from tokenomics.catalog import hardware as lookup

        hardware = lookup(hardware)
    kernel = KV_READ_KERNELS.get(attention_type)
    if kernel is None:
        raise unknown_name_error("attention_type", attention_type, tuple(KV_READ_KERNELS))
    return hardware, kernel


def kv_read_frac(hardware: Hardware | str, attention_type: str, kv_streams: ArrayLike,
                 context_tokens: ArrayLike) -> Any:
    """Return the fraction of the large-batch KV-read rate a decode-attention call achieves.

    Parameters
    ----------
    hardware : Hardware or str
        Catalog hardware or its id (without a measured grid: the median grid of the measured
        systems).
    attention_type : str
        Model attention type (``"mla"``, ``"csa"``, ``"gqa"``, ``"mha"``).
    kv_streams : float, array_like or pandas.Series
        KV streams per GPU in one call: sequences for MLA and CSA, sequences x KV heads for
        GQA and MHA; values below 1 count as 1.
    context_tokens : float, array_like or pandas.Series
        Context length per sequence [tokens]; broadcast against ``kv_streams``.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        ``f`` in (0, 1]: ``log f`` bilinear in ``log2 context`` and ``log2 streams`` on the
        measured grid, held at its edges outside it (1,024-131,072 tokens, 1-8,192 streams).
        A Series when an input is one (with its index).

    Raises
    ------
    KeyError
        For an unknown hardware or attention type, with close matches.
    ValueError
        If a stream count or context is not a positive finite number, if the two do not
        broadcast, or if two Series inputs have different indexes.

    Notes
    -----
    ``t_kv = KV bytes / (BW_kv x f)``. Measured on NVIDIA's generation-phase MLA and GQA kernels
    (``benchmarks/fit_operator_tables.py``): one 128k-token MLA sequence on B200 streams at about
    a third of the large-batch rate, 16 of them at nearly all of it.

    Examples
    --------
    >>> round(kv_read_frac("b200", "mla", 1, 131072), 2)
    0.35
    """
    from tokenomics._validate import check_positive

    hardware, _ = _kv_kernel(hardware, attention_type)
    check_positive("kv_streams", kv_streams)
    check_positive("context_tokens", context_tokens)
    series = [x for x in (kv_streams, context_tokens) if isinstance(x, pd.Series)]
    if len(series) == 2 and not series[0].index.equals(series[1].index):
        raise ValueError("kv_streams and context_tokens are Series with different indexes; align them first")
    try:
        np.broadcast_shapes(np.shape(kv_streams), np.shape(context_tokens))
    except ValueError:
        raise ValueError(f"kv_streams (shape {np.shape(kv_streams)}) and context_tokens (shape "
                         f"{np.shape(context_tokens)}) do not broadcast") from None
    out = kv_read_grid(hardware, attention_type)(kv_streams, context_tokens)
    if series:
        return pd.Series(out, index=series[0].index, name="kv_read_frac")
    return float(out) if out.ndim == 0 else out


def kv_read_grid(hardware: Hardware, attention_type: str) -> Any:
    """Return ``f(kv_streams, context_tokens)`` of :func:`kv_read_frac` without input checks.

    For hot paths whose inputs are already checked (the step model resolves it once per setup).

    Parameters
    ----------
    hardware : Hardware
        Catalog hardware.
    attention_type : str
        Model attention type, a key of :data:`KV_READ_KERNELS`.

    Returns
    -------
    callable
        ``frac(kv_streams, context_tokens) -> numpy.ndarray``: streams [count] and context
        [tokens], broadcast together; no checks of their values.

    Raises
    ------
    KeyError
        For an attention type outside :data:`KV_READ_KERNELS` (without close matches: use
        :func:`kv_read_frac` for checked input).
    """
    grid, _ = _kv_read_grid(hardware.hardware_id, KV_READ_KERNELS[attention_type])
    contexts, streams, _ = _kv_grid_values(KV_READ_KERNELS[attention_type])
    c_lo, c_hi = float(np.log2(contexts[0])), float(np.log2(contexts[-1]))
    s_lo, s_hi = float(np.log2(streams[0])), float(np.log2(streams[-1]))

    def frac(kv_streams: ArrayLike, context_tokens: ArrayLike) -> np.ndarray:
        c, st = np.broadcast_arrays(np.asarray(context_tokens, dtype=float), np.asarray(kv_streams, dtype=float))
        x = np.clip(np.log2(c), c_lo, c_hi)
        y = np.clip(np.log2(np.maximum(st, 1.0)), s_lo, s_hi)
        return np.asarray(np.exp2(grid.ev(x.ravel(), y.ravel())).reshape(c.shape))

    return frac


def kv_read_source(hardware: Hardware | str, attention_type: str) -> str:
    """Return the table row source (or derivation) of :func:`kv_read_frac` on a hardware.

    Parameters
    ----------
    hardware : Hardware or str
        Catalog hardware or its id.
    attention_type : str
        Model attention type (``"mla"``, ``"csa"``, ``"gqa"``, ``"mha"``).

    Returns
    -------
    str
        The table's source, or ``"derived: median ..."`` for hardware without a measured grid.

    Raises
    ------
    KeyError
        For an unknown hardware or attention type, with close matches.
    """
    hw, kernel = _kv_kernel(hardware, attention_type)
    return _kv_read_grid(hw.hardware_id, kernel)[1]
