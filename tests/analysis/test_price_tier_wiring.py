"""``price_tier`` through the evaluation path: Scenario, sweep, compare and the CLI."""

from __future__ import annotations

import io
import json

import pytest

import tokenomics as tk
from tokenomics.analysis.scenario import Scenario, sweep
from tokenomics.outputs.cli import main


def test_fast_tier_prices_the_scenario() -> None:
    # Moonshot kimi-k2: standard 0.60 / 2.50, fast (turbo) 2.40 / 10.00 USD/Mtok: every price x4,
    # so at the same throughput revenue is x4 as well
    std = Scenario(hardware="gb300", model="kimi-k2", throughput_tok_per_s_per_gpu=1500.0).evaluate().iloc[0]
    fast = Scenario(hardware="gb300", model="kimi-k2", throughput_tok_per_s_per_gpu=1500.0,
                    price_tier="fast").evaluate().iloc[0]
    assert (fast["input_usd_per_mtok"], fast["output_usd_per_mtok"]) == (2.4, 10.0)
    assert fast["revenue_usd_per_gpu_hour"] == pytest.approx(4 * std["revenue_usd_per_gpu_hour"])


def test_sweep_over_tiers() -> None:
    out = sweep(Scenario(hardware="gb300", model="deepseek-v4.1-flash", throughput_tok_per_s_per_gpu=2000.0),
                price_tier=["standard", "off-peak"])
    # DeepSeek V4.1-Flash off-peak is half the peak (standard) price
    assert list(out["output_usd_per_mtok"]) == [1.2, 0.6]


def test_tier_with_explicit_prices_is_an_error() -> None:
    with pytest.raises(ValueError, match="price_tier='fast' is not used"):
        Scenario(hardware="gb300", throughput_tok_per_s_per_gpu=1500.0, input_usd_per_mtok=1.0,
                 output_usd_per_mtok=2.0, price_tier="fast")


def test_unknown_tier_names_the_tiers() -> None:
    with pytest.raises(KeyError, match="priority"):
        Scenario(hardware="gb300", model="kimi-k2", throughput_tok_per_s_per_gpu=1500.0,
                 price_tier="premium").evaluate()


def test_compare_takes_a_tier() -> None:
    std = tk.compare("kimi-k2", "gb300")
    fast = tk.compare("kimi-k2", "gb300", price_tier="fast")
    assert float(fast["output_usd_per_mtok"].iloc[0]) == 4 * float(std["output_usd_per_mtok"].iloc[0])


def test_cli_margin_price_tier(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["margin", "--hardware", "gb300", "--model", "kimi-k2", "--throughput", "1500",
               "--price-tier", "fast", "--format", "json"])
    assert rc == 0
    rows = json.load(io.StringIO(capsys.readouterr().out))
    assert rows[0]["output_usd_per_mtok"] == 10.0
