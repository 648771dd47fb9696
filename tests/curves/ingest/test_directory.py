"""Directory reading: every file read or reported, and every shared result file readable."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tokenomics.curves.ingest import ArgumentConflictError, read_results, read_results_dir

REPO = Path(__file__).resolve().parents[3]
SHARED_DATA = REPO.parent / "shared" / "data"
FIX = REPO / "tests" / "fixtures" / "ingest"


def _shared_files() -> list[object]:
    out: list[object] = []
    for sub in ("inferencemax", "mlperf"):
        d = SHARED_DATA / sub
        if d.is_dir():
            out += [pytest.param(p, id=str(p.relative_to(SHARED_DATA)))
                    for p in sorted(d.rglob("*")) if p.suffix in (".json", ".csv")]
    if not out:
        out = [pytest.param(None, marks=pytest.mark.skip(
            reason=f"reference data not found at {SHARED_DATA}"))]
    return out


_NEEDS_HARDWARE = "gpus_16_ctx_8_gen_8"
_NOT_A_RESULT = {"summary.csv"}


@pytest.mark.parametrize("path", _shared_files())
def test_every_shared_result_file_is_read(path: Path) -> None:
    if path.name in _NOT_A_RESULT:
        # the early agentic sweep summary repeats the per-point agg_*.json rows
        points, skipped = read_results_dir(path.parent, recursive=False, pattern=path.name)
        assert points.empty
        assert len(skipped) == 1
        assert "not a recognised" in skipped["reason"][0]
        return
    kwargs = {"hardware": "mi355x"} if _NEEDS_HARDWARE in path.name else {}
    pts = read_results(path, **kwargs)
    assert len(pts) >= 1
    measured = pts[pts["kind"] == "measured"]
    assert (pts["hardware_id"].notna()).all()
    thr = pts["throughput_tok_per_s_per_gpu"].fillna(pts["output_throughput_tok_per_s_per_gpu"])
    assert (thr.dropna() >= 0).all()
    assert thr.notna().any()
    x = measured["interactivity_tok_per_s_per_user"].dropna()
    assert ((x > 0) & (x < 5000)).all()  # tok/s/user, not ms


def test_directory_reports_every_skip(shared_data: Path) -> None:
    d = shared_data / "inferencemax"
    points, skipped = read_results_dir(d)
    files = [p for p in d.rglob("*") if p.is_file()]
    read_sources = set(points["source"])
    assert len(read_sources) + len(skipped) == len(files)
    disagg = skipped[skipped["path"].str.contains(_NEEDS_HARDWARE)]
    assert len(disagg) == 8
    assert disagg["reason"].str.contains("hardware").all()
    # with the hardware given, those files are read too
    points2, skipped2 = read_results_dir(d / "multinode_disagg_raw_gptoss120b_1k1k", hardware="mi355x")
    assert len(points2) == 8
    assert skipped2.empty
    # but not over files that name other hardware (the B200 agentic rows)
    with pytest.raises(ArgumentConflictError, match=r"names hardware 'b200'.*hardware='mi355x'"):
        read_results_dir(d, hardware="mi355x")


def test_directory_of_fixtures_reports_malformed_files(tmp_path: Path) -> None:
    for name in ("agg_hand_b200.json", "bad_not_json.json", "bad_agg_missing_tput.json",
                 "notes.txt", "mlperf_summary_small.json"):
        shutil.copy(FIX / name, tmp_path / name)
    points, skipped = read_results_dir(tmp_path)
    assert len(points) == 1 + 5
    reasons = dict(zip(skipped["path"].map(lambda p: Path(p).name), skipped["reason"], strict=False))
    assert "not valid JSON" in reasons["bad_not_json.json"]
    assert "tput_per_gpu" in reasons["bad_agg_missing_tput.json"]
    assert "not a recognised" in reasons["notes.txt"]
    rows = skipped[skipped["rows"] > 0]
    assert rows["rows"].sum() == 5  # the MLPerf rows skipped inside the table, counted


def test_directory_must_exist(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        read_results_dir(tmp_path / "nope")
