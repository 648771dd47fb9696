"""Helpers shared by the benchmark-result readers: name resolution, errors, unit handling.

Every reader converts units once, here or in its own module: ``*_ms`` keys become seconds,
interactivity is ``1 / TPOT`` taken percentile by percentile (never from a standard deviation),
and the result is conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from tokenomics._validate import normalize_name
from tokenomics.catalog import parameter_problem
from tokenomics.curves.schema import CURVE_COLUMNS, conform
from tokenomics.units import SECONDS_PER_MS

__all__ = [
    "ArgumentConflictError",
    "IngestError",
    "resolve_hardware_name",
    "resolve_model_name",
]

MAX_PLAUSIBLE_TPOT_S: float = 1.0
"""Largest time per output token [s] a serving benchmark can report before we suspect ms.

A decode step of 1 s per token (1 tok/s/user) is below any published serving point (the
slowest bundled measurement is 0.30 s); a value above it in a field documented in seconds almost
always means milliseconds leaked in (``2.0`` for 2 ms would otherwise read as 0.5 tok/s/user).
"""

MAX_PLAUSIBLE_TAIL_TPOT_S: float = 5.0
"""Largest tail (p90, p99, max) time per output token or inter-token latency [s].

Tails hold stalls (a p99 inter-token latency of 1.06 s is in the published MI355X Kimi K2.5
runs), so they get a wider bound than the median.
"""

MIN_PLAUSIBLE_TPOT_S: float = 1e-4
"""Smallest time per output token [s] before we suspect seconds in a millisecond field.

