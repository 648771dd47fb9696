"""``tco()`` over every catalogued system: a figure, or an error naming the missing value."""

from __future__ import annotations

import pytest

import tokenomics as tk
from tokenomics.catalog import hardware_table

SYSTEMS = list(hardware_table().index)
# No public power figure for these TPUs: the itemised TCO must say which value to pass.
NO_POWER = {"tpu-v5e", "tpu-v5p", "tpu-v6e"}


def test_every_system_has_tco_inputs() -> None:
    missing = [h for h in SYSTEMS if h not in tk.catalog.tco_table().index]
    assert missing == []


@pytest.mark.parametrize("hardware_id", SYSTEMS)
def test_itemised_tco_works_or_names_the_missing_value(hardware_id: str) -> None:
    if hardware_id in NO_POWER:
        with pytest.raises(ValueError, match="it_power_kw_per_accelerator"):
            tk.tco(hardware_id)
        result = tk.tco(hardware_id, it_power_kw_per_accelerator=0.5)
    else:
        result = tk.tco(hardware_id)
    parts = result.breakdown_usd_per_gpu_hour
    assert result.usd_per_gpu_hour == pytest.approx(sum(parts.values()))
    # an all-in accelerator-hour costs between 10 cents and 20 dollars for every catalogued system
    assert 0.1 < result.usd_per_gpu_hour < 20.0


def test_tpu_capex_follows_the_gcp_price_ratio() -> None:
    # capex = 3-year commit price x (H100 all-in capex / GCP H100 3-year commit): v6e / v5e = 1.22 / 0.54
    v5e = tk.tco_inputs("tpu-v5e").capex_usd_per_accelerator
    v6e = tk.tco_inputs("tpu-v6e").capex_usd_per_accelerator
    assert v6e / v5e == pytest.approx(1.22 / 0.54)
    assert v5e == pytest.approx(0.54 * 41_666.6667 / 4.86)
