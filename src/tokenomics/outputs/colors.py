"""One colour and one marker per system, fixed everywhere (report, notebooks, :mod:`tokenomics.plot`).

A system keeps its colour whatever else is on the chart: colours are looked up by hardware id,
never assigned by order of appearance. The palette is Okabe-Ito [1]_ extended with Paul Tol's
"muted" and "bright" colours [2]_, all chosen to stay apart under the common colour-vision
deficiencies; each system also has its own marker, so that no pair of systems relies on colour
alone. Measured curves are solid, roofline projections dashed with their band shaded
(:data:`MEASURED_DASH`, :data:`PROJECTED_DASH`, :data:`BAND_ALPHA`).

A system not in :data:`SYSTEM_COLORS` (a user's own hardware row) gets a colour from
:data:`FALLBACK_COLORS` chosen by a hash of its id: stable from run to run.

References
----------
.. [1] M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and presentations
   that are friendly to colorblind people" (2008), https://jfly.uni-koeln.de/color/ (read 2026-09).
.. [2] P. Tol, "Colour schemes", SRON technical note SRON/EPS/TN/09-002 (2021),
   https://personal.sron.nl/~pault/ (read 2026-09).
"""

from __future__ import annotations

import zlib
from typing import NamedTuple

__all__ = [
    "BAND_ALPHA",
    "FALLBACK_COLORS",
    "MEASURED_DASH",
    "PROJECTED_DASH",
    "SYSTEM_COLORS",
    "SystemStyle",
    "rgba",
    "system_color",
    "system_style",
]

SYSTEM_COLORS: dict[str, str] = {
    # NVIDIA: blues, greens, black
    "gb200-nvl72": "#0072B2",  # Okabe-Ito blue
    "gb300-nvl72": "#56B4E9",  # Okabe-Ito sky blue
    "vr200-nvl144": "#000000",  # black
    "rubin-cpx": "#332288",  # Tol indigo
    "b200": "#009E73",  # Okabe-Ito bluish green
    "b300": "#44AA99",  # Tol teal
    "h100-sxm": "#999933",  # Tol olive
    "h200-sxm": "#117733",  # Tol green
    "h800": "#DDCC77",  # Tol sand
    # AMD: oranges and reds
    "mi300x": "#D55E00",  # Okabe-Ito vermillion
    "mi325x": "#E69F00",  # Okabe-Ito orange
    "mi355x": "#882255",  # Tol wine
    # Google TPU: pinks and purples
    "tpu-v7": "#CC79A7",  # Okabe-Ito reddish purple
    "tpu-v6e": "#AA4499",  # Tol purple
    "tpu-v5p": "#661100",  # Tol brown
    "tpu-v5e": "#88CCEE",  # Tol cyan
    # AWS
    "trainium2": "#F0E442",  # Okabe-Ito yellow (low contrast on white: marker carries it too)
}
"""Colour (hex) of every catalog system, by hardware id."""

FALLBACK_COLORS: tuple[str, ...] = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377",
                                    "#BBBBBB")
"""Colours (Tol "bright") of systems outside :data:`SYSTEM_COLORS`, picked by a hash of the id."""

_MARKERS: dict[str, tuple[str, str]] = {
    # matplotlib marker, plotly symbol
    "gb200-nvl72": ("o", "circle"),
    "gb300-nvl72": ("s", "square"),
    "vr200-nvl144": ("D", "diamond"),
    "rubin-cpx": ("*", "star"),
    "b200": ("^", "triangle-up"),
    "b300": ("v", "triangle-down"),
    "h100-sxm": ("<", "triangle-left"),
    "h200-sxm": (">", "triangle-right"),
    "h800": ("p", "pentagon"),
    "mi300x": ("h", "hexagon"),
    "mi325x": ("P", "cross"),
    "mi355x": ("X", "x"),
    "tpu-v7": ("d", "diamond-tall"),
    "tpu-v6e": ("H", "hexagon2"),
    "tpu-v5p": ("8", "octagon"),
    "tpu-v5e": ("o", "circle-open"),
    "trainium2": ("s", "square-open"),
}
_FALLBACK_MARKERS: tuple[tuple[str, str], ...] = (("o", "circle"), ("s", "square"), ("^", "triangle-up"),
                                                  ("D", "diamond"), ("v", "triangle-down"))

MEASURED_DASH: str = "solid"
"""Line style of measured curves (plotly ``dash`` name; matplotlib ``"-"``)."""

PROJECTED_DASH: str = "dash"
"""Line style of roofline projections (plotly ``dash`` name; matplotlib ``"--"``)."""

BAND_ALPHA: float = 0.12
"""Opacity of the shaded uncertainty band of a projection."""


class SystemStyle(NamedTuple):
    """How one system is drawn: colour, matplotlib marker and plotly marker symbol."""

    color: str
    marker: str
    symbol: str


def _hash(hardware_id: str) -> int:
    return zlib.crc32(hardware_id.encode("utf-8"))


def system_color(hardware_id: str) -> str:
    """Return the fixed colour of a system.

    Parameters
    ----------
    hardware_id : str
        Catalog hardware id, e.g. ``"gb200-nvl72"``.

    Returns
    -------
    str
        Hex colour; a system outside :data:`SYSTEM_COLORS` gets a stable colour from
        :data:`FALLBACK_COLORS`.

    Examples
    --------
    >>> system_color("gb200-nvl72")
    '#0072B2'
    >>> system_color("tpu-v7") != system_color("gb200-nvl72")
    True
    """
    key = str(hardware_id)
    if key in SYSTEM_COLORS:
        return SYSTEM_COLORS[key]
    return FALLBACK_COLORS[_hash(key) % len(FALLBACK_COLORS)]


def system_style(hardware_id: str) -> SystemStyle:
    """Return colour and marker of a system.

    Parameters
    ----------
    hardware_id : str
        Catalog hardware id.

    Returns
    -------
    SystemStyle
        ``(color, marker, symbol)``: hex colour, matplotlib marker, plotly marker symbol.

    Examples
    --------
    >>> system_style("b200")
    SystemStyle(color='#009E73', marker='^', symbol='triangle-up')
    """
    key = str(hardware_id)
    marker, symbol = _MARKERS.get(key) or _FALLBACK_MARKERS[_hash(key) % len(_FALLBACK_MARKERS)]
    return SystemStyle(system_color(key), marker, symbol)


def rgba(color: str, alpha: float) -> str:
    """Return a CSS ``rgba(...)`` string of a hex colour with opacity ``alpha``.

    Parameters
    ----------
    color : str
        ``"#RRGGBB"``.
    alpha : float
        Opacity in [0, 1].

    Returns
    -------
    str
        E.g. ``"rgba(0,114,178,0.12)"``.

    Raises
    ------
    ValueError
        ``color`` is not ``#RRGGBB`` or ``alpha`` is outside [0, 1].

    Examples
    --------
    >>> rgba("#0072B2", 0.12)
    'rgba(0,114,178,0.12)'
    """
    if len(color) != 7 or not color.startswith("#"):
        raise ValueError(f"color {color!r} is not of the form #RRGGBB")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha {alpha!r} is outside the allowed range [0, 1]")
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha:g})"