1e-4 s is 10,000 tok/s/user, beyond any published serving point; ``median_tpot_ms=0.025``
(25 ms written as seconds) would otherwise read as 40,000 tok/s/user.
"""

_NOISE_TOKENS = frozenset(
    {"nvidia", "amd", "instinct", "google", "cloud", "virtualized", "intel", "hbm", "hbm3", "hbm3e",
     "hbm4", "gpu", "tpu"}
)
_VARIANT_TOKENS = frozenset({"nvl", "pcie", "nvl2", "nvl4", "max", "ultra", "cpx", "edge"})
_MEMORY_TOKEN = re.compile(r"^\d+(gb|g)$")
_PARENS = re.compile(r"\([^)]*\)")
_SPLIT = re.compile(r"[\s_\-:/,]+")
_PRECISION_SUFFIX = re.compile(
    r"[-_](fp4|fp8|nvfp4|mxfp4|int4|int8|w4a16|w4a8|w8a8|awq|gptq|bf16|fp16)$", re.IGNORECASE
)
_DATE_SUFFIX = re.compile(r"[-_](\d{4})$")
_HF_CACHE = re.compile(r"models--([^/]+)--([^/]+)")


class IngestError(ValueError):
    """A benchmark file is malformed: the message names the file, the key and the problem.

    Parameters
    ----------
    source : str or pathlib.Path
        The file (or file and row) being read.
    key : str
        The offending key or column.
    problem : str
        What is wrong with it.
    """

    def __init__(self, source: str | Path, key: str, problem: str) -> None:
        self.source = str(source)
        self.key = key
        self.problem = problem
        super().__init__(f"{self.source}: key {key!r}: {problem}")


class ArgumentConflictError(IngestError):
    """A caller's argument contradicts what the file states, or does not apply to the file.

    Parameters
    ----------
    source : str or pathlib.Path
        The file (or file and row) being read.
    key : str
        The key (or ``<file name>``) that states the value.
    problem : str
        The file's value and the argument that contradicts it.
    """


def hardware_of(
    stated: object, hardware: str | None, source: str | Path, key: str
) -> tuple[str, str]:
    """Return ``(hardware_id, hardware_name)`` from the file's hardware name and the caller's.

    The file's name wins: ``hardware`` fills in for a file that names none (or one the catalog
    does not know), and must otherwise resolve to the same catalog id. ``hardware_name`` is
    always the name as written in the file when it has one.

    Parameters
    ----------
    stated : object
        Hardware as written in the file (None or empty: not recorded).
    hardware : str or None
        Hardware name or id given by the caller.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key the file names its hardware in, for the error message.

    Returns
    -------
    tuple of str
        Catalog hardware id and the name as written.

    Raises
    ------
    ArgumentConflictError
        If ``hardware`` resolves to a different catalog id than the file's name.
    KeyError
        If neither name maps to a catalog id (closest ids listed), or both are missing.
    """
    named = None if stated is None or _isnan(stated) or not str(stated).strip() else str(stated)
    if named is None:
        try:
            return resolve_hardware_name(hardware, source=source), str(hardware)
        except KeyError as err:
            raise KeyError(f"{source}: hardware: {err.args[0]}") from None
    given_id = None
    if hardware is not None:
        try:
            given_id = resolve_hardware_name(hardware)
        except KeyError as err:
            raise KeyError(f"hardware={hardware!r}: {err.args[0]}") from None
    try:
        file_id = resolve_hardware_name(named, source=source)
    except KeyError as err:
        if given_id is None:
            raise KeyError(f"{source}: key {key!r}: {err.args[0]}") from None
        return given_id, named  # the catalog does not know the file's spelling: the caller names it
    if given_id is not None and given_id != file_id:
        raise ArgumentConflictError(
            source, key,
            f"the file names hardware {named!r} ({file_id}); hardware={hardware!r} ({given_id}) "
            "contradicts it (leave hardware out for files that name their hardware)",
        )
    return file_id, named


def gpu_count(stated: float, given: float | None, source: str | Path, key: str, argument: str) -> float:
    """Return the GPU count a file states, or the caller's where the file states none.

    Parameters
    ----------
    stated : float
        Count stated by the file [count]; NaN if it states none.
    given : float or None
        Count given by the caller (``argument``) [count].
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key (or ``<file name>``) stating the count.
    argument : str
        Name of the caller's argument, e.g. ``"num_gpus"``.

    Returns
    -------
    float
        The count [count]; NaN when neither states one.

    Raises
    ------
    ArgumentConflictError
        If both state a count and they differ.
    """
    if given is None:
        return stated
    if math.isnan(stated):
        return float(given)
    if not math.isclose(stated, float(given)):
        role = {"num_prefill_gpus": "prefill ", "num_decode_gpus": "decode "}.get(argument, "")
        raise ArgumentConflictError(
            source, key, f"the file states {stated:g} {role}GPUs; {argument}={given:g} contradicts it"
        )
    return stated


def stated_value(
    stated: object, given: str | None, source: str | Path, key: str, argument: str, *, date: bool = False
) -> str | None:
    """Return a text value the file states, or the caller's where the file states none.

    Values are compared case- and punctuation-insensitively (``"FP8"`` equals ``"fp8"``), dates
    by their ``YYYY-MM-DD`` part; the file's spelling is returned.

    Parameters
    ----------
    stated : object
        Value as the file states it (None or empty: not stated).
    given : str or None
        Value given by the caller (``argument``).
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key (or ``<file name>``) stating the value.
    argument : str
        Name of the caller's argument, e.g. ``"precision"``.
    date : bool
        Compare as ISO dates (``as_of``).

    Returns
    -------
    str or None
        The file's value, else ``given``.

    Raises
    ------
    ArgumentConflictError
        If both state a value and they differ.
    """
    if given is None:
        return None if stated is None or _isnan(stated) else str(stated)
    text = None if stated is None or _isnan(stated) or not str(stated).strip() else str(stated)
    if text is None:
        return given
    same = (str(given).strip()[:10] == text.strip()[:10]) if date else normalized(given) == normalized(text)
    if not same:
        raise ArgumentConflictError(
            source, key,
            f"the file states {argument} {text!r}; {argument}={given!r} contradicts it "
            f"(leave {argument} out for files that state it)",
        )
    return text


def refuse_arguments(source: str | Path, key: str, why: str, **given: float | str | None) -> None:
    """Raise for every argument given (not None) that the file's layout does not use.

    Parameters
    ----------
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key (or ``<file name>``) that fixes the layout.
    why : str
        Why the arguments do not apply, e.g. ``"the row is an aggregated run on 8 GPUs"``.
    **given
        Argument name -> value.

    Raises
    ------
    ArgumentConflictError
        Naming the first argument given.
    """
    for name, value in given.items():
        if value is not None:
            shown = f"{value:g}" if isinstance(value, int | float) else repr(value)
            raise ArgumentConflictError(source, key, f"{name}={shown} does not apply: {why}")


def check_throughput(value: float, source: str | Path, key: str) -> None:
    """Raise if a throughput is present but zero or negative (a failed or empty run).

    Parameters
    ----------
    value : float
        Throughput [tok/s or tok/s/GPU]; NaN (absent) passes.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key, for the error message.

    Raises
    ------
    IngestError
        If ``value <= 0``.
    """
    _check_present_positive(value, source, key, "throughput", " tok/s")


def load_json(path: Path) -> Any:
    """Read a JSON file, turning a parse failure into an :class:`IngestError`.

    Parameters
    ----------
    path : pathlib.Path
        File to read.

    Returns
    -------
    object
        The decoded JSON document.

    Raises
    ------
    IngestError
        If the file is not valid JSON, not UTF-8 text or nested too deeply (a byte-order mark
        is accepted).
    """
    try:
        with path.open(encoding="utf-8-sig") as fh:
            return json.load(fh)
    except json.JSONDecodeError as err:
        raise IngestError(path, "<document>", f"not valid JSON ({err.msg} at line {err.lineno})") from None
    except UnicodeDecodeError as err:
        raise IngestError(
            path, "<document>", f"not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8"
        ) from None
    except RecursionError:
        raise IngestError(path, "<document>", "JSON nested too deeply to be a result file") from None


def _catalog_resolvers() -> tuple[Any, Any]:
    from tokenomics.catalog import resolve_hardware_id, resolve_model_id

    return resolve_hardware_id, resolve_model_id


def _first_match(table: str, candidates: Sequence[str]) -> str | None:
    """Return the catalog id the first candidate naming exactly one entry of ``table`` names, else None.

    Tries each spelling without building an unknown-name error (its close-match search) per miss.
    """
    from tokenomics.catalog import matching_ids

    for cand in candidates:
        hits = matching_ids(table, cand)
        if len(hits) == 1:
            return next(iter(hits))
    return None


def _hardware_candidates(name: str) -> list[str]:
    """Return lookup keys for a hardware string, from most to least specific."""
    raw = str(name).strip()
    out = [raw]
    text = raw.split("cluster:", 1)[1] if raw.lower().startswith("cluster:") else raw
    text = _PARENS.sub(" ", text)
    tokens = [t for t in _SPLIT.split(text.lower()) if t]
    tokens = [t for t in tokens if t not in _NOISE_TOKENS and not _MEMORY_TOKEN.match(t)]
    while tokens:
        out.append(" ".join(tokens))
        if tokens[-1] in _VARIANT_TOKENS:
            break
        tokens = tokens[:-1]
    return list(dict.fromkeys(out))


def resolve_hardware_name(name: object, *, source: str | Path | None = None) -> str:
    """Map a hardware string from a result file to a catalog hardware id.

    Benchmark files name hardware with runner and cluster decorations: ``"b200-dgxc-slurm"``,
    ``"MI355-gbt350-odcdh5-wbb3"``, ``"cluster:mi355x-amds"``, ``"NVIDIA B200-SXM-180GB"``,
    ``"AMD Instinct MI355X 288GB HBM3e (x87)"``. The normaliser drops a ``cluster:`` prefix,
    parentheses, vendor words and memory sizes, then tries the catalog lookup on the full name
    and on ever shorter prefixes (``b200 dgxc slurm`` -> ``b200 dgxc`` -> ``b200``). It never
    drops a product-variant word (``NVL``, ``PCIe``, ...), so an ``H200-NVL`` is not silently
    taken for an H200 SXM.

    Parameters
    ----------
    name : str
        Hardware string as written in the file.
    source : str or pathlib.Path, optional
        File the name came from, for the error message.

    Returns
    -------
    str
        Catalog hardware id, e.g. ``"b200"``.

    Raises
    ------
    KeyError
        If no candidate resolves; the message lists the closest catalog names.

    Examples
    --------
    >>> resolve_hardware_name("b200-dgxc-slurm")  # doctest: +SKIP
    'b200'
    """
    resolve_hw, _ = _catalog_resolvers()
    if name is None or (isinstance(name, float) and math.isnan(name)) or not str(name).strip():
        where = f" in {source}" if source else ""
        raise KeyError(f"hardware name is missing{where}; pass hardware=... explicitly")
    candidates = _hardware_candidates(str(name))
    found = _first_match("hardware_index", candidates)
    if found is not None:
        return found
    detail = ""
    try:  # no candidate names one entry: the error of the shortest one lists the closest catalog ids
        resolve_hw(candidates[-1])
    except KeyError as err:
        detail = err.args[0] if err.args else ""
    where = f" (in {source})" if source else ""
    raise KeyError(
        f"hardware {name!r}{where} does not match a catalog id after stripping runner "
        f"suffixes (tried {candidates}); {detail}"
    )


def _model_candidates(name: str) -> list[str]:
    raw = str(name).strip().rstrip("/")
    cache = _HF_CACHE.search(raw)
    base = cache.group(2) if cache else raw.rsplit("/", 1)[-1]
    out = [raw, base]
    stem = base
    for _ in range(3):
        new = _PRECISION_SUFFIX.sub("", stem)
        new = _DATE_SUFFIX.sub("", new)
        if new == stem:
            break
        stem = new
        out.append(stem)
    return [c for c in dict.fromkeys(out) if c]


def resolve_model_name(name: object) -> tuple[str, bool]:
    """Map a model string from a result file to a catalog model id, or keep it documented.

    Tries the name as written, without the organisation prefix or Hugging Face cache path,
    then without a trailing precision tag (``-FP4``, ``-MXFP4``, ...) or a four-digit revision
    date (``-0528``). Benchmark files often name models newer than the catalog (e.g.
    ``Kimi-K2.7-Code``); those are kept under a normalised name (lower-case, organisation and
    precision tags stripped) with ``model_in_catalog = False`` rather than raising, so a sweep
    of new models can still be read, plotted and priced at a user-given $/GPU-hour.

    Parameters
    ----------
    name : str
        Model string as written in the file, e.g. ``"nvidia/DeepSeek-R1-0528-FP4"``.

    Returns
    -------
    model_id : str
        Catalog id (``"deepseek-r1"``) or the normalised source name (``"kimi-k2.7-code"``).
    in_catalog : bool
        Whether ``model_id`` is a catalog id.

    Examples
    --------
    >>> resolve_model_name("nvidia/DeepSeek-R1-0528-FP4")  # doctest: +SKIP
    ('deepseek-r1', True)
    """
    candidates = _model_candidates(str(name))
    found = _first_match("model_index", candidates)
    if found is not None:
        return found, True
    fallback = candidates[-1].lower().replace("_", "-").replace(" ", "-")
    return fallback, False


def workload_label(isl: float | None, osl: float | None) -> str | None:
    """Return the field's ISL/OSL label, e.g. ``"1k/1k"`` or ``"8k/1k"`` (``"1000/1000"`` otherwise).

    Parameters
    ----------
    isl, osl : float or None
        Input and output sequence lengths [tokens].

    Returns
    -------
    str or None
        The label, or None when either length is unknown.
    """
    if isl is None or osl is None or _isnan(isl) or _isnan(osl):
        return None

    def one(n: float) -> str:
        n_int = int(n)
        if n_int >= 1024 and n_int % 1024 == 0:
            return f"{n_int // 1024}k"
        return str(n_int)

    return f"{one(isl)}/{one(osl)}"


def _isnan(x: object) -> bool:
    return isinstance(x, float) and math.isnan(x)


def as_float(value: object, source: str | Path, key: str, *, required: bool = False) -> float:
    """Return ``value`` as float (NaN when absent), raising on a non-numeric entry.

    Parameters
    ----------
    value : object
        The raw JSON/CSV value.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key, for the error message.
    required : bool
        If True, a missing value raises.

    Returns
    -------
    float
        The number, or NaN if absent and not required.

    Raises
    ------
    IngestError
        If the value is not a number (booleans included), or missing while required.
    """
    if value is None or (isinstance(value, str) and value.strip() == ""):
        if required:
            raise IngestError(source, key, "is required but missing")
        return math.nan
    if isinstance(value, bool):
        raise IngestError(source, key, f"expected a number, got boolean {value!r}")
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise IngestError(source, key, f"expected a number, got {value!r}") from None
    if math.isnan(out) and required:
        raise IngestError(source, key, "is required but NaN")
    return out


def as_bool(value: object, source: str | Path, key: str) -> bool | None:
    """Return a boolean from JSON booleans or the strings ``"true"``/``"false"`` (None if absent).

    Parameters
    ----------
    value : object
        Raw value.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key, for the error message.

    Returns
    -------
    bool or None
        The flag.

    Raises
    ------
    IngestError
        If the value is neither a boolean nor a recognised string.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"true", "1", "yes", "on"}:
        return True
    if text in {"false", "0", "no", "off"}:
        return False
    raise IngestError(source, key, f"expected true/false, got {value!r}")


