"""Bad input to ``Workload.from_results`` and ``Workload.from_trace``: clear errors, nothing dropped."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pydantic import ValidationError

import tokenomics as tk
from tokenomics.workload import Workload, read_agentic_runs


def _frame(**overrides: Any) -> pd.DataFrame:
    cols: dict[str, Any] = {
        "run_id": ["a", "b"], "requests": [100.0, 300.0], "input_tokens_mean": [80_000.0, 120_000.0],
        "output_tokens_mean": [1000.0, 500.0], "theoretical_cache_hit_frac": [0.9, 0.98],
    }
    cols.update(overrides)
    return pd.DataFrame({k: v for k, v in cols.items() if v is not None})


def _agentx(input_mean: float = 100_000.0, hit: float = 0.95, requests: float = 50.0) -> dict[str, Any]:
    return {
        "hw": "mi355x", "conc": 8,
        "request_metrics": {
            "tokens": {"input": {"mean": input_mean, "p50": 90_000.0, "p90": 190_000.0},
                       "output_actual": {"mean": 1000.0, "p50": 400.0, "p90": 2600.0}},
            "cache": {"theoretical_cache_hit_rate": hit},
            "throughput": {"duration_seconds": 100.0},
        },
        "server_metrics": {"tokens": {"requests_completed": requests}},
    }


def _flat(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"users": 4, "theoretical_cache_hit_rate": 0.9, "mean_input_tokens": 1000.0,
                           "median_input_tokens": 900.0, "p90_input_tokens": 1500.0,
                           "mean_output_tokens_actual": 100.0, "total_requests_completed": 10}
    doc.update(overrides)
    return doc


def _write_json(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc))
    return path


def _not_pydantic(err: pytest.ExceptionInfo[ValueError]) -> None:
    assert not isinstance(err.value, ValidationError), "a raw pydantic ValidationError leaked"


# --- 1. DataFrame runs: every run has every pooled field ---


@pytest.mark.parametrize(
    ("frame", "where"),
    [
        (_frame(theoretical_cache_hit_frac=[0.9, math.nan]), "run 'b' (row 1)"),
        (_frame(run_id=None, theoretical_cache_hit_frac=[0.9, math.nan]), "row 1"),
        (_frame(run_id=None, source=["x.json", "y.json"], theoretical_cache_hit_frac=[math.nan, 0.9]),
         "run from 'x.json' (row 0)"),
    ],
)
def test_from_results_nan_hit_rate_in_one_run_is_refused(frame: pd.DataFrame, where: str) -> None:
    with pytest.raises(ValueError, match=r"theoretical_cache_hit_frac.*missing") as err:
        Workload.from_results(frame)
    assert str(err.value).startswith(where)
    assert "(?)" not in str(err.value)


def test_from_results_nan_hit_rate_in_every_run_is_refused() -> None:
    # the docstring requires the hit rate; no run having it is not a silent cached_prefix_frac=NaN
    with pytest.raises(ValueError, match=r"^run 'a' \(row 0\): field 'theoretical_cache_hit_frac'") as err:
        Workload.from_results(_frame(theoretical_cache_hit_frac=[math.nan, math.nan]))
    _not_pydantic(err)


def test_from_results_nan_mean_tokens_in_one_run_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^run 'a' \(row 0\): field 'output_tokens_mean'.*missing"):
        Workload.from_results(_frame(output_tokens_mean=[math.nan, 500.0]))


@pytest.mark.parametrize("requests", [0.0, -3.0])
def test_from_results_non_positive_requests_is_refused(requests: float) -> None:
    with pytest.raises(ValueError, match=r"^run 'b' \(row 1\): field 'requests'=-?\d+ must be > 0"):
        Workload.from_results(_frame(requests=[100.0, requests]))


def test_from_results_missing_requests_is_refused_when_pooling() -> None:
    with pytest.raises(ValueError, match=r"^run 'b' \(row 1\): field 'requests' is missing.*weighted"):
        Workload.from_results(_frame(requests=[100.0, math.nan]))
    with pytest.raises(ValueError, match=r"^run 'a' \(row 0\): field 'requests' is missing"):
        Workload.from_results(_frame(requests=None))


def test_from_results_single_run_needs_no_requests() -> None:
    w = Workload.from_results(_frame(run_id=["a"], requests=None, input_tokens_mean=[8000.0],
                                     output_tokens_mean=[100.0], theoretical_cache_hit_frac=[0.5]))
    assert w.isl_tokens == 8000.0
    assert w.cached_prefix_frac == 0.5


def test_from_results_quantile_in_some_runs_only_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^run 'b' \(row 1\): field 'input_tokens_p90' is missing while "
                                         r"run 'a' \(row 0\) gives it"):
        Workload.from_results(_frame(input_tokens_p90=[150_000.0, math.nan]))


def test_from_results_quantiles_pooled_when_every_run_gives_them() -> None:
    w = Workload.from_results(_frame(input_tokens_p50=[70_000.0, 110_000.0], input_tokens_p90=[150_000.0, 190_000.0]))
    assert w.isl_quantiles_tokens == {0.5: pytest.approx(100_000.0), 0.9: pytest.approx(180_000.0)}
    assert w.osl_quantiles_tokens is None


def test_from_results_frame_row_named_by_index_label() -> None:
    frame = _frame(run_id=None, theoretical_cache_hit_frac=[0.9, math.nan]).set_axis([10, 11])
    with pytest.raises(ValueError, match=r"^row 11: field 'theoretical_cache_hit_frac'"):
        Workload.from_results(frame)


def test_from_results_refuses_a_hit_rate_column_it_would_not_read() -> None:
    with pytest.raises(ValueError, match=r"^run 'a' \(row 0\): field 'cache_hit_rate' is not read"):
        Workload.from_results(_frame(cache_hit_rate=[0.5, 0.6]))


# --- 2. result files: the file's own field paths; the same names in every form ---


def test_from_results_file_out_of_range_names_the_nested_field(tmp_path: Path) -> None:
    f = _write_json(tmp_path / "agx.json", _agentx(input_mean=5e6))
    with pytest.raises(ValueError, match=r"agx\.json: field 'request_metrics\.tokens\.input\.mean'=5e\+06 is outside"):
        Workload.from_results(f)


def test_from_results_file_percent_hit_rate_names_the_nested_field(tmp_path: Path) -> None:
    f = _write_json(tmp_path / "agx.json", _agentx(hit=95.0))
    with pytest.raises(ValueError, match=r"agx\.json: field 'request_metrics\.cache\.theoretical_cache_hit_rate'"
                                         r"=95 is outside \[0, 1\] \(looks like a percent"):
        Workload.from_results(f)


def test_from_results_flat_file_out_of_range_names_the_flat_field(tmp_path: Path) -> None:
    f = _write_json(tmp_path / "flat.json", _flat(mean_output_tokens_actual=-1.0))
    with pytest.raises(ValueError, match=r"flat\.json: field 'mean_output_tokens_actual'=-1 is outside"):
        Workload.from_results(f)


def test_from_results_file_p90_below_p50_names_file_and_fields(tmp_path: Path) -> None:
    doc = _agentx()
    doc["request_metrics"]["tokens"]["output_actual"]["p90"] = 100.0
    f = _write_json(tmp_path / "agx.json", doc)
    with pytest.raises(ValueError, match=r"agx\.json: field 'request_metrics\.tokens\.output_actual\.p90'=100 is "
                                         r"below field 'request_metrics\.tokens\.output_actual\.p50'=400") as err:
        Workload.from_results(f)
    _not_pydantic(err)
    g = _write_json(tmp_path / "flat.json", _flat(p90_input_tokens=800.0))
    with pytest.raises(ValueError, match=r"flat\.json: field 'p90_input_tokens'=800 is below field "
                                         r"'median_input_tokens'=900") as err:
        Workload.from_results(g)
    _not_pydantic(err)


def test_from_results_file_missing_request_count_names_the_nested_field(tmp_path: Path) -> None:
    doc = _agentx()
    del doc["server_metrics"]
    a = _write_json(tmp_path / "a.json", _agentx())
    b = _write_json(tmp_path / "b.json", doc)
    with pytest.raises(ValueError, match=r"b\.json: field 'server_metrics\.tokens\.requests_completed' is missing"):
        Workload.from_results([a, b])


def test_from_results_files_pooled_by_requests(tmp_path: Path) -> None:
    a = _write_json(tmp_path / "a.json", _agentx(input_mean=80_000.0, hit=0.9, requests=100.0))
    b = _write_json(tmp_path / "b.json", _agentx(input_mean=120_000.0, hit=0.98, requests=300.0))
    w = Workload.from_results(tmp_path)
    assert w.isl_tokens == pytest.approx(110_000.0)
    assert w.cached_prefix_frac == pytest.approx(0.96)
    assert str(a) in w.source
    assert str(b) in w.source


def test_from_results_file_given_twice_is_refused(tmp_path: Path) -> None:
    f = _write_json(tmp_path / "a.json", _agentx())
    with pytest.raises(ValueError, match=r"a\.json: result file given twice"):
        Workload.from_results([tmp_path, f])
    with pytest.raises(ValueError, match=r"given twice"):
        read_agentic_runs([f, f])


def test_from_results_mapping_and_frame_accept_the_same_names() -> None:
    table = {"run_id": "a", "requests": 10.0, "input_tokens_mean": 1000.0, "output_tokens_mean": 100.0,
             "theoretical_cache_hit_frac": 0.9, "input_tokens_p50": 900.0, "input_tokens_p90": 1500.0}
    flat = _flat()
    from_table_map = Workload.from_results(table)
    from_flat_map = Workload.from_results(flat)
    from_table_frame = Workload.from_results(pd.DataFrame([table]))
    from_flat_frame = Workload.from_results(pd.DataFrame([flat]))
    for w in (from_flat_map, from_table_frame, from_flat_frame):
        assert w.isl_tokens == from_table_map.isl_tokens == 1000.0
        assert w.osl_tokens == from_table_map.osl_tokens == 100.0
        assert w.cached_prefix_frac == from_table_map.cached_prefix_frac == 0.9
        assert w.isl_quantiles_tokens == from_table_map.isl_quantiles_tokens == {0.5: 900.0, 0.9: 1500.0}
    # the spellings may be mixed within one row
    mixed = {"mean_input_tokens": 1000.0, "output_tokens_mean": 100.0, "theoretical_cache_hit_rate": 0.9}
    assert Workload.from_results(mixed).isl_tokens == 1000.0


@pytest.mark.parametrize(
    "points",
    [
        {"output_tokens_mean": 100.0, "theoretical_cache_hit_frac": 0.9},
        _frame(input_tokens_mean=None),
        {"mean_output_tokens_actual": 100.0, "theoretical_cache_hit_rate": 0.9},
    ],
)
def test_from_results_missing_field_lists_the_accepted_names(points: Any) -> None:
    names = r"'(input_tokens_mean|mean_input_tokens)', '(mean_input_tokens|input_tokens_mean)'"
    with pytest.raises(ValueError, match=rf"is required.*missing \(accepted names: {names}\)"):
        Workload.from_results(points)


def test_from_results_both_spellings_of_one_field_are_refused() -> None:
    with pytest.raises(ValueError, match=r"'input_tokens_mean'=1000 and 'mean_input_tokens'=2000 are two spellings"):
        Workload.from_results(_frame(input_tokens_mean=[1000.0, 1000.0], mean_input_tokens=[2000.0, 2000.0]))


def test_from_results_mixed_paths_and_rows_is_a_type_error(tmp_path: Path) -> None:
    f = _write_json(tmp_path / "a.json", _agentx())
    with pytest.raises(TypeError, match="not a mix"):
        Workload.from_results([f, _flat()])


def test_from_results_bad_argument_is_a_plain_value_error() -> None:
    with pytest.raises(ValueError, match=r"idle_s_between_turns=-1\.0 s is outside") as err:
        Workload.from_results(_frame(), idle_s_between_turns=-1.0)
    _not_pydantic(err)


# --- 3. traces ---


def _trace(tmp_path: Path, line: object) -> Path:
    path = tmp_path / "bad.jsonl"
    first = {"input_length": 8, "output_length": 2}
    path.write_text(json.dumps(first) + "\n" + (line if isinstance(line, str) else json.dumps(line)) + "\n")
    return path


def test_from_trace_huge_token_count_names_file_line_field_value_range(tmp_path: Path) -> None:
    trace = _trace(tmp_path, {"input_length": 1e12, "output_length": 2})
    with pytest.raises(ValueError, match=r"bad\.jsonl: line 2: field 'input_length'=1000000000000\.0 is outside "
                                         r"\(0, 2e\+06\] tokens") as err:
        Workload.from_trace(trace)
    _not_pydantic(err)
    trace = _trace(tmp_path, {"input_length": 8, "output_tokens": 3_000_000})
    with pytest.raises(ValueError, match=r"line 2: field 'output_tokens'=3000000 is outside \[0, 2e\+06\] tokens"):
        Workload.from_trace(trace)


@pytest.mark.parametrize("field", ["cache_hit_rate", "cache_hit_frac", "hit_rate", "prefix_hit_rate",
                                   "theoretical_cache_hit_rate", "cached_tokens"])
def test_from_trace_refuses_hit_rate_fields(tmp_path: Path, field: str) -> None:
    trace = _trace(tmp_path, {"input_length": 8, "output_length": 2, "hash_ids": [1], field: 0.5})
    with pytest.raises(ValueError, match=rf"bad\.jsonl: line 2: field '{field}' is not read: the theoretical hit "
                                         r"rate is computed from the block hashes"):
        Workload.from_trace(trace)


def test_from_trace_reads_past_an_unrelated_cache_field(tmp_path: Path) -> None:
    # a per-request cache salt (vLLM's cache isolation key) is neither a hit rate nor a token count
    trace = _trace(tmp_path, {"input_length": 8, "output_length": 2, "cache_salt": "user-7"})
    assert Workload.from_trace(trace).isl_tokens == 8.0


def test_from_trace_directory_says_directory(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError, match="is a directory"):
        Workload.from_trace(tmp_path)


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ({"input_length": "1000", "output_length": 2}, r"field 'input_length' must be an integer token count.*'1000'"),
        ({"input_length": 8, "output_length": "2"}, r"field 'output_length' must be an integer token count"),
        ({"input_length": 1000.5, "output_length": 2}, r"field 'input_length' must be a whole number.*1000\.5"),
        ({"input_length": 8, "output_length": 2.5}, r"field 'output_length' must be a whole number"),
        ({"input_length": 8, "output_length": None}, r"field 'output_length' must be an integer token count"),
        ('{"input_length": NaN, "output_length": 2}', r"field 'input_length' must be a whole number"),
        ({"input_length": 8, "input_tokens": 8, "output_length": 2}, r"fields 'input_length', 'input_tokens'"),
        ({"input_length": 8, "output_length": 2, "idle_s": "3"}, r"field 'idle_s' must be a number of seconds"),
        ({"input_length": 8, "output_length": 2, "idle_s": 1, "delay_s": 1}, r"fields 'idle_s' and 'delay_s'"),
        ({"input_length": 8, "output_length": 2, "session_id": [1]}, r"field 'session_id' must be"),
        ({"input_length": 8, "output_length": 2, "hash_ids": [{"a": 1}]}, r"field 'hash_ids' holds"),
    ],
)
def test_from_trace_refuses_non_integer_or_ambiguous_fields(tmp_path: Path, line: object, match: str) -> None:
    trace = _trace(tmp_path, line)
    with pytest.raises(ValueError, match=r"bad\.jsonl: line 2: " + match):
        Workload.from_trace(trace)


def test_from_trace_accepts_whole_floats(tmp_path: Path) -> None:
    trace = _trace(tmp_path, {"input_length": 1e3, "output_length": 4.0})
    w = Workload.from_trace(trace)
    assert w.isl_tokens == pytest.approx(504.0)


def test_from_trace_refuses_non_positive_block_size(tmp_path: Path) -> None:
    trace = _trace(tmp_path, {"input_length": 8, "output_length": 2})
    with pytest.raises(ValueError, match=r"block_size_tokens=0"):
        Workload.from_trace(trace, block_size_tokens=0)


def test_bundled_presets_unchanged_by_the_stricter_checks() -> None:
    # the presets are pooled through the same checks; deep-copy guard that rows are not mutated
    from tokenomics.workload import agentic_runs, workload

    runs = agentic_runs()
    before = copy.deepcopy(runs)
    w = Workload.from_results(runs[runs["source"].str.contains("6c128cd")], name="agentic-coding",
                              turns_per_session=workload("agentic-coding").turns_per_session)
    ref = workload("agentic-coding")
    assert w.isl_tokens == pytest.approx(ref.isl_tokens)
    assert w.cached_prefix_frac == pytest.approx(ref.cached_prefix_frac)
    assert w.isl_quantiles_tokens == pytest.approx(ref.isl_quantiles_tokens)
    pd.testing.assert_frame_equal(runs, before)


@pytest.mark.parametrize("idle", [17_900.0, 5_000.0])
def test_idle_gap_in_milliseconds_is_refused_with_the_slip_named(idle: float, tmp_path: Path) -> None:
    # the early preset's 17.9 s written in ms; a session idle for over an hour has ended
    with pytest.raises(ValueError, match=r"idle_s_between_turns=.* above the plausible maximum 3600 s.*17900 ms"):
        Workload(name="x", isl_tokens=1000.0, osl_tokens=10.0, kind="sessions", cached_prefix_frac=0.5,
                 idle_s_between_turns=idle)
    path = tmp_path / "ms.jsonl"
    lines = [{"input_length": 100, "output_length": 10, "session_id": 1, "idle_s": 0},
             {"input_length": 120, "output_length": 10, "session_id": 1, "idle_s": idle}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    with pytest.raises(ValueError, match=r"ms\.jsonl: line 2: field 'idle_s'=.* is outside \[0, 3600\] s.*17900 ms"):
        Workload.from_trace(path)
    Workload(name="x", isl_tokens=1000.0, osl_tokens=10.0, kind="sessions", cached_prefix_frac=0.5,
             idle_s_between_turns=3_600.0)


@pytest.mark.parametrize(("fields", "match"), [
    ({"isl_tokens": 8.192, "osl_tokens": 1.024}, "look like thousands of tokens"),
    ({"isl_tokens": "8192", "osl_tokens": 1024}, "isl_tokens='8192' is not a number"),
    ({"isl_tokens": 8192, "osl_tokens": 0.5}, r"osl_tokens=0\.5 is outside"),
    ({"isl_tokens": 8192, "osl_tokens": 1024, "cached_prefix_frac": True}, "not a number"),
])
def test_workload_refuses_unit_slips_and_text(fields: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Workload(name="x", **fields)
    # a fractional mean of a long sequence and whole short counts stay valid
    assert Workload(name="y", isl_tokens=294.45, osl_tokens=12.5).isl_tokens == 294.45
    assert Workload(name="z", isl_tokens=8, osl_tokens=1).osl_tokens == 1.0


def test_registering_a_taken_name_is_refused_unless_replaced_and_reset_restores_the_presets() -> None:
    mine = tk.Workload(name="8k/1k", isl_tokens=100, osl_tokens=100)
    with pytest.raises(ValueError, match=r"already names the bundled preset '8k/1k'.*replace=True"):
        tk.register_workload(mine)
    assert tk.workload("8k/1k").isl_tokens == 8192
    try:
        tk.register_workload(mine, replace=True)
        assert tk.workload("8k/1k").isl_tokens == 100
        own = tk.Workload(name="my traffic", isl_tokens=2000, osl_tokens=300)
        tk.register_workload(own, "mine")
        tk.register_workload(own, "mine")  # the same workload again is no conflict
        with pytest.raises(ValueError, match="already names the workload 'my traffic'"):
            tk.register_workload(tk.Workload(name="other", isl_tokens=1, osl_tokens=1), "MINE")
    finally:
        tk.reset_catalogs()
    assert tk.workload("8k/1k").isl_tokens == 8192
    with pytest.raises(KeyError, match="unknown workload 'my traffic'"):
        tk.workload("my traffic")
    assert tk.workload("agentic-coding").kind == "sessions"
