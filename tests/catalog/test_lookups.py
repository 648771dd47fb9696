"""Lookups by the names users type for the late-2026 models, and their first-party prices."""

from __future__ import annotations

import pytest

import tokenomics as tk

# (name typed, catalog id) - each id's rows are checked row by row in test_model_rows.py.
NAMES = [
    ("kimi-k2.7", "kimi-k2.7"),
    ("Kimi K2.7 Code", "kimi-k2.7"),
    ("Kimi-K2.7-Code", "kimi-k2.7"),
    ("kimik2.7", "kimi-k2.7"),
]


@pytest.mark.parametrize(("name", "model_id"), NAMES)
def test_name_resolves(name: str, model_id: str) -> None:
    assert tk.catalog.resolve_model_id(name) == model_id


def test_kimi_k27_is_a_k2_family_mla_model_with_a_moonshot_price() -> None:
    m = tk.model("kimi-k2.7")
    assert (m.attention_type, m.total_params_b, m.active_params_b) == ("mla", 1000.0, 32.0)
    assert m.max_context_tokens == 262_144
    p = tk.price("kimi-k2.7")  # first-party default
    assert p.provider == "Moonshot"
    # Moonshot's launch list price, USD/Mtok (vercel.com providers page; apidog guide)
    assert (p.input_usd_per_mtok, p.cached_input_usd_per_mtok, p.output_usd_per_mtok) == (0.95, 0.19, 4.0)