def get_path(doc: Mapping[str, Any], dotted: str) -> Any:
    """Return ``doc[a][b][c]`` for ``"a.b.c"``, or None when any level is absent.

    Parameters
    ----------
    doc : mapping
        Nested JSON object.
    dotted : str
        Dot-separated key path.

    Returns
    -------
    object or None
        The value found.
    """
    cur: Any = doc
    for part in dotted.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _is_tail(key: str) -> bool:
    return any(t in key.lower() for t in ("p90", "p95", "p99", "p999", "max", "std"))


def check_tpot_seconds(value_s: float, source: str | Path, key: str) -> None:
    """Raise if a time-per-output-token in seconds is implausibly large (milliseconds leaked).

    Parameters
    ----------
    value_s : float
        TPOT or ITL [s].
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key, for the error message.

    Raises
    ------
    IngestError
        If ``value_s`` is not positive or outside [:data:`MIN_PLAUSIBLE_TPOT_S`,
        :data:`MAX_PLAUSIBLE_TPOT_S`] (:data:`MAX_PLAUSIBLE_TAIL_TPOT_S` for a key naming a tail
        percentile: p90, p99, max).
    """
    if math.isnan(value_s):
        return
    if value_s <= 0:
        raise IngestError(source, key, f"time per output token must be > 0 s, got {value_s!r} s")
    high = MAX_PLAUSIBLE_TAIL_TPOT_S if _is_tail(key) else MAX_PLAUSIBLE_TPOT_S
    if value_s < MIN_PLAUSIBLE_TPOT_S:
        raise IngestError(
            source,
            key,
            f"{value_s!r} s per output token is implausible (< {MIN_PLAUSIBLE_TPOT_S} s, i.e. more "
            f"than {1 / MIN_PLAUSIBLE_TPOT_S:g} tok/s/user); allowed [{MIN_PLAUSIBLE_TPOT_S}, {high}] s; "
            "the value looks like seconds in a field that must hold milliseconds",
        )
    if value_s > high:
        raise IngestError(
            source,
            key,
            f"{value_s!r} s per output token is implausible (> {high} s); allowed "
            f"[{MIN_PLAUSIBLE_TPOT_S}, {high}] s; the value looks like milliseconds "
            "in a field that must hold seconds",
        )


