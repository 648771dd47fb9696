"""Shared fixtures: location of the material beside the repository, catalog isolation."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import matplotlib
import pytest
from hypothesis import settings

import tokenomics

matplotlib.use("Agg")

# Continuous integration replays the same examples on every run (a failure there is reproducible);
# locally hypothesis explores new examples each time.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


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
    tokenomics.reset_catalogs()
    yield
    tokenomics.reset_catalogs()
