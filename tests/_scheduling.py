"""Test scheduling under pytest-xdist: which tests must share a worker, and what runs first.

``--dist loadgroup`` (pyproject.toml) hands tests to the workers one at a time, except that
the tests of a module declaring a module- or session-scoped fixture (a calibration, a written
report, a built wheel) form one unit, so that the fixture is computed once rather than once per
worker. The unit is found from the module's source: the controller has only test ids.
Worker-side, slow tests are put first (``conftest.pytest_collection_modifyitems``), so that the
long units start early and the workers finish together.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

REPO = Path(__file__).resolve().parents[1]
_SHARED_FIXTURE = re.compile(r"@pytest\.fixture\([^)]*scope\s*=\s*[\"'](module|package|session)[\"']")


@functools.cache
def shares_a_fixture(module: str) -> bool:
    """Return whether the test module ``module`` (path from the repository root) declares a shared fixture."""
    path = REPO / module
    return path.suffix == ".py" and path.is_file() and bool(_SHARED_FIXTURE.search(path.read_text(encoding="utf-8")))


class SharedFixtureScheduling(LoadScopeScheduling):
    """One unit per test, one per module for the modules that declare a shared fixture; largest units first."""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return module if shares_a_fixture(module) else nodeid
