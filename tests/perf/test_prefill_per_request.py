"""The per-request prefill reader of ``benchmarks/prefill_per_request.py``."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests._benchmarks import load_benchmark


def _script() -> ModuleType:
    return load_benchmark("prefill_per_request")


def _record(start_s: float, end_s: float, ttft_s: float, isl: int, osl: int, turn: int) -> dict:
    return {
        "metadata": {"request_start_ns": int(start_s * 1e9), "request_end_ns": int(end_s * 1e9),
                     "benchmark_phase": "profiling", "conversation_id": "c", "agent_depth": 0, "turn_index": turn},
        "metrics": {"input_sequence_length": {"value": isl}, "output_sequence_length": {"value": osl},
                    "time_to_first_token": {"value": ttft_s * 1e3}},
    }


def test_records_sorted_by_arrival(tmp_path: Path) -> None:
    path = tmp_path / "profile_export.jsonl"
    lines = [_record(10.0, 12.0, 0.5, 1100, 10, 1), _record(0.0, 9.0, 1.0, 1000, 50, 0)]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    recs = _script()._records(path)
    assert [r["isl"] for r in recs] == [1000.0, 1100.0]
    assert recs[1]["ttft_s"] == pytest.approx(0.5)


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "profile_export.jsonl"
    path.write_text(json.dumps(_record(0.0, 1.0, 0.1, 10, 1, 0)) + "\n" + '{"metadata": {}}\n')
    with pytest.raises(ValueError, match=r"profile_export\.jsonl, line 2: not an aiperf per-request record"):
        _script()._records(path)


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "profile_export.jsonl"
    path.write_text("\n")
    with pytest.raises(ValueError, match="no records"):
        _script()._records(path)


def test_serial_prefill_hand_calculation() -> None:
    # A arrives at 0 s, first token at 1 s, ends at 9 s. B arrives at 5 s while A is served: it
    # starts service at 9 s and its first token comes at 5 + 6.5 = 11.5 s, so its prefill is
    # 2.5 s; its new tokens are 1,100 - (1,000 + 50) = 50. C arrives at 20 s after an idle gap.
    # Busy 0-9 and 9-12 and 20-21 of the 21 s span: idle 8 / 21.
    mod = _script()
    base = {"phase": "profiling", "key": ("c", 0)}
    recs = [
        {**base, "start_s": 0.0, "end_s": 9.0, "ttft_s": 1.0, "isl": 1000.0, "osl": 50.0},
        {**base, "start_s": 5.0, "end_s": 12.0, "ttft_s": 6.5, "isl": 1100.0, "osl": 10.0},
        {**base, "start_s": 20.0, "end_s": 21.0, "ttft_s": 0.25, "isl": 900.0, "osl": 4.0},
    ]
    rows, service, idle = mod.serial_prefill(recs)
    assert rows == [(1100.0, 50.0, pytest.approx(2.5))]  # C's context was rewritten (new < 0): left out
    assert [round(p, 6) for p, _, _ in service] == [1.0, 2.5, 0.25]
    assert service[1][1] == pytest.approx(12.0 - 11.5)
    assert idle == pytest.approx(8.0 / 21.0)
