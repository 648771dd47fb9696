"""Shared fixtures: location of the material beside the repository, catalog isolation."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _distributes(config: pytest.Config) -> bool:
    """Return whether this process is the pytest-xdist controller (it runs no test)."""
    return not hasattr(config, "workerinput") and config.getoption("dist", "no") != "no" \
        and bool(config.getoption("tx", None))


def pytest_configure(config: pytest.Config) -> None:
    """Set up the processes that run tests: matplotlib's Agg backend, the hypothesis profile.

    Hypothesis profiles, chosen with HYPOTHESIS_PROFILE (default "dev"; "ci" where CI is set):
    dev explores new examples on every run; ci replays the same ones (a failure there is
    reproducible); thorough runs ten times the examples of every property
    (tests/properties/strategies.py: ``examples``), for a search before a release. The
    pytest-xdist controller skips this (and so never imports matplotlib or tokenomics): its
    start-up is spent before any worker starts.
    """
    if _distributes(config):
        return
    import matplotlib
    from hypothesis import settings

    matplotlib.use("Agg")
    settings.register_profile("dev", deadline=None)
    settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
    settings.register_profile("thorough", deadline=None, max_examples=1000)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture
def shared_dir() -> Path:
    """Return ``../shared`` beside the repository, or skip when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"reference material not found at {SHARED} (only present beside a development checkout)")
    return SHARED


@pytest.fixture
def shared_data(shared_dir: Path) -> Path:
    """Return ``../shared/data``, or skip when it is absent."""
    data = shared_dir / "data"
    if not data.is_dir():
        pytest.skip(f"reference data not found at {data}")
    return data


@pytest.fixture
def clean_catalogs() -> Iterator[None]:
    """Drop user-added catalog files before and after a test."""
    import tokenomics

    tokenomics.reset_catalogs()
    yield
    tokenomics.reset_catalogs()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, put the slow tests first: a unit runs in collection order (tests/_scheduling.py)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` runs named test files in this process: starting workers would cost more than they save.

    A run of directories (the default ``tests`` and ``src/tokenomics``) gets one worker per core;
    ``-n 2`` distributes named files too, ``PYTEST_XDIST_AUTO_NUM_WORKERS`` sets the count.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    named = [Path(arg.split("::", 1)[0]) for arg in config.args]
    return 0 if named and all(path.suffix == ".py" for path in named) else None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadgroup``: keep the tests of a module-scoped fixture on one worker (tests/_scheduling.py)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests._scheduling import SharedFixtureScheduling

    return SharedFixtureScheduling(config, log)
