"""Engram tables: hashed n-gram embeddings looked up by token ids, and where to keep them.

An engram layer adds, before layer ``L``'s attention, embeddings fetched from hashed n-gram tables
(one row per hash head per n-gram order per token). The rows depend on token ids alone, so the
fetch can start when a step's tokens are known and overlap with layers ``0 .. L-1``. Whatever the
fetch needs beyond that compute stalls the step.

For a step of ``T`` tokens per accelerator, engram layers ``L_1 < L_2 < ...`` fetched in order over
one tier::

    finish_i = latency + rows_through_i * max(row_bytes, min_read) / bandwidth   (>= rows / IOPS)
    hide_i   = step_time * L_i / layers          (compute of the layers before L_i)
    stall    = max(0, max_i(finish_i - hide_i))

Tables kept in HBM stall nothing measurable but take HBM from the KV cache; tables kept in host
DRAM, a CXL pool or SSD free that HBM ("layers for free") at the price of the fetch.

References
----------
Cheng et al., "Conditional Memory via Scalable Lookup: A New Axis of Sparsity for Large Language
Models", arXiv:2601.07372 (2026-01-12). Demo configuration: github.com/deepseek-ai/Engram
``engram_demo_v1.py`` @11a020e.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from tokenomics._validate import check_nonnegative, check_positive, normalize_name, unknown_name_error
from tokenomics.catalog import data_dir
from tokenomics.memory.tiers import MemoryTier
from tokenomics.precision import bytes_per_element, canonical_precision


class EngramTable(BaseModel):
    """The hashed tables of one n-gram order in one engram layer.

    Parameters
    ----------
    layer_index : int
        0-based index of the layer the engram output feeds (layers before it can hide the fetch).
    ngram_order : int
        N of the n-gram (2 for bigrams), >= 1.
    heads : int
        Hash heads of this order; each token fetches one row per head.
    rows_per_head : int
        Table length of one head [rows].
    head_dim : int
        Embedding width of one head [elements].
    precision : str
        Storage precision of the table (``bf16``, ``fp8``...).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    layer_index: int
    ngram_order: int
    heads: int
    rows_per_head: int
    head_dim: int
    precision: str = "bf16"

    @field_validator("layer_index")
    @classmethod
    def _layer(cls, value: int, info: Any) -> int:
        check_nonnegative(info.field_name, value)
        return int(value)

    @field_validator("ngram_order", "heads", "rows_per_head", "head_dim")
    @classmethod
    def _positive(cls, value: int, info: Any) -> int:
        check_positive(info.field_name, value)
        return int(value)

    @field_validator("precision")
    @classmethod
    def _precision(cls, value: str) -> str:
        return canonical_precision(value)

    @property
    def row_bytes(self) -> float:
        """Bytes of one row, ``head_dim * bytes_per_element`` [bytes]."""
        return self.head_dim * bytes_per_element(self.precision)

    @property
    def params(self) -> float:
        """Parameters of the table, ``heads * rows_per_head * head_dim``."""
        return float(self.heads) * self.rows_per_head * self.head_dim


