"""Shared hypothesis strategies for the property tests: one place for every generated input.

Each strategy draws values inside the range the library accepts, in the unit its name ends
with, so a property test states only its invariant. Import from here; do not redefine ranges in
a test module.

Scalars
    ``throughputs`` [tok/s/GPU], ``interactivities`` [tok/s/user], ``prices`` [USD/Mtok],
    ``costs`` [USD/GPU-hour], ``utilizations`` [0..1], ``fractions``, ``license_fees``,
    ``royalties``, ``fixed_fees`` [USD/GPU-hour], ``target_margins``, ``scale_factors``,
    ``pues``, ``electricity_prices`` [USD/kWh], ``capexes`` [USD].
Composites
    ``tco_inputs()`` (keyword arguments of
    :func:`tokenomics.cost.tco.itemised_tco_usd_per_gpu_hour`), ``tco_systems`` (catalog
    hardware with TCO inputs and a power figure), ``curve_points()`` (lists of (interactivity,
    throughput) pairs, with a tie-heavy integer grid mixed in), ``curve_frames()`` (the same as a
    curve-point DataFrame), ``names`` (catalog ids with case, spacing and full-width variants).
"""

from __future__ import annotations

import os
import unicodedata
from typing import Any

import pandas as pd
from hypothesis import settings
from hypothesis import strategies as st

import tokenomics as tk
from tokenomics.economics import MIN_USD_PER_MTOK

__all__ = [
    "CHAIN_SYSTEMS",
    "CHAIN_WORKLOADS",
    "DEFAULT_SETTINGS",
    "TCO_SYSTEM_IDS",
    "X",
    "Y",
    "batch_sizes",
    "capexes",
    "capital_rates",
    "chain_interactivities",
    "config_curve_frames",
    "costs",
    "curve_frames",
    "curve_points",
    "electricity_prices",
    "examples",
    "fixed_fees",
    "fractions",
    "full_width",
    "growth_factors",
    "hardware_names",
    "interactivities",
    "license_fees",
    "lives_years",
    "model_names",
    "names",
    "prices",
    "pues",
    "royalties",
    "scale_factors",
    "target_margins",
    "tco_inputs",
    "tco_profiles",
    "tco_systems",
    "throughputs",
    "utilizations",
]

THOROUGH_FACTOR = 10
"""How many times more examples every property runs under ``HYPOTHESIS_PROFILE=thorough``."""


def examples(n: int) -> int:
    """Return the example count of a property: ``n``, times :data:`THOROUGH_FACTOR` when thorough.

    Each property states the count that keeps the default suite fast for its cost per example
    (a projection costs ~0.1-1 s, a pure kernel microseconds); the thorough profile scales all
    of them alike.
    """
    return n * THOROUGH_FACTOR if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else n


DEFAULT_SETTINGS = settings(max_examples=examples(100), deadline=None)
"""Settings for cheap invariants (pure kernels)."""

X = "interactivity_tok_per_s_per_user"
Y = "throughput_tok_per_s_per_gpu"


