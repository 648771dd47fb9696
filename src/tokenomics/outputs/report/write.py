"""Writing a report directory so that a run killed at any point leaves a complete report.

The new report is built in a temporary directory beside the target (``.NAME.tmp-PID-TOKEN``:
unique per process) and then swapped in:

* where the platform can exchange two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``),
  the new directory and the old report trade places in one step, and the old one is deleted
  afterwards: at every instant the target holds either the old report or the new one;
* elsewhere, the old report is renamed aside (``.NAME.old-PID-TOKEN``) and the new one renamed in;
  a run killed between the two renames leaves the old report aside, and the next run puts it
  back before doing anything else.

Each report holds a manifest (:data:`MARKER`, JSON): the generator, the time, and the size and
SHA-256 of every file. A directory is recognised as a report (and replaced without ``force``)
only when its manifest parses and matches its files exactly; an empty or foreign marker file
proves nothing. Temporary directories left by killed runs (their process gone) are removed at the
start of the next run, but only when empty or holding a report's files.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import datetime as dt
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from tokenomics._version import __version__

__all__ = ["MARKER", "headline_frame", "read_manifest", "write_report"]

MARKER: str = ".tokenomics-report"
"""Manifest file of a report directory (JSON: generator, version, time, files with size and SHA-256)."""

GENERATOR: str = "tokenomics report"
"""Value of the manifest's ``generator`` field."""

_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<what>tmp|old)-(?P<pid>\d+)-(?P<token>[0-9a-f]{8})$")


# --- manifest -----------------------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_manifest(directory: Path) -> None:
    files = {
        p.name: {"bytes": p.stat().st_size, "sha256": _sha256(p)}
        for p in sorted(directory.iterdir()) if p.is_file() and p.name != MARKER
    }
    manifest = {"generator": GENERATOR, "version": __version__,
                "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "files": files}
    _write_synced(directory / MARKER, json.dumps(manifest, indent=1).encode("utf-8"))


def read_manifest(directory: str | Path) -> dict[str, Any] | None:
    """Return a report directory's manifest if it proves the directory is an unmodified report.

    Parameters
    ----------
    directory : str or pathlib.Path
        A directory.

    Returns
    -------
    dict or None
        The manifest (``generator``, ``version``, ``created``, ``files``) when :data:`MARKER`
        parses, names this generator, and lists exactly the directory's other files with their
        sizes and SHA-256 digests; None otherwise (no marker, an empty or foreign marker, a file
        added, removed or changed).
    """
    root = Path(directory)
    try:
        manifest = json.loads((root / MARKER).read_text(encoding="utf-8"))
        files = manifest["files"]
        if manifest.get("generator") != GENERATOR or not isinstance(files, dict):
            return None
        present = {p.name for p in root.iterdir() if p.name != MARKER}
        if present != set(files):
            return None
        for name, meta in files.items():
            path = root / name
            if not path.is_file() or path.stat().st_size != meta["bytes"] or _sha256(path) != meta["sha256"]:
                return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return manifest if isinstance(manifest, dict) else None


# --- file system steps -----------------------------------------------------------------------------


def _write_synced(path: Path, data: bytes) -> None:
    with path.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _checkpoint(name: str) -> None:
    """Mark a step of the swap (a kill point of the tests); does nothing."""


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2``); False where the platform cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    rc = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _temp_path(out: Path, what: str) -> Path:
    return out.parent / f".{out.name}.{what}-{os.getpid()}-{secrets.token_hex(4)}"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but not ours, or the platform cannot tell
        return True
    return True


def _recover_and_clean(out: Path) -> None:
    """Put back a report a killed run left aside; remove temporary directories of dead runs."""
    if not out.parent.is_dir():
        return
    stale = []
    for p in out.parent.iterdir():
        m = _TEMP.match(p.name)
        if m and m["name"] == out.name and p.is_dir() and not _pid_alive(int(m["pid"])):
            stale.append((m["what"], p))
    if not out.exists():
        # killed between moving the old report aside and moving the new one in: restore it
        for what, p in sorted(stale, key=lambda s: s[1].stat().st_mtime, reverse=True):
            if what == "old" and read_manifest(p) is not None:
                os.replace(p, out)
                _fsync_dir(out.parent)
                break
    for _, p in stale:
        if p.exists() and (not any(p.iterdir()) or _is_report_work(p)):
            shutil.rmtree(p, ignore_errors=True)


def _is_report_work(directory: Path) -> bool:
    """Tell whether a temporary directory holds only what a report writes (complete or partial)."""
    allowed = re.compile(r"^(index\.html|[\w.-]+\.(png|csv)|" + re.escape(MARKER) + r")$")
    return all(allowed.match(p.name) and p.is_file() for p in directory.iterdir())


_OUT = "-o on the command line, out_dir in Python"


def _check_target(out: Path, force: bool) -> None:
    here = Path.cwd().resolve()
    target = out.resolve()
    if target == here or target in here.parents:
        raise FileExistsError(
            f"{out} is the current directory or contains it, which cannot be swapped for a report; "
            f"choose a new subdirectory ({_OUT})"
        )
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a directory; choose another directory ({_OUT})")
    if out.is_dir() and any(out.iterdir()) and read_manifest(out) is None and not force:
        raise FileExistsError(
            f"{out} is not empty and is not an unmodified tokenomics report (its {MARKER} manifest is "
            f"missing or does not match its files); choose another directory ({_OUT}), or replace it "
            "(--force, force=True)"
        )