class EngramConfig(BaseModel):
    """All engram tables of a model.

    Parameters
    ----------
    name : str
        Label, e.g. ``"engram-demo"``.
    tables : tuple of EngramTable
        One entry per (layer, n-gram order).
    source : str, default ""
        Where the configuration comes from.

    Examples
    --------
    >>> cfg = engram_config("engram-demo")
    >>> cfg.layer_indices, round(cfg.params / 1e9, 2)
    ((1, 15), 1.32)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    tables: tuple[EngramTable, ...]
    source: str = ""

    @model_validator(mode="after")
    def _non_empty(self) -> EngramConfig:
        if not self.tables:
            raise ValueError(f"engram config {self.name!r}: give at least one table")
        return self

    @property
    def layer_indices(self) -> tuple[int, ...]:
        """Sorted 0-based indices of the engram layers."""
        return tuple(sorted({t.layer_index for t in self.tables}))

    @property
    def params(self) -> float:
        """Parameters of all tables."""
        return sum(t.params for t in self.tables)

    @property
    def table_bytes(self) -> float:
        """Bytes of all tables [bytes]."""
        return sum(t.params * bytes_per_element(t.precision) for t in self.tables)

    def rows_per_token(self, layer_index: int) -> int:
        """Rows one token fetches for one engram layer (heads summed over n-gram orders)."""
        return sum(t.heads for t in self.tables if t.layer_index == layer_index)

    def bytes_per_token(self) -> float:
        """Bytes of table rows one token fetches over all engram layers [bytes/token]."""
        return sum(t.heads * t.row_bytes for t in self.tables)

    def placed_at(self, *layer_indices: int) -> EngramConfig:
        """Return the same tables moved to other layers (the i-th engram layer to the i-th index).

        Parameters
        ----------
        *layer_indices : int
            New 0-based layer indices, one per engram layer of this config, >= 0.

        Returns
        -------
        EngramConfig
            A copy with moved layers.

        Raises
        ------
        ValueError
            A count that differs from the config's engram layers, or a negative index.
        """
        old = self.layer_indices
        if len(layer_indices) != len(old):
            raise ValueError(
                f"placed_at: {self.name!r} has {len(old)} engram layers {old}, got {len(layer_indices)} "
                f"indices {layer_indices}"
            )
        mapping = dict(zip(old, layer_indices, strict=True))
        moved = tuple(t.model_copy(update={"layer_index": int(mapping[t.layer_index])}) for t in self.tables)
        for t in moved:
            check_nonnegative("layer_index", t.layer_index)
        return self.model_copy(update={"tables": moved, "name": f"{self.name}@{','.join(map(str, layer_indices))}"})

    def scaled_to(self, params: float) -> EngramConfig:
        """Return the same layout with rows scaled so the config holds ``params`` parameters.

        Parameters
        ----------
        params : float
            Target total parameters, > 0 (e.g. ``100e9``).

        Returns
        -------
        EngramConfig
            Rows per head scaled by ``params / self.params`` (rounded, at least 1).
        """
        check_positive("params", params)
        k = params / self.params
        tables = tuple(t.model_copy(update={"rows_per_head": max(1, round(t.rows_per_head * k))}) for t in self.tables)
        return self.model_copy(update={"tables": tables, "name": f"{self.name} x{k:.3g}"})

    def check_fits(self, layers: int) -> None:
        """Raise ``ValueError`` if an engram layer index is beyond a model's ``layers``.

        Parameters
        ----------
        layers : int
            Transformer layers of the model the tables are attached to.
        """
        for i in self.layer_indices:
            if i >= layers:
                raise ValueError(
                    f"engram layer_index={i} is beyond the model's {layers} layers (valid 0..{layers - 1})"
                )


@lru_cache(maxsize=1)
def _bundled() -> dict[str, EngramConfig]:
    path = Path(data_dir()) / "models" / "engrams.csv"
    tables: dict[str, list[EngramTable]] = {}
    sources: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        lines = [(i, line) for i, line in enumerate(fh, start=1) if not line.startswith("#")]
    reader = csv.DictReader(line for _, line in lines)
    for (line_no, _), row in zip(lines[1:], reader, strict=True):
        try:
            table = EngramTable(
                layer_index=int(row["layer_index"]),
                ngram_order=int(row["ngram_order"]),
                heads=int(row["heads"]),
                rows_per_head=int(row["rows_per_head"]),
                head_dim=int(row["head_dim"]),
                precision=row["precision"],
            )
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"{path}, line {line_no}: {err}") from None
        tables.setdefault(row["engram_id"], []).append(table)
        sources[row["engram_id"]] = row["source"]
    return {k: EngramConfig(name=k, tables=tuple(v), source=sources[k]) for k, v in tables.items()}


def engram_config(name: str) -> EngramConfig:
    """Return a bundled engram configuration by name.

    Parameters
    ----------
    name : str
        ``"engram-demo"``: DeepSeek's public demo (layers 1 and 15, 2- and 3-grams, 8 heads of 64
        dims per order, 646,400 rows per head, BF16; ~1.32 B parameters).

    Returns
    -------
    EngramConfig
        The configuration.

    Raises
    ------
    KeyError
        Unknown name (close matches listed).
    """
    configs = _bundled()
    by_key = {normalize_name(k): v for k, v in configs.items()}
    key = normalize_name(name)
    if key not in by_key:
        raise unknown_name_error("engram config", name, list(configs))
    return by_key[key]


def engram_fetch_time_s(config: EngramConfig, tier: MemoryTier, tokens_per_step: Any) -> dict[int, Any]:
    """Time at which each engram layer's rows have arrived, counted from the start of the step [s].

    Layers are fetched in order over the tier's link, each as one batched gather.

    Parameters
    ----------
    config : EngramConfig
        The tables.
    tier : MemoryTier
        Where the tables are kept.
    tokens_per_step : float or array_like
        Tokens whose rows one accelerator fetches in one step (decode: sequences in the step on
        this accelerator; prefill: the chunk), >= 0 [tokens].

    Returns
    -------
    dict of int to float or numpy.ndarray
        Engram layer index -> finish time [s].
    """
    check_nonnegative("tokens_per_step", tokens_per_step)
    tokens = np.asarray(tokens_per_step, dtype=float)
    done: dict[int, Any] = {}
    elapsed = np.zeros_like(tokens)
    for layer in config.layer_indices:
        layer_tables = [t for t in config.tables if t.layer_index == layer]
        for t in layer_tables:
            rows = tokens * t.heads
            elapsed = elapsed + tier.read_time_s(rows, t.row_bytes)
        done[layer] = elapsed.copy()
    return done


def engram_stall_s(
    config: EngramConfig,
    tier: MemoryTier,
    tokens_per_step: Any,
    step_time_s: Any,
    layers: int,
) -> Any:
    """Time a step waits for engram rows beyond what the earlier layers' compute hides [s].

    ``stall = max(0, max_i(finish_i - step_time_s * L_i / layers))``, with ``finish_i`` from
    :func:`engram_fetch_time_s`.

    Parameters
    ----------
    config : EngramConfig
        The tables and their layers.
    tier : MemoryTier
        Where the tables are kept.
    tokens_per_step : float or array_like
        Tokens one accelerator fetches rows for in one step, >= 0 [tokens].
    step_time_s : float or array_like
        Step time without engram stalls, > 0 [s].
    layers : int
        Transformer layers of the model.

    Returns
    -------
    float or numpy.ndarray
        Stall per step, >= 0 [s].

    Raises
    ------
    ValueError
        Non-positive step time, or an engram layer beyond ``layers``.

    Examples
    --------
    Rows in HBM arrive within microseconds: nothing to hide.

    >>> from tokenomics.memory.tiers import MemoryTier
    >>> hbm = MemoryTier(name="hbm", capacity_bytes=1.8e11, read_bw_bytes_per_s=8e12,
    ...                  latency_s=1e-6, min_read_bytes=64)
    >>> engram_stall_s(engram_config("engram-demo"), hbm, 64, 0.03, 30)
    0.0
    """
    check_positive("step_time_s", step_time_s)
    config.check_fits(layers)
    finish = engram_fetch_time_s(config, tier, tokens_per_step)
    step = np.asarray(step_time_s, dtype=float)
    worst = np.zeros(np.broadcast(step, np.asarray(tokens_per_step, dtype=float)).shape)
    for layer, t in finish.items():
        worst = np.maximum(worst, t - step * layer / layers)
    out = np.maximum(worst, 0.0)
    return float(out) if out.ndim == 0 else out
