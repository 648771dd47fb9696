"""Property tests of name lookup: every spelling a user may type finds the same entity."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import tokenomics as tk
from tests.properties import strategies as strat
from tokenomics._validate import normalize_name


@strat.DEFAULT_SETTINGS
@given(strat.names("model"))
def test_model_spellings_resolve_to_the_same_model(pair: tuple[str, str]) -> None:
    canonical, spelling = pair
    assert tk.model(spelling).model_id == canonical


@strat.DEFAULT_SETTINGS
@given(strat.names("hardware"))
def test_hardware_spellings_resolve_to_the_same_system(pair: tuple[str, str]) -> None:
    canonical, spelling = pair
    assert tk.hardware(spelling).hardware_id == canonical


@strat.DEFAULT_SETTINGS
@given(st.text(max_size=40))
def test_normalize_name_is_idempotent_and_keeps_every_letter_and_digit(text: str) -> None:
    key = normalize_name(text)
    assert normalize_name(key) == key
    # full-width forms fold to the same key; no letter or digit is ever dropped
    assert normalize_name(strat.full_width(text)) == key
    assert sum(c.isalnum() for c in key) == len(key)
