"""``tokenomics prices --tier``: one tier of the price catalog, bad tiers named."""

from __future__ import annotations

import io
import json

import pytest

from tokenomics.outputs.cli import main


def test_prices_of_one_tier(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prices", "--model", "kimi-k2", "--tier", "fast", "--format", "json"]) == 0
    rows = json.load(io.StringIO(capsys.readouterr().out))
    # Moonshot kimi-k2-turbo-preview: 2.40 / 0.60 / 10.00 USD/Mtok
    assert [(r["provider"], r["tier"], r["output_usd_per_mtok"]) for r in rows] == [("Moonshot", "fast", 10.0)]


def test_unknown_tier_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prices", "--tier", "gold"]) == 2
    err = capsys.readouterr().err
    assert "unknown price tier 'gold'" in err
    assert "off-peak" in err
    assert err.count("\n") == 1
