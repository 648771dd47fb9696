"""Test scheduling under pytest-xdist: which tests must share a worker, and what runs first.

``--dist loadgroup`` (pyproject.toml) hands tests to the workers one at a time, except that
the tests of a module declaring a module- or session-scoped fixture (a calibration, a written
report, a built wheel) form one unit, so that the fixture is computed once rather than once per
worker, and the cases of a parametrised test go in batches (outside modules with slow tests).
Units are found from the module's source: the controller has only test ids (and pytest-xdist's
own ``xdist_group`` marks do not reach it under pytest 9.2). Worker-side, slow tests are put
first (``conftest.pytest_collection_modifyitems``), so that the long units start early and the
workers finish together.
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


@functools.cache
def has_slow_tests(module: str) -> bool:
    """Return whether the test module ``module`` marks tests slow (its cases are never batched)."""
    path = REPO / module
    return path.suffix == ".py" and path.is_file() and "mark.slow" in path.read_text(encoding="utf-8")


BATCH = 40
"""Cases of one parametrised test sent to a worker together (fewer messages for catalog-row checks)."""


def scopes(nodeids: list[str]) -> dict[str, str]:
    """Return the unit of each test id: its module, a batch of its test's cases, or the test alone."""
    out: dict[str, str] = {}
    count: dict[str, int] = {}
    for nodeid in nodeids:
        module = nodeid.split("::", 1)[0]
        function = nodeid.split("[", 1)[0]
        if shares_a_fixture(module):
            out[nodeid] = module
        elif function != nodeid and not has_slow_tests(module):
            i = count[function] = count.get(function, -1) + 1
            out[nodeid] = f"{function}#{i // BATCH}"
        else:
            out[nodeid] = nodeid
    return out


class SharedFixtureScheduling(LoadScopeScheduling):
    """Units of :func:`scopes`, largest first: a shared fixture is computed once, on one worker."""

    _scopes: dict[str, str] | None = None

    def schedule(self) -> None:
        if self._scopes is None and self.collection_is_completed and self.registered_collections:
            self._scopes = scopes(list(next(iter(self.registered_collections.values()))))
        super().schedule()

    def _split_scope(self, nodeid: str) -> str:
        return (self._scopes or {}).get(nodeid, nodeid)