def check_field(value: float, source: str | Path, key: str, column: str) -> None:
    """Check a value read from ``key`` against the vocabulary range of curve column ``column``.

    Parameters
    ----------
    value : float
        The value, already in the column's unit; NaN (absent) passes.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key as written in the file.
    column : str
        Curve column (``curve`` table of ``data/parameters.csv``).

    Raises
    ------
    IngestError
        Naming the file, the key, the value and the allowed range.
    """
    if math.isnan(value):
        return
    problem = parameter_problem("curve", column, value)
    if problem:
        raise IngestError(source, key, f"{problem} (as {column})")


def check_sequence_length(value: float, source: str | Path, key: str) -> None:
    """Raise if an input/output sequence length (ISL/OSL) is present but not positive.

    Parameters
    ----------
    value : float
        ISL or OSL [tokens]; NaN (absent) passes.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key, for the error message.

    Raises
    ------
    IngestError
        If ``value`` is zero, negative or infinite.
    """
    if not math.isnan(value) and not 0 < value < math.inf:
        raise IngestError(source, key, f"sequence length must be > 0 (and finite) tokens, got {value!r}")


def check_parallel_size(value: float, source: str | Path, key: str) -> None:
    """Raise if a parallelism degree (TP, EP, PP, context parallel) is present but below 1.

    Parameters
    ----------
    value : float
        Parallelism size [count]; NaN (absent) passes.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key, for the error message.

    Raises
    ------
    IngestError
        If ``value < 1``.
    """
    if not math.isnan(value) and value < 1:
        raise IngestError(source, key, f"parallelism size must be >= 1, got {value!r}")


