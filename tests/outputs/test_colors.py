"""One fixed colour and marker per system."""

from __future__ import annotations

import pytest

import tokenomics as tk
from tokenomics.outputs import colors


def test_every_catalog_system_has_its_own_colour_and_marker():
    ids = [str(h) for h in tk.hardware_table().index]
    assert set(ids) <= set(colors.SYSTEM_COLORS)
    styles = [colors.system_style(h) for h in ids]
    assert len({s.color for s in styles}) == len(ids)
    assert len({(s.color, s.marker) for s in styles}) == len(ids)


def test_colour_does_not_depend_on_order_or_company():
    assert colors.system_color("tpu-v7") == colors.SYSTEM_COLORS["tpu-v7"]
    assert colors.system_color("gb200-nvl72") != colors.system_color("tpu-v7")
    assert colors.system_color("my-own-box") == colors.system_color("my-own-box")
    assert colors.system_color("my-own-box") in colors.FALLBACK_COLORS


@pytest.mark.parametrize(("color", "alpha"), [("0072B2", 0.5), ("#0072B2", 1.5), ("#0072B2", -0.1)])
def test_rgba_rejects_bad_input(color, alpha):
    with pytest.raises(ValueError, match=r"color|alpha"):
        colors.rgba(color, alpha)
