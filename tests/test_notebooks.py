"""Notebooks: stored with their outputs (they render where people read them), every check True.

A check is a printed line that ends in ``True`` or ``False`` (``print(..., bool(...))``). Stored
notebooks must have been run top to bottom (execution counts 1, 2, ...), hold no error output and
no failed check; the slow test runs each one again and asserts the same of the fresh outputs.

The slow test runs the notebooks in one Python kernel (per test worker), started once: a kernel
start and the notebook's imports cost about 2 s of CPU each, more than most notebooks' own work.
Before each notebook the kernel is put back to a fresh kernel's state as far as a notebook can see
it: an empty namespace (``%reset -f``, so a name another notebook defined is a ``NameError``), the
notebook's own working directory, no user-added catalog file, no open figure, default pandas
display options. Imported modules stay imported (importing them again is what a notebook does).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

_CHECK = re.compile(r"\b(True|False)\s*$")


def _checks(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """(line, verdict) of every printed line ending in True or False."""
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for o in cell.get("outputs", []):
            if o.get("output_type") != "stream":
                continue
            for line in str(o.get("text", "")).splitlines():
                m = _CHECK.search(line)
                if m:
                    out.append((line.strip(), m.group(1)))
    return out


def _errors(nb: nbformat.NotebookNode) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_with_its_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: not run top to bottom before committing"
    assert any(c.outputs for c in code), f"{path.name}: stored without outputs"
    assert _errors(nb) == [], f"{path.name}: stored with an error"
    failed = [line for line, verdict in _checks(nb) if verdict == "False"]
    assert failed == [], f"{path.name}: stored checks print False"


_FRESH = """\
%reset -f
import os as _os
import sys as _sys

_os.chdir({cwd!r})
if "tokenomics" in _sys.modules:
    _sys.modules["tokenomics"].reset_catalogs()
if "matplotlib.pyplot" in _sys.modules:
    _sys.modules["matplotlib.pyplot"].close("all")
if "pandas" in _sys.modules:
    _sys.modules["pandas"].reset_option("^display")
%reset -f
"""
"""Run first in the shared kernel: the state of a fresh kernel started in ``cwd``, as a notebook sees it."""


@pytest.fixture(scope="module")
def kernel() -> Iterator[KernelManager]:
    """One Python kernel for the module's notebooks (on each test worker that runs one)."""
    km = KernelManager(kernel_name="python3")
    km.start_kernel()
    try:
        yield km
    finally:
        km.shutdown_kernel(now=True)


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_and_every_check_is_true(path: Path, kernel: KernelManager, tmp_path: Path):
    if not kernel.is_alive():  # a notebook before this one killed it
        kernel.restart_kernel(now=True)
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(_FRESH.format(cwd=str(tmp_path))))
    client = NotebookClient(nb, km=kernel, timeout=600, interrupt_on_timeout=True)
    try:
        client.execute()
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
    assert _errors(nb) == []
    assert not nb.cells[0].outputs, nb.cells[0].outputs  # the fresh state was set up silently
    failed = [line for line, verdict in _checks(nb) if verdict == "False"]
    assert failed == [], f"{path.name}: checks print False"