def check_gpu_count(value: float, source: str | Path, key: str) -> None:
    """Raise if a GPU count is present but zero or negative.

    Parameters
    ----------
    value : float
        Number of GPUs [count]; NaN (absent) passes.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key, for the error message.

    Raises
    ------
    IngestError
        If ``value <= 0``.
    """
    _check_present_positive(value, source, key, "GPU count", "")


def _check_present_positive(value: float, source: str | Path, key: str, what: str, unit: str) -> None:
    """Raise an :class:`IngestError` if ``value`` is present (not NaN) but not > 0."""
    if not math.isnan(value) and value <= 0:
        raise IngestError(source, key, f"{what} must be > 0{unit}, got {value!r}")


THROUGHPUT_SUM_REL_TOL: float = 0.01
"""Largest relative gap between input + output and total per-GPU throughput (same denominator)."""


def check_throughput_sum(
    total: float,
    input_: float,
    output: float,
    source: str | Path,
    key: str = "tput_per_gpu",
) -> None:
    """Raise if input + output throughput differs from total by more than 1 %.

    Only valid when all three share one denominator (aggregated serving on one set of GPUs);
    disaggregated rows divide input by prefill GPUs and output by decode GPUs, so callers
    skip the check there.

    Parameters
    ----------
    total, input_, output : float
        Total, input and output throughput per GPU [tok/s/GPU]; the check is skipped when any
        is NaN.
    source : str or pathlib.Path
        File, for the error message.
    key : str
        Key named in the error message.

    Raises
    ------
    IngestError
        If ``|input + output - total| > 0.01 * total``.
    """
    if math.isnan(total) or math.isnan(input_) or math.isnan(output):
        return
    if abs(input_ + output - total) > THROUGHPUT_SUM_REL_TOL * abs(total):
        raise IngestError(
            source, key,
            f"input {input_!r} + output {output!r} = {input_ + output!r} tok/s/GPU differs from "
            f"total {total!r} by more than {THROUGHPUT_SUM_REL_TOL:.0%} (same GPU denominator)",
        )


