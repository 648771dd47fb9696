"""reference_curve() keeps recent projections: handed out as copies, dropped when the catalogs change.

Apart from tests/curves/test_reference.py: clearing the kept projections there would make its
other tests, which share them on one worker (``WORKER_UNIT``), project again.
"""

from __future__ import annotations

import pandas as pd

import tokenomics as tk
from tokenomics.curves.reference import reference_curve
from tokenomics.perf.project import project_curve

Y = "throughput_tok_per_s_per_gpu"


def test_a_repeated_projection_is_kept_handed_out_as_a_copy_and_dropped_when_the_catalogs_change(clean_catalogs):
    from tokenomics.curves import reference

    reference._PROJECTIONS.clear()
    _, first = reference_curve("deepseek-r1", "gb300", workload="1k/8k")  # nothing measured: the projection
    assert len(reference._PROJECTIONS) == 1
    first[Y] = 0.0  # the caller's copy
    _, again = reference_curve("deepseek-r1", "gb300", workload="1k/8k")
    assert len(reference._PROJECTIONS) == 1
    fresh = project_curve("deepseek-r1", "gb300", workload=tk.workload("1k/8k"), frontier=True)
    pd.testing.assert_frame_equal(again, fresh)
    assert again.attrs == fresh.attrs
    tk.reset_catalogs()  # catalog values may differ now: projected again
    reference_curve("deepseek-r1", "gb300", workload="1k/8k")
    assert len(reference._PROJECTIONS) == 2
