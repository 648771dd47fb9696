"""Row-level and per-model checks of the bundled model architecture catalog.

One test case per row of ``data/models/architectures.csv`` (it validates on its own against the
vocabulary and cites a source), then sanity invariants per model that a transcription slip would
break (active > total parameters, layer counts that do not add up, MLA head sizes, ...).
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import re

import pytest

import tokenomics as tk
from tokenomics.catalog import TABLES, data_dir
from tokenomics.catalog._tidy import CONFIDENCE_LEVELS, read_index, read_tidy, read_vocabulary

DATA = data_dir()
ARCH = DATA / TABLES["model"].relpath
INDEX = DATA / TABLES["model_index"].relpath
VOCAB = read_vocabulary(DATA / "parameters.csv")
# A source must name where it came from: a domain or a repository path such as github.com/org/repo.
_CITATION = re.compile(r"[a-z0-9-]+\.(com|co|ai|io|org|net|site|edu)\b", re.IGNORECASE)


def _rows() -> list[dict[str, str]]:
    """Rows of the file with their line number (header is line 1) under ``_line``."""
    with ARCH.open(newline="", encoding="utf-8") as fh:
        return [{**r, "_line": str(line)} for line, r in enumerate(csv.DictReader(fh), start=2)]


@functools.cache
def _validated_lines() -> frozenset[int]:
    """Lines of the file that the validator read as values (the whole file, read once)."""
    frame = read_tidy(ARCH, table="model", key_columns=("model_id",), vocabulary=VOCAB)
    return frozenset(int(v) for v in frame["line"])


ROWS = _rows()
INDEX_IDS = sorted(read_index(INDEX, key_column="model_id", required=()).loc[:, "model_id"])
SHORT_CONTEXT = {"llama-2-70b": 4_096}  # models released before 32K contexts were usual


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['model_id']}:{r['parameter']}@{r['as_of']}" for r in ROWS])
def test_row_validates(row: dict[str, str]) -> None:
    """Each row passes the catalog validator and carries a real citation."""
    assert int(row["_line"]) in _validated_lines()
    spec = VOCAB[("model", row["parameter"])]
    assert row["unit"] == spec.unit
    assert row["model_id"] in INDEX_IDS, f"{row['model_id']} is not in {INDEX}"
    assert _CITATION.search(row["source"]), f"source does not cite a document: {row['source']!r}"
    assert row["confidence"] in CONFIDENCE_LEVELS
    assert dt.date.fromisoformat(row["as_of"]) >= dt.date(2024, 1, 1), "implausibly old as-of date"
    if row["confidence"] == "estimate":
        assert row["note"], "an estimate must state its derivation in the note"


def test_whole_file_validates() -> None:
    frame = read_tidy(ARCH, table="model", key_columns=("model_id",), vocabulary=VOCAB)
    assert set(frame["model_id"]) == set(INDEX_IDS), "every indexed model has architecture rows and vice versa"


@pytest.mark.parametrize("model_id", INDEX_IDS)
def test_model_loads_and_is_consistent(model_id: str) -> None:
    m = tk.model(model_id)
    assert m.model_id == model_id
    assert 0 < m.active_params_b <= m.total_params_b
    for name in ("dense_layers", "moe_layers", "sliding_window_layers"):
        value = getattr(m, name)
        assert value is None or value <= m.layers, f"{name}={value} > layers={m.layers}"
    if m.dense_layers is not None and m.moe_layers is not None:
        assert m.dense_layers + m.moe_layers == m.layers
    # Every provenance entry points back at a catalog row.
    assert set(m.provenance) >= {"total_params_b", "layers", "hidden_size", "vocab_size", "max_context_tokens"}
    # Llama 2 (2023) shipped with a 4K context; every later catalogued model has at least 32K.
    assert m.max_context_tokens >= SHORT_CONTEXT.get(model_id, 32_768)
    assert m.vocab_size > 30_000


@pytest.mark.parametrize("model_id", INDEX_IDS)
def test_attention_fields_match_attention_type(model_id: str) -> None:
    m = tk.model(model_id)
    if m.attention_type == "mla":
        assert m.kv_heads is None, "MLA caches a latent, not per-head K/V"
        assert m.mla_kv_lora_rank
        assert m.mla_qk_rope_head_dim
        assert m.mla_qk_nope_head_dim
        assert m.head_dim == m.mla_qk_nope_head_dim + m.mla_qk_rope_head_dim
        assert m.v_head_dim is not None
    else:
        assert m.kv_heads is not None
        assert m.attention_heads % m.kv_heads == 0, "query heads must split evenly into KV groups"
        assert m.mla_kv_lora_rank is None
    if m.sliding_window_layers:
        assert m.sliding_window_tokens, "window layers need a window length"
        assert m.sliding_window_layers < m.layers


@pytest.mark.parametrize("model_id", INDEX_IDS)
def test_expert_fields_are_coherent(model_id: str) -> None:
    m = tk.model(model_id)
    if m.routed_experts:
        assert m.active_experts is not None
        assert m.active_experts <= m.routed_experts
        assert m.expert_ffn_size is not None
        assert m.moe_layers is not None
        assert m.moe_layers > 0
        # Routed experts alone cannot exceed the total parameter count:
        # moe_layers x routed x 3 matrices x hidden x expert_ffn (SwiGLU) <= total.
        routed_b = m.moe_layers * m.routed_experts * 3 * m.hidden_size * m.expert_ffn_size / 1e9
        assert routed_b <= m.total_params_b * 1.02, f"experts alone would be {routed_b:.0f}B"
        # ... and make up most of a sparse model.
        assert routed_b >= 0.5 * m.total_params_b
    else:
        assert m.active_params_b == m.total_params_b, "a dense model activates every parameter"
        assert m.dense_ffn_size is not None


@pytest.mark.parametrize("model_id", ["llama-3.3-70b", "llama-2-70b", "llama-3.1-405b", "llama-3.1-8b"])
def test_dense_parameter_count_matches_architecture(model_id: str) -> None:
    """Dense Llamas: recompute parameters from the catalogued shape (independent of the note)."""
    m = tk.model(model_id)
    assert m.kv_heads is not None
    assert m.dense_ffn_size is not None
    attn = m.hidden_size * m.head_dim * (2 * m.attention_heads + 2 * m.kv_heads)
    mlp = 3 * m.hidden_size * m.dense_ffn_size
    embeddings = 2 * m.vocab_size * m.hidden_size
    assert (m.layers * (attn + mlp) + embeddings) / 1e9 == pytest.approx(m.total_params_b, rel=0.005)


def test_later_snapshot_wins() -> None:
    """Kimi K2's context grew from 128K (0711) to 256K (0905); the lookup returns the latest."""
    m = tk.model("kimi-k2")
    assert m.max_context_tokens == 262_144
    assert m.provenance["max_context_tokens"].as_of == dt.date(2025, 9, 5)


def test_vocabulary_units_are_the_only_units_used() -> None:
    units = {(r["parameter"], r["unit"]) for r in ROWS}
    for parameter, unit in units:
        assert VOCAB[("model", parameter)].unit == unit