def ms_to_s(value_ms: float) -> float:
    """Convert milliseconds to seconds (NaN stays NaN).

    Parameters
    ----------
    value_ms : float
        Duration [ms].

    Returns
    -------
    float
        Duration [s].
    """
    return value_ms * SECONDS_PER_MS


def interactivity_from_tpot(tpot_s: float) -> float:
    """Return interactivity ``1 / TPOT`` [tok/s/user] for one percentile of TPOT [s].

    Parameters
    ----------
    tpot_s : float
        A percentile (median, p90, ...) of time per output token [s]; never a standard
        deviation.

    Returns
    -------
    float
        Output tokens per second seen by one user; NaN if ``tpot_s`` is NaN.
    """
    if math.isnan(tpot_s) or tpot_s <= 0:
        return math.nan
    return 1.0 / tpot_s


def read_csv_table(path: str | Path, **kwargs: Any) -> pd.DataFrame:
    """Read a CSV result table; a byte-order mark is accepted, every failure names the file.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    **kwargs
        Passed to :func:`pandas.read_csv` (e.g. ``nrows=0`` for the header only).

    Returns
    -------
    pandas.DataFrame
        The table as read.

    Raises
    ------
    IngestError
        If the file is not UTF-8 text, empty, or not parseable as CSV.
    """
    try:
        return pd.read_csv(path, encoding="utf-8-sig", **kwargs)
    except UnicodeDecodeError as err:
        raise IngestError(
            path, "<document>", f"not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8"
        ) from None
    except pd.errors.EmptyDataError:
        raise IngestError(path, "<document>", "empty file: no CSV header") from None
    except pd.errors.ParserError as err:
        raise IngestError(path, "<document>", f"malformed CSV ({str(err).strip()})") from None


