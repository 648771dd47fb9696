"""Notebooks: stored with their outputs (they render where people read them), every check True.

A check is a printed line that ends in ``True`` or ``False`` (``print(..., bool(...))``). Stored
notebooks must have been run top to bottom (execution counts 1, 2, ...), hold no error output and
no failed check; the slow test runs each one again and asserts the same of the fresh outputs.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
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


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_and_every_check_is_true(path: Path, tmp_path: Path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    assert _errors(nb) == []
    failed = [line for line, verdict in _checks(nb) if verdict == "False"]
    assert failed == [], f"{path.name}: checks print False"
