"""sweep labels its rows as evaluate and compare do."""

from __future__ import annotations

import tokenomics as tk


def test_sweep_labels_a_profile_that_does_not_apply_as_compare_does() -> None:
    scn = tk.Scenario(hardware="gb200", model="deepseek-r1", tco="published")
    swept = tk.sweep(scn, utilization_frac=[0.5, 0.6])
    compared = tk.compare("deepseek-r1", ["gb200"], tco="published")
    assert compared["tco_profile"].iloc[0] is None
    assert list(swept["tco_profile"]) == [None, None]
