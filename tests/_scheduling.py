"""Test scheduling under pytest-xdist: which tests must share a worker, and what runs first.

``--dist loadgroup`` (pyproject.toml) hands tests to the workers one at a time, except that
the tests of a module declaring a module- or session-scoped fixture (a calibration, a written
report, a built wheel, a notebook kernel) form one unit, so that the fixture is computed once
rather than once per worker; so do the modules of one folder that use a session-scoped fixture of
that folder's ``conftest.py``, and the modules that name one ``WORKER_UNIT``; the cases of a
parametrised test go in batches (outside modules with slow tests). Units are found from the
module's source: the controller has only test ids (and pytest-xdist's own ``xdist_group`` marks do
not reach it under pytest 9.2). Units holding a test marked slow go first (the longest work starts
first, so that the workers finish together), then the others, largest first (:func:`order`).
"""

from __future__ import annotations

import ast
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


_WORKER_UNIT = re.compile(r"^WORKER_UNIT\s*=\s*[\"']([\w-]+)[\"']", re.M)


@functools.cache
def worker_unit(module: str) -> str | None:
    """Return the unit a test module names in ``WORKER_UNIT = "..."``: modules naming the same unit
    share a worker (and the caches of its process, e.g. the projections ``reference_curve`` keeps)."""
    path = REPO / module
    if path.suffix != ".py" or not path.is_file():
        return None
    found = _WORKER_UNIT.search(path.read_text(encoding="utf-8"))
    return f"unit:{found.group(1)}" if found else None


_FIXTURE_NAME = re.compile(
    r"@pytest\.fixture\([^)]*scope\s*=\s*[\"'](?:package|session)[\"'][^)]*\)\s*\ndef\s+(\w+)")


@functools.cache
def conftest_fixtures(folder: str) -> frozenset[str]:
    """Return the session- and package-scoped fixtures declared in ``folder``'s ``conftest.py``."""
    path = REPO / folder / "conftest.py"
    return frozenset(_FIXTURE_NAME.findall(path.read_text(encoding="utf-8"))) if path.is_file() else frozenset()


def conftest_unit(module: str) -> str | None:
    """Return the unit of a test module that uses a shared fixture of its folder's ``conftest.py``."""
    path = REPO / module
    folder = str(Path(module).parent)
    names = conftest_fixtures(folder)
    if not names or path.suffix != ".py" or not path.is_file():
        return None
    used = set(re.findall(r"\w+", path.read_text(encoding="utf-8")))
    return f"{folder}/conftest.py" if names & used else None


@functools.cache
def has_slow_tests(module: str) -> bool:
    """Return whether the test module ``module`` marks tests slow (its cases are never batched)."""
    path = REPO / module
    return path.suffix == ".py" and path.is_file() and "mark.slow" in path.read_text(encoding="utf-8")


def _is_slow_mark(node: ast.expr) -> bool:
    """Whether a decorator or ``pytestmark`` entry is ``pytest.mark.slow`` (called or not)."""
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr == "slow"


@functools.cache
def slow_tests(module: str) -> frozenset[str] | None:
    """Return the names of the test functions of ``module`` marked slow; None when all of them are.

    Read from the module's source: a ``@pytest.mark.slow`` decorator of a function or class (a
    class's name stands for its tests), or a module-level ``pytestmark`` holding it (None).
    """
    if not has_slow_tests(module):
        return frozenset()
    tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            marks = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            if any(_is_slow_mark(m) for m in marks):
                return None
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and any(
                _is_slow_mark(d) for d in node.decorator_list):
            names.add(node.name)
    return frozenset(names)


def is_slow(nodeid: str) -> bool:
    """Return whether the test ``nodeid`` is marked slow (by its function, class or module)."""
    module, _, rest = nodeid.partition("::")
    names = slow_tests(module)
    return names is None or rest.split("[", 1)[0].split("::", 1)[0] in names


BATCH = 40
"""Cases of one parametrised test sent to a worker together (fewer messages for catalog-row checks)."""


def scopes(nodeids: list[str]) -> dict[str, str]:
    """Return the unit of each test id: its folder's shared fixture, its module, a batch of its test's
    cases, or the test alone."""
    out: dict[str, str] = {}
    count: dict[str, int] = {}
    for nodeid in nodeids:
        module = nodeid.split("::", 1)[0]
        function = nodeid.split("[", 1)[0]
        shared = worker_unit(module) or conftest_unit(module)
        if shared is not None:
            out[nodeid] = shared
        elif shares_a_fixture(module):
            out[nodeid] = module
        elif function != nodeid and not has_slow_tests(module):
            i = count[function] = count.get(function, -1) + 1
            out[nodeid] = f"{function}#{i // BATCH}"
        else:
            out[nodeid] = nodeid
    return out


def order(units: dict[str, list[str]]) -> list[str]:
    """Return the units in the order they are handed out, the longest likely first.

    Units holding a slow test first, those of a shared fixture (a kernel, a wheel, a report
    built for a browser) before single slow tests; then the others, largest first.
    """
    def key(unit: str) -> tuple[bool, bool, int]:
        tests = units[unit]
        return not any(is_slow(t) for t in tests), "::" in unit, -len(tests)

    return sorted(units, key=key)


class SharedFixtureScheduling(LoadScopeScheduling):
    """Units of :func:`scopes` in the :func:`order`: a shared fixture is computed once, on one worker."""

    _scopes: dict[str, str] | None = None
    _ordered = False

    def schedule(self) -> None:
        if self._scopes is None and self.collection_is_completed and self.registered_collections:
            self._scopes = scopes(list(next(iter(self.registered_collections.values()))))
        super().schedule()

    def _split_scope(self, nodeid: str) -> str:
        return (self._scopes or {}).get(nodeid, nodeid)

    def _assign_work_unit(self, node: object) -> None:
        if not self._ordered:  # the first hand-out: the queue is complete
            self._ordered = True
            queue = {unit: list(tests) for unit, tests in self.workqueue.items()}
            for unit in order(queue):
                self.workqueue.move_to_end(unit)
        super()._assign_work_unit(node)  # type: ignore[arg-type]
