"""The bundled catalog of measured throughput-vs-interactivity points (``data/curves/``).

Every row is one transcribed operating point (figures only) with its source (URL, or the
upstream repository path and commit of a result file), date (``as_of``) and ``kind``:
``"measured"`` (a measured speed) or ``"floor"`` (MLPerf throughput at a latency limit: the
interactivity is a guaranteed lower bound). Flags for speculative decoding (``spec_decoding``)
and disaggregated prefill/decode serving (``disaggregated``) are columns of the table.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

from tokenomics._validate import normalize_name, unknown_name_error
from tokenomics.catalog import data_dir, model_table
from tokenomics.curves.schema import POINT_KINDS, conform

__all__ = ["curve_catalog_files", "curves"]

_SUBDIR = "curves"


def curve_catalog_files() -> list[Path]:
    """Return the bundled curve-point CSV files.

    Returns
    -------
    list of pathlib.Path
        Every ``*.csv`` under the bundled ``data/curves`` directory, sorted.

    Raises
    ------
    FileNotFoundError
        If the bundled data directory holds no curve files.
    """
    folder = data_dir() / _SUBDIR
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise FileNotFoundError(f"no bundled curve files in {folder}")
    return files


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    frames = [pd.read_csv(f, dtype={"as_of": "string", "workload": "string"})
              for f in curve_catalog_files()]
    return conform(pd.concat(frames, ignore_index=True))


def _curve_model_id(model: str, table: pd.DataFrame) -> str:
    """Return the model id of the points a model name means; KeyError for a name known to neither catalog nor points."""
    from tokenomics.curves.ingest._common import resolve_model_name

    model_id, in_catalog = resolve_model_name(model)
    if in_catalog:
        return model_id
    # a model newer than the catalog matches the bundled points by its normalised name
    bundled = {normalize_name(m): m for m in table["model_id"].dropna().astype(str)}
    for name in (model_id, model):
        if normalize_name(name) in bundled:
            return bundled[normalize_name(name)]
    known = model_table()
    ids = [str(i) for i in known.index]
    names = [*ids, *known["name"].dropna().astype(str),
             *(str(a) for aliases in known["aliases"] for a in (aliases or ()))]
    raise unknown_name_error("model", model, [*names, *bundled.values()], ids=[*ids, *bundled.values()])


def curves(
    model: str | None = None,
    hardware: str | None = None,
    *,
    kind: str | None = None,
    workload: str | None = None,
    precision: str | None = None,
    spec_decoding: str | None = None,
) -> pd.DataFrame:
    """Return bundled measured curve points, filtered.

    Parameters
    ----------
    model : str, optional
        Model name or id (catalog aliases work; models newer than the catalog match by their
        normalised name, e.g. ``"qwen3.5-397b-a17b"``).
    hardware : str, optional
        Hardware name or id (``"GB200"``, ``"b200"``, ``"TPU v7"``, ...).
    kind : {"measured", "floor", "projected"}, optional
        Keep only points of this kind.
    workload : str, optional
        E.g. ``"1k/1k"``, ``"8k/1k"``, ``"agentic-coding"``, ``"mlperf-server"``.
    precision : str, optional
        E.g. ``"fp4"``.
    spec_decoding : str, optional
        E.g. ``"mtp"`` or ``"none"``.

    Returns
    -------
    pandas.DataFrame
        Curve points conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`, with ``source``,
        ``as_of``, ``kind`` and ``note`` per row. Build a curve with
        :meth:`tokenomics.ThroughputCurve.from_points` after narrowing to one configuration.

    Raises
    ------
    KeyError
        If ``hardware`` is not a catalog name, or ``model`` is neither a catalog model nor a
        model of the bundled points (the closest names listed).
    ValueError
        If ``kind`` is unknown, or nothing matches the filters (the message lists what exists),
        e.g. a catalog model with no bundled points.

    Examples
    --------
    >>> pts = curves(model="DeepSeek-R1", hardware="GB300", kind="measured")  # doctest: +SKIP
    >>> sorted(pts["workload"].unique())  # doctest: +SKIP
    ['128k/8k']
    """
    from tokenomics.curves.ingest._common import resolve_hardware_name

    table = _load()
    mask = pd.Series(True, index=table.index)
    if model is not None:
        mask &= table["model_id"] == _curve_model_id(model, table)
    if hardware is not None:
        mask &= table["hardware_id"] == resolve_hardware_name(hardware)
    if kind is not None:
        if kind not in POINT_KINDS:
            raise ValueError(f"kind={kind!r} is not one of {POINT_KINDS}")
        mask &= table["kind"] == kind
    for col, value in (("workload", workload), ("precision", precision),
                       ("spec_decoding", spec_decoding)):
        if value is not None:
            mask &= table[col].str.lower() == str(value).lower()
    out = table[mask.fillna(False).astype(bool)].reset_index(drop=True)
    if out.empty:
        have = table.groupby(["model_id", "hardware_id"]).size().index.tolist()
        raise ValueError(
            f"no bundled curve points for model={model!r}, hardware={hardware!r}, kind={kind!r}, "
            f"workload={workload!r}, precision={precision!r}, spec_decoding={spec_decoding!r}; "
            f"bundled (model, hardware): {have}"
        )
    return out
