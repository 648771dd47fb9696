"""Compare systems for one model: throughput, cost per Mtok, revenue and gross margin.

:func:`compare` lives in :mod:`tokenomics.chain` (the analyses below the outputs use it too):
for each system, :func:`tokenomics.chain.evaluate` runs the chain (reference curve at the
workload, throughput at the interactivity, TCO, cost, revenue, license, margin, break-evens and
the projection's band); names are resolved once, and the systems that could not be evaluated
are listed.
"""

from __future__ import annotations

from tokenomics.chain import compare

__all__ = ["compare"]
