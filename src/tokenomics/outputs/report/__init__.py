"""``tokenomics report``: the whole chain on the bundled data, written as an interactive HTML page.

The report is built in three separate steps, each in its own module:

* :mod:`~tokenomics.outputs.report.build`: the computation, every number as a tidy table
  (:func:`build_report` returns a :class:`Report`; nothing is drawn or written);
* :mod:`~tokenomics.outputs.report.sections`, :mod:`~tokenomics.outputs.report.html` and
  :mod:`~tokenomics.outputs.report.page`: rendering.
  The page is a list of section builders (:data:`SECTIONS`), each turning a :class:`Report` into a
  titled block of interactive charts (plotly, its JavaScript inlined: the page works offline) and
  tables; a new section is one more builder in the list;
* :mod:`~tokenomics.outputs.report.write`: the output directory (``index.html``, PNG charts for
  slides, CSV tables, a manifest), replaced atomically so that a run killed at any point leaves
  either the previous report or the new one.
"""

from tokenomics.outputs.report.build import (
    DEFAULT_MODELS,
    STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER,
    Report,
    ReportOptions,
    build_report,
)
from tokenomics.outputs.report.html import HEADLINE_COLUMNS, format_value, headline_cells
from tokenomics.outputs.report.page import render_html
from tokenomics.outputs.report.sections import SECTIONS, Section, SectionBuilder, margin_sections
from tokenomics.outputs.report.uncertainty import uncertainty_section
from tokenomics.outputs.report.write import MARKER, headline_frame, read_manifest, write_report

if uncertainty_section not in SECTIONS:  # the Monte Carlo section follows the margin charts
    SECTIONS.insert(SECTIONS.index(margin_sections) + 1, uncertainty_section)

__all__ = [
    "DEFAULT_MODELS",
    "HEADLINE_COLUMNS",
    "MARKER",
    "SECTIONS",
    "STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER",
    "Report",
    "ReportOptions",
    "Section",
    "SectionBuilder",
    "build_report",
    "format_value",
    "headline_cells",
    "headline_frame",
    "read_manifest",
    "render_html",
    "write_report",
]
