"""Refit the bundled roofline calibration and store it: ``python -m tokenomics.perf --write``.

Without ``--write`` the fit is run and compared with the stored file (exit status 1 when they
differ), so the command also checks whether the stored factors are stale.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from tokenomics.perf.calibrate import Calibration


def main(argv: list[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 written or up to date, 1 the stored file differs from a fresh fit.
    """
    from tokenomics.perf.calibrate import (
        calibrate,
        calibrated_factors_path,
        calibration_table,
        load_calibration,
        write_calibrated_factors,
    )

    parser = argparse.ArgumentParser(prog="python -m tokenomics.perf", description=__doc__)
    parser.add_argument("--write", action="store_true", help="store the fresh fit in the bundled file")
    parser.add_argument("--path", default=None, help="file to write or compare (default: the bundled one)")
    args = parser.parse_args(argv)
    cal = calibrate()
    if args.write:
        out = write_calibrated_factors(args.path, calibration=cal)
        print(f"wrote {out}")
        return 0
    def values(c: Calibration) -> pd.Series:
        return calibration_table(c).set_index(["scope", "parameter"])["value"].astype(float).sort_index()

    fresh, stored = values(cal), values(load_calibration(args.path))
    same = fresh.index.equals(stored.index) and bool(np.allclose(fresh, stored, rtol=1e-6))
    where = args.path or calibrated_factors_path()
    print(f"{where} is {'up to date' if same else 'STALE: rerun with --write'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