def _check_writable(out: Path) -> None:
    """Create and remove a probe file where the report will be built: fail before computing."""
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = _temp_path(out, "tmp")
        probe.mkdir()
        probe.rmdir()
    except OSError as err:
        raise PermissionError(
            f"cannot write the report next to {out} ({err.strerror or err}); choose a writable directory ({_OUT})"
        ) from err
    if out.is_dir() and not os.access(out, os.W_OK | os.X_OK):
        raise PermissionError(f"{out} is not writable; choose a writable directory ({_OUT})")


def _swap_into_place(tmp: Path, out: Path) -> None:
    """Make ``tmp`` the report at ``out``; at every step a complete report is at ``out`` or aside."""
    os.chmod(tmp, 0o755)  # mkdtemp-like private mode is not wanted for a report
    _fsync_dir(tmp)
    if not out.exists():
        _checkpoint("before-rename")
        os.replace(tmp, out)
        _fsync_dir(out.parent)
        _checkpoint("after-rename")
        return
    if _exchange(tmp, out):
        _fsync_dir(out.parent)
        _checkpoint("after-exchange")  # tmp now holds the old report
        shutil.rmtree(tmp, ignore_errors=True)
        return
    old = _temp_path(out, "old")
    os.replace(out, old)
    _checkpoint("after-move-aside")  # killed here: the next run restores `old`
    try:
        os.replace(tmp, out)
    except BaseException:
        os.replace(old, out)
        raise
    _fsync_dir(out.parent)
    _checkpoint("after-move-in")
    shutil.rmtree(old, ignore_errors=True)


# --- the report -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str], None]]:
    if not enabled:
        yield lambda _: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(SpinnerColumn(), TextColumn("[progress.description]{task.description}"), BarColumn(),
                  TimeElapsedColumn(), console=console, transient=False) as bar:
        task = bar.add_task("tokenomics report", total=None)

        def say(text: str) -> None:
            bar.update(task, description=text)

        yield say
        bar.update(task, description="tokenomics report: done", total=1, completed=1)


def write_report(
    out_dir: str | Path = "tokenomics-report",
    options: Any = None,
    *,
    force: bool = False,
    progress: bool = True,
    png: bool = True,
) -> Path:
    """Run the chain and write ``index.html`` (interactive, offline), PNG charts and CSV tables.

    The target is checked (writable, and either absent, empty, an unmodified earlier report, or
    ``force``) before anything is computed. The report is built beside the target and swapped in
    so that a run killed at any point leaves a complete report at ``out_dir``: the old one or the
    new one (see the module notes). Temporary directories of killed runs are removed.

    Parameters
    ----------
    out_dir : str or pathlib.Path, default "tokenomics-report"
        Output directory.
    options : ReportOptions, optional
        Assumptions (default :class:`~tokenomics.outputs.report.ReportOptions`).
    force : bool, default False
        Replace ``out_dir`` even if it holds files a report did not write.
    progress : bool, default True
        Show a progress bar on stderr.
    png : bool, default True
        Also write static PNG charts (for slides and papers).

    Returns
    -------
    pathlib.Path
        ``out_dir/index.html``.

    Raises
    ------
    FileExistsError
        ``out_dir`` is a file, or a non-empty directory that is not an unmodified report and
        ``force`` is False.
    PermissionError
        The report cannot be written beside ``out_dir``.
    KeyError, ValueError
        Invalid options (see :func:`~tokenomics.outputs.report.build_report`).
    """
    from tokenomics.outputs.report.build import build_report
    from tokenomics.outputs.report.page import render_html
    from tokenomics.outputs.report.sections import png_charts

    out = Path(out_dir)
    _recover_and_clean(out)
    _check_target(out, force)
    _check_writable(out)
    start = time.perf_counter()
    with _progress(progress) as say:
        rep = build_report(options, step=say)
        say("charts")
        pngs = png_charts(rep) if png else {}
        say("writing files")
        tmp = _temp_path(out, "tmp")
        tmp.mkdir()
        try:
            for name, data in pngs.items():
                _write_synced(tmp / name, data)
            for name, frame in rep.tables.items():
                _write_synced(tmp / f"{name}.csv", frame.to_csv(index=False).encode("utf-8"))
            page = render_html(rep, elapsed_s=time.perf_counter() - start, files=sorted(
                [*pngs, *(f"{n}.csv" for n in rep.tables)]))
            _write_synced(tmp / "index.html", page.encode("utf-8"))
            _write_manifest(tmp)
            _check_target(out, force)  # again: something may have appeared meanwhile
            _swap_into_place(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        say(f"done: {out / 'index.html'}")
    return out / "index.html"


def headline_frame(path: str | Path) -> pd.DataFrame:
    """Read a report's ``headline.csv`` back.

    Parameters
    ----------
    path : str or pathlib.Path
        The report directory.

    Returns
    -------
    pandas.DataFrame
        The headline table.
    """
    return pd.read_csv(Path(path) / "headline.csv")