_BOUNDED_COLUMNS: tuple[str, ...] = tuple(
    c for c, (dtype, _) in CURVE_COLUMNS.items() if dtype == "Float64"
)


def check_record(rec: Mapping[str, Any], *, today: dt.date | None = None) -> None:
    """Check every unit-bearing field of one curve point against the vocabulary's plausible range.

    Each numeric column of :data:`~tokenomics.curves.schema.CURVE_COLUMNS` has an entry in the
    ``curve`` table of ``data/parameters.csv`` with its unit, kind and plausible range (e.g.
    TPOT in [0.0001, 5] s: outside it a millisecond figure was read as seconds, or the other
    way). Absent values (None, NaN) pass; ``as_of`` must be an ISO date not in the future.

    Parameters
    ----------
    rec : mapping
        One curve point keyed by schema column names, with ``source`` naming the file.
    today : datetime.date, optional
        Reference date for the future-date check (default: today, UTC).

    Raises
    ------
    IngestError
        Naming the source, the field, the value and the allowed range.
    """
    source = str(rec.get("source") or "<records>")
    for col in _BOUNDED_COLUMNS:
        value = rec.get(col)
        if value is None or value is pd.NA:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise IngestError(source, col, f"expected a number, got {value!r}")
        if math.isnan(value):
            continue
        problem = parameter_problem("curve", col, value)
        if problem:
            raise IngestError(source, col, problem)
    as_of = rec.get("as_of")
    if as_of is not None and not (isinstance(as_of, float) and math.isnan(as_of)):
        try:
            date = dt.date.fromisoformat(str(as_of)[:10])
        except ValueError:
            raise IngestError(source, "as_of", f"{as_of!r} is not an ISO date (YYYY-MM-DD)") from None
        today = today or dt.datetime.now(dt.UTC).date()
        if date > today:
            raise IngestError(source, "as_of", f"{date} is in the future (today {today})")


def frame_from_records(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Build a schema-conformed curve-point table from row dictionaries, each checked.

    Parameters
    ----------
    records : sequence of mapping
        One mapping per point, keyed by :data:`tokenomics.curves.schema.CURVE_COLUMNS` names.

    Returns
    -------
    pandas.DataFrame
        Conformed table (missing columns as NA).

    Raises
    ------
    IngestError
        If a field is outside its plausible range (see :func:`check_record`).
    """
    for rec in records:
        check_record(rec)
    frame = pd.DataFrame.from_records(list(records))
    return conform(frame)


def normalized(text: object) -> str:
    """Return the lower-case alphanumeric key of ``text`` (see ``normalize_name``).

    Parameters
    ----------
    text : object
        Any name.

    Returns
    -------
    str
        Lookup key.
    """
    return normalize_name(str(text))