def _floats(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


# --- scalars -------------------------------------------------------------------------------------
throughputs = _floats(1.0, 1e5)
"""Throughput per GPU [tok/s/GPU]."""
interactivities = _floats(1.0, 1e4)
"""Interactivity per user [tok/s/user], in the vocabulary's plausible range."""
prices = _floats(0.01, 100.0)
"""Token price [USD/Mtok]."""
costs = _floats(0.05, 50.0)
"""TCO per accelerator-hour [USD/GPU-hour]."""
utilizations = _floats(0.01, 1.0)
"""Busy fraction of paid hours, in (0, 1]."""
fractions = _floats(0.0, 1.0)
"""Any fraction in [0, 1] (input share, cache hit, cached-cost ratio)."""
license_fees = _floats(0.0, 0.95)
"""License fee as a fraction of revenue."""
royalties = st.just(0.0) | _floats(MIN_USD_PER_MTOK, 1.0)
"""License royalty per Mtok [USD/Mtok]: none, or in the plausible range of an amount per Mtok."""
fixed_fees = _floats(0.0, 2.0)
"""Fixed license fee [USD/GPU-hour]."""
target_margins = _floats(-1.0, 0.9)
"""Target gross margin for break-evens (may be negative)."""
scale_factors = _floats(0.1, 10.0)
"""Multiplicative factor for homogeneity tests."""
pues = _floats(1.0, 3.0)
"""Power usage effectiveness, in [1, 3]."""
electricity_prices = st.just(0.0) | _floats(0.005, 2.0)
"""Electricity price [USD/kWh]: free, or in the TCO profile vocabulary's plausible range."""
capexes = st.just(0.0) | _floats(100.0, 2e6)
"""Capex per accelerator [USD]: written off, or in the TCO vocabulary's plausible range."""
capital_rates = _floats(0.0, 0.5)
"""Annual cost of capital [1/yr]."""
lives_years = _floats(0.5, 30.0)
"""Economic life [yr]."""
batch_sizes = _floats(1.0, 512.0)
"""Concurrent sequences per replica."""
growth_factors = _floats(1.01, 4.0)
"""Factor strictly above 1 (a faster part, a larger price)."""


# --- TCO -----------------------------------------------------------------------------------------
@st.composite
def tco_inputs(draw: Any) -> dict[str, float]:
    """Keyword arguments of :func:`~tokenomics.cost.tco.itemised_tco_usd_per_gpu_hour`."""
    return {
        "capex_usd_per_accelerator": draw(capexes),
        "economic_life_years": draw(lives_years),
        "cost_of_capital_frac": draw(capital_rates),
        "it_power_kw_per_accelerator": draw(st.just(0.0) | _floats(0.01, 20.0)),
        "pue": draw(pues),
        "electricity_usd_per_kwh": draw(electricity_prices),
        "colocation_usd_per_kw_month": draw(st.just(0.0) | _floats(1.0, 5000.0)),
        "maintenance_frac_per_year": draw(_floats(0.0, 0.2)),
        "other_opex_frac_per_year": draw(_floats(0.0, 0.2)),
        "residual_value_frac": draw(fractions),
        "rental_markup_frac": draw(_floats(0.0, 1.0)),
    }


def _tco_systems() -> list[str]:
    out = []
    for hid in tk.catalog.tco_table().index.astype(str):
        hw = tk.hardware(hid)
        if hw.it_power_kw_per_accelerator is not None or hw.facility_power_kw_per_accelerator is not None:
            out.append(hid)
    return sorted(out)


TCO_SYSTEM_IDS: list[str] = _tco_systems()
"""Catalog systems that :func:`tokenomics.tco` can itemise (TCO inputs and a power figure)."""
tco_systems = st.sampled_from(TCO_SYSTEM_IDS)
tco_profiles = st.sampled_from(["hyperscaler", "neocloud", "rental"])


# --- curves --------------------------------------------------------------------------------------
_coord = _floats(1.0, 1e4)  # interactivities in the vocabulary's plausible range
# small integer grids produce many ties and exact duplicates
_tie_coord = st.integers(min_value=1, max_value=6).map(float)


def curve_points(min_size: int = 1, max_size: int = 60) -> st.SearchStrategy[list[tuple[float, float]]]:
    """Lists of (interactivity [tok/s/user], throughput [tok/s/GPU]) pairs, ties included."""
    return st.lists(st.tuples(_coord, _coord), min_size=min_size, max_size=max_size) | st.lists(
        st.tuples(_tie_coord, _tie_coord), min_size=min_size, max_size=max_size
    )


def curve_frames(min_size: int = 1, max_size: int = 60) -> st.SearchStrategy[pd.DataFrame]:
    """Curve-point tables with the two standard columns."""
    return curve_points(min_size, max_size).map(lambda pts: pd.DataFrame(pts, columns=[X, Y]))


@st.composite
def config_curve_frames(draw: Any, max_configs: int = 4, max_size: int = 12) -> pd.DataFrame:
    """Curve-point tables of 1-``max_configs`` serving configurations (column ``config``)."""
    frames = []
    for c in range(draw(st.integers(1, max_configs))):
        pts = draw(st.lists(st.tuples(_coord, _coord), min_size=1, max_size=max_size))
        frames.append(pd.DataFrame(pts, columns=[X, Y]).assign(config=f"c{c}"))
    return pd.concat(frames, ignore_index=True)


# --- names ---------------------------------------------------------------------------------------
def full_width(text: str) -> str:
    """Map ASCII letters and digits to their full-width forms (NFKC folds them back)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


def _variants(name: str) -> st.SearchStrategy[str]:
    assert unicodedata.normalize("NFKC", full_width(name)) == name
    return st.sampled_from(
        [name, name.upper(), name.replace("-", " "), name.replace("-", "_"), full_width(name),
         f"  {name}  "]
    )


model_names = st.sampled_from(sorted(tk.model_table().index.astype(str)))
"""Canonical model ids."""
hardware_names = st.sampled_from(sorted(tk.hardware_table().index.astype(str)))
"""Canonical hardware ids."""


def names(kind: str = "model") -> st.SearchStrategy[tuple[str, str]]:
    """(canonical id, a spelling of it a user may type) for ``kind`` "model" or "hardware"."""
    base = model_names if kind == "model" else hardware_names
    return base.flatmap(lambda n: st.tuples(st.just(n), _variants(n)))


# --- the evaluation chain ---------------------------------------------------------------------

CHAIN_SYSTEMS = ["gb200-nvl72", "b200", "mi355x", "gb300-nvl72"]
"""Systems with a DeepSeek-R1 curve (measured or projected) covering 15-45 tok/s/user at every
workload of :data:`CHAIN_WORKLOADS`."""

CHAIN_WORKLOADS = ["8k/1k", "1k/1k", "1k/8k"]
"""Workload presets the chain properties vary."""

chain_interactivities = _floats(15.0, 45.0)
"""Interactivities every curve of :data:`CHAIN_SYSTEMS` x :data:`CHAIN_WORKLOADS` covers [tok/s/user]."""
