"""Writing a report: a kill at any point leaves a complete report; proof of authorship; clean-up."""

from __future__ import annotations

import multiprocessing
import os
import stat
import sys
from pathlib import Path

import pytest

from tokenomics.outputs.report import MARKER, ReportOptions, build, read_manifest, write, write_report

SMALL = ReportOptions(models=("deepseek-r1",), hardware=("b200",))

fork = pytest.mark.skipif(sys.platform == "win32" or "fork" not in multiprocessing.get_all_start_methods(),
                          reason="kill points are simulated in a forked child process")


@pytest.fixture(scope="module")
def built():
    return build.build_report(SMALL)


@pytest.fixture
def quick(monkeypatch, built):
    """write_report without recomputing: the report is built once per module."""
    monkeypatch.setattr(build, "build_report", lambda options=None, step=None: built)


def _write(target: Path, **kw) -> Path:
    return write_report(target, SMALL, progress=False, png=False, **kw)


def _temps(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def _killed_at(point: str, target: Path, *, exchange: bool = True, step: str = "_checkpoint") -> int:
    """Run write_report in a child that dies (like SIGKILL: no clean-up) at ``point``."""

    def child() -> None:
        def die(name: str = point) -> None:
            if name == point:
                os._exit(9)

        if step == "_checkpoint":
            write._checkpoint = die  # type: ignore[assignment]
        else:
            setattr(write, step, lambda *a, **k: os._exit(9))
        if not exchange:
            write._exchange = lambda a, b: False  # type: ignore[assignment]
        _write(target)
        os._exit(0)

    proc = multiprocessing.get_context("fork").Process(target=child)
    proc.start()
    proc.join(60)
    return proc.exitcode or 0


def test_manifest_is_proof_of_authorship(tmp_path, quick):
    target = tmp_path / "r"
    _write(target)
    manifest = read_manifest(target)
    assert manifest is not None
    assert manifest["generator"] == "tokenomics report"
    assert set(manifest["files"]) == {p.name for p in target.iterdir()} - {MARKER}
    # a file added by someone else: no longer an unmodified report, refused without --force
    (target / "notes.txt").write_text("mine")
    assert read_manifest(target) is None
    with pytest.raises(FileExistsError, match="--force"):
        _write(target)
    assert (target / "notes.txt").read_text() == "mine"
    # a report file changed by hand: refused as well
    (target / "notes.txt").unlink()
    (target / "headline.csv").write_text("edited")
    with pytest.raises(FileExistsError, match="manifest"):
        _write(target)


def test_empty_marker_in_a_foreign_directory_proves_nothing(tmp_path, quick):
    target = tmp_path / "foreign"
    target.mkdir()
    (target / MARKER).write_text("")
    (target / "data.csv").write_text("a,b\n1,2\n")
    with pytest.raises(FileExistsError, match="--force"):
        _write(target)
    assert (target / "data.csv").is_file()


def test_read_only_target_fails_before_computing(tmp_path, monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root may write anywhere: a read-only directory cannot be simulated")
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(stat.S_IRUSR | stat.S_IXUSR)
    called = []
    monkeypatch.setattr(build, "build_report", lambda *a, **k: called.append(1))
    try:
        with pytest.raises(PermissionError, match="-o"):
            _write(parent / "r")
    finally:
        parent.chmod(stat.S_IRWXU)
    assert called == []


def test_unwritable_target_checked_before_computing(tmp_path, monkeypatch):
    """Also as root: a target below a file cannot be created, and nothing is computed."""
    (tmp_path / "file").write_text("x")
    called = []
    monkeypatch.setattr(build, "build_report", lambda *a, **k: called.append(1))
    with pytest.raises(PermissionError, match=r"choose a writable directory \(-o on the command line, out_dir in"):
        _write(tmp_path / "file" / "r")
    assert called == []


def test_temp_names_unique_per_process(tmp_path):
    a = write._temp_path(tmp_path / "r", "tmp")
    b = write._temp_path(tmp_path / "r", "tmp")
    assert a != b
    assert f"-{os.getpid()}-" in a.name


@fork
@pytest.mark.parametrize("point", ["before-rename", "after-rename"])
def test_kill_on_first_write_leaves_nothing_half_written(tmp_path, quick, point):
    target = tmp_path / "r"
    assert _killed_at(point, target) == 9
    assert not target.exists() or read_manifest(target) is not None
    _write(target)  # the next run completes and cleans up
    assert read_manifest(target) is not None
    assert _temps(tmp_path) == []


@fork
@pytest.mark.parametrize(("point", "exchange"), [
    ("after-exchange", True), ("after-move-aside", False), ("after-move-in", False)])
def test_kill_during_replacement_keeps_a_complete_report(tmp_path, quick, point, exchange):
    target = tmp_path / "r"
    _write(target)
    assert _killed_at(point, target, exchange=exchange) == 9
    if exchange:
        assert read_manifest(target) is not None  # at every instant: old or new, complete
    else:
        assert not target.exists() or read_manifest(target) is not None
    _write(target)  # the next run restores or replaces, and removes what the killed run left
    assert read_manifest(target) is not None
    assert _temps(tmp_path) == []


@fork
@pytest.mark.parametrize("step", ["_write_manifest", "_swap_into_place"])
def test_kill_while_writing_keeps_the_old_report_and_is_cleaned_next_run(tmp_path, quick, step):
    target = tmp_path / "r"
    _write(target)
    before = read_manifest(target)
    assert _killed_at("", target, step=step) == 9
    assert read_manifest(target) == before  # untouched
    assert _temps(tmp_path)  # the killed run's temporary directory is still there ...
    _write(target)
    assert _temps(tmp_path) == []  # ... and gone after the next run


def test_temporary_of_a_live_process_is_left_alone(tmp_path, quick):
    target = tmp_path / "r"
    live = tmp_path / f".r.tmp-{os.getppid()}-0123abcd"
    live.mkdir()
    _write(target)
    assert live.is_dir()


def test_exchange_swaps_in_one_step(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "x").write_text("a")
    (b / "x").write_text("b")
    if not write._exchange(a, b):
        pytest.skip("this file system cannot exchange two paths atomically (the fallback is tested above)")
    assert (a / "x").read_text() == "b"
    assert (b / "x").read_text() == "a"


@pytest.mark.parametrize("name", [".", ".."])
def test_current_directory_or_its_parent_is_refused_before_computing(tmp_path, monkeypatch, name):
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("mine")
    monkeypatch.chdir(work)

    def never(options=None, step=None):
        raise AssertionError("computed before the target was checked")

    monkeypatch.setattr(build, "build_report", never)
    with pytest.raises(FileExistsError, match="current directory"):
        write_report(Path(name), SMALL, progress=False, png=False, force=True)
    assert (work / "notes.txt").read_text() == "mine"
