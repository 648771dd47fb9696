"""project_disagg_curve takes its traffic as a workload, like every other entry point."""

from __future__ import annotations

import pytest

import tokenomics as tk
from tokenomics.workload import DEFAULT_WORKLOAD


def test_a_named_workload_sets_isl_osl_and_the_rows_label() -> None:
    by_name = tk.project_disagg_curve("deepseek-r1", "rubin-cpx", "vr200", workload="1k/1k", speculative=False)
    by_tokens = tk.project_disagg_curve("deepseek-r1", "rubin-cpx", "vr200", isl_tokens=1024.0, osl_tokens=1024.0,
                                        speculative=False)
    assert set(by_name["workload"]) == {"1k/1k"}
    assert by_name["throughput_tok_per_s_per_gpu"].tolist() == by_tokens["throughput_tok_per_s_per_gpu"].tolist()
    # the rows now say what they were made for: evaluate_plan refuses another workload
    with pytest.raises(ValueError, match=r"ISL/OSL 1024/1024, not 8k/1k"):
        tk.evaluate_plan("deepseek-r1", by_name, workload="8k/1k")


def test_the_default_is_the_library_default_workload() -> None:
    c = tk.project_disagg_curve("deepseek-r1", "rubin-cpx", "vr200", speculative=False, frontier=True)
    wl = tk.workload(DEFAULT_WORKLOAD)
    assert set(c["isl_tokens"]) == {wl.isl_tokens}
    assert set(c["osl_tokens"]) == {wl.osl_tokens}


def test_a_session_workload_solves_realized_hits_from_its_prefix_share() -> None:
    wl = tk.workload("agentic-coding")
    c = tk.project_disagg_curve("deepseek-r1", "rubin-cpx", "vr200", workload=wl, speculative=False, frontier=True)
    assert set(c["workload"]) == {"agentic-coding"}
    hits = c["cache_hit_frac"].astype(float)
    assert ((hits > 0.0) & (hits <= wl.cached_prefix_frac + 1e-12)).all()
    assert len(tk.evaluate_plan("deepseek-r1", c, workload=wl)) == len(c)


def test_workload_and_tokens_together_are_refused() -> None:
    with pytest.raises(ValueError, match=r"give workload= or isl_tokens/osl_tokens, not both"):
        tk.project_disagg_curve("deepseek-r1", "rubin-cpx", "vr200", workload="1k/1k", isl_tokens=8192.0)
