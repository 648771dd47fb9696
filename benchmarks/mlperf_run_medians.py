"""Transcribe the median TPOT, TTFT and latency of MLPerf runs into the measured-point catalog.

The bundled MLPerf Server and Interactive rows of ``data/curves/measured_points.csv`` come from
the rounds' ``summary_results.json``, which states only throughput; the scenario bounds the
99th-percentile TPOT, so such a row is a floor (``kind = "floor"``, interactivity =
``1 / TPOT_limit``). Each run's LoadGen summary states its median TPOT: this script reads the
summaries from local copies of the results repositories (:func:`tokenomics.read_mlperf` with
``logs=``) and, for every floor row whose run it finds, writes ``kind = "measured"``, the
interactivity ``1 / median TPOT`` (p90 likewise), the median TTFT, TPOT and end-to-end latency,
and a note naming the summary file and the repository commit it was read at.

Run (dry run, prints what would change):
    python benchmarks/mlperf_run_medians.py --round v5.1=PATH_TO/inference_results_v5.1 \
        --round v6.0=PATH_TO/inference_results_v6.0
Add ``--write`` to rewrite the catalog file.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

import tokenomics as tk
from tokenomics.curves.ingest import resolve_model_name
from tokenomics.curves.ingest.mlperf import _benchmark_base

REPO = Path(__file__).resolve().parents[1]
CATALOG = REPO / "data" / "curves" / "measured_points.csv"
SUMMARIES = {
    "v5.1": "inference_results_v5.1_summary_results.json",
    "v6.0": "inference_results_v6.0_summary_results.json",
}
REPOSITORIES = {
    "v5.1": "github.com/mlcommons/inference_results_v5.1",
    # the summary of v6.0 and its run logs were read from a fork whose closed/ results are the
    # official publication commit ab33b21 (MLCommons, 2026-03-26) unchanged
    "v6.0": "github.com/mlcommons/inference_results_v6.0",
}
DATASET_MEAN_ISL_TOKENS = {
    # benchmark model -> mean input tokens of its MLPerf dataset, computed from the per-sample
    # token lengths in github.com/openshift-psap/performance-dashboard @7100702 (2026-07-30),
    # mlperf-data/summaries/<file> (token counts of the MLCommons dataset files; the same table
    # gives Llama 3.1 405B a mean reference output of 684.68 tokens, the MLCommons reference value)
    "llama-2-70b": 222.33,      # llama2-70b-99.csv, 24,576 OpenOrca samples
    "llama-3.1-405b": 9428.64,  # llama3-1-405b.csv, 8,313 samples
    "llama-3.1-8b": 870.73,     # llama3-1-8b-datacenter.csv, 13,368 CNN/DailyMail samples
    "deepseek-r1": 803.79,      # deepseek-r1.csv, 4,388 samples
    "gpt-oss-120b": 5010.64,    # datasets/summaries/gpt-oss.csv, 6,396 performance samples
    "mixtral-8x7b": 427.39,     # mixtral-8x7b.csv, 15,000 OpenOrca, GSM8K and MBXP samples
}
"""Mean ISL per MLPerf benchmark [tokens]; the OSL is the median over the rounds' Server and
Interactive runs of LoadGen's output tokens per sample (their generated lengths)."""
REQUIRED_SPECULATION = {("deepseek-r1", "mlperf-interactive"): "mtp"}
"""Scenarios whose rules prescribe speculative decoding: the DeepSeek-R1 Interactive scenario
(v6.0) standardises EAGLE-style decoding with the model's MTP head
(https://mlcommons.org/2026/03/mlperf-inference-gpt-oss, 2026-03)."""
MEDIAN_COLUMNS = ("interactivity_tok_per_s_per_user", "interactivity_p90_tok_per_s_per_user",
                  "ttft_median_s", "tpot_median_s", "e2el_median_s")


def _commit(root: Path) -> str:
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"],
                         capture_output=True, text=True, check=False)
    return out.stdout.strip()


def run_medians(roots: dict[str, tuple[Path, str]], summaries: Path) -> pd.DataFrame:
    """Measured-median points of every Server/Interactive run found, keyed by round, ID and model."""
    parts = []
    for rnd, (root, commit) in roots.items():
        pts = tk.read_mlperf(summaries / SUMMARIES[rnd], logs=root)
        pts = pts[pts["kind"] == "measured"]
        pts = pts[pts["workload"].isin(("mlperf-server", "mlperf-interactive"))].copy()
        ident = pts["source"].str.split("#").str[1]
        pts["result_id"] = ident.str.split("/").str[0]
        pts["round"] = rnd
        pts["where"] = f"{REPOSITORIES[rnd]} @{commit}"
        parts.append(pts)
    return pd.concat(parts, ignore_index=True)


def run_osl(roots: dict[str, tuple[Path, str]]) -> dict[str, float]:
    """Median output tokens per sample of each benchmark's Server/Interactive runs [tokens]."""
    per: dict[str, list[float]] = {}
    for root, _ in roots.values():
        for f in root.glob("closed/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt"):
            try:
                log = tk.read_mlperf_log(f)
            except tk.IngestError:  # not a token benchmark (vision, recommendation)
                continue
            bench = f.parts[-5]
            model_id, _ = resolve_model_name(_benchmark_base(bench.replace("llama3_1", "llama3.1")))
            per.setdefault(model_id, []).append(float(log["output_tokens_per_sample"]))
    return {m: float(np.median(v)) for m, v in per.items()}


LENGTH_NOTE = "ISL/OSL = dataset mean input and median run output (data/curves/README.md)"
STALE_LENGTH_NOTES = ("; OSL = dataset mean (data/curves/README.md)",
                      "; mean ISL not sourced so not used in calibration",
                      "; ISL/OSL = dataset means (data/curves/README.md)",
                      "; dataset mean ISL/OSL not sourced so not used in calibration")
"""Note fragments of the earlier length conventions, replaced by :data:`LENGTH_NOTE`."""


def set_lengths(catalog: pd.DataFrame, osl: dict[str, float]) -> int:
    """Write each MLPerf row's ISL (dataset mean) and OSL (median run), in place; return rows changed."""
    changed = 0
    rows = catalog["workload"].str.startswith("mlperf-") & catalog["model_id"].isin(list(DATASET_MEAN_ISL_TOKENS))
    for i in catalog.index[rows]:
        m = catalog.loc[i, "model_id"]
        if m not in osl:
            continue
        new = (format(DATASET_MEAN_ISL_TOKENS[m], ".6g"), format(osl[m], ".4g"))
        if (catalog.loc[i, "isl_tokens"], catalog.loc[i, "osl_tokens"]) != new:
            catalog.loc[i, "isl_tokens"], catalog.loc[i, "osl_tokens"] = new
            changed += 1
        note = str(catalog.loc[i, "note"])
        for stale in STALE_LENGTH_NOTES:
            note = note.replace(stale, "")
        if "ISL/OSL" not in note:
            note = note.replace("output tokens only", f"output tokens only; {LENGTH_NOTE}", 1)
        catalog.loc[i, "note"] = note
    return changed


def mark_speculation(catalog: pd.DataFrame) -> int:
    """Label the rows of scenarios that prescribe speculative decoding, in place; return rows changed."""
    changed = 0
    for (model_id, workload), spec in REQUIRED_SPECULATION.items():
        rows = (catalog["model_id"] == model_id) & (catalog["workload"] == workload)
        for i in catalog.index[rows & (catalog["spec_decoding"] != spec)]:
            catalog.loc[i, "spec_decoding"] = spec
            catalog.loc[i, "note"] = (f"{catalog.loc[i, 'note']}; speculative decoding with the MTP head, "
                                      "as the scenario prescribes (number of draft tokens not stated)")
            changed += 1
    return changed


def transcribe(catalog: pd.DataFrame, medians: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Return the catalog with each matched floor row made measured, and the number changed."""
    out = catalog.copy()  # text cells: rows left alone are written back unchanged
    floors = out.index[(out["kind"] == "floor") & out["workload"].isin(("mlperf-server", "mlperf-interactive"))]
    changed = 0
    for i in floors:
        row = out.loc[i]
        rid = str(row["source"]).rsplit("ID ", 1)[-1].strip()
        cand = medians[(medians["result_id"] == rid) & (medians["workload"] == row["workload"])
                       & (medians["model_id"] == row["model_id"])]
        cand = cand[np.isclose(cand["output_throughput_tok_per_s_per_gpu"],
                               float(row["output_throughput_tok_per_s_per_gpu"]), rtol=1e-4)]
        if cand.empty:
            continue
        m = cand.iloc[0]
        for col in MEDIAN_COLUMNS:
            out.loc[i, col] = format(float(m[col]), ".6g")
        out.loc[i, "kind"] = "measured"
        log = str(m["note"]).rsplit("LoadGen summary (", 1)[-1].rstrip(")")
        out.loc[i, "note"] = (f"{row['note']}; interactivity = 1 / median TPOT ({1e3 * m['tpot_median_s']:.1f} ms) "
                              f"of the run's LoadGen summary {log} ({m['where']})")
        changed += 1
    return out, changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", action="append", required=True, metavar="ROUND=PATH[@COMMIT]",
                        help="a round (v5.1, v6.0), the root of a local copy of its results repository "
                             "and, where that copy is no git checkout, the commit it holds")
    parser.add_argument("--summaries", type=Path, default=REPO.parent / "shared" / "data" / "mlperf",
                        help="folder with the rounds' summary_results.json files")
    parser.add_argument("--write", action="store_true", help="rewrite data/curves/measured_points.csv")
    args = parser.parse_args()
    roots = {}
    for item in args.round:
        rnd, _, spec = item.partition("=")
        if rnd not in SUMMARIES:
            parser.error(f"--round {item!r}: round must be one of {sorted(SUMMARIES)}")
        path, _, commit = spec.partition("@")
        commit = commit or _commit(Path(path))
        if not commit:
            parser.error(f"--round {item!r}: {path} is no git checkout; append @COMMIT")
        roots[rnd] = (Path(path), commit)
    catalog = pd.read_csv(CATALOG, dtype=str, keep_default_na=False)
    medians = run_medians(roots, args.summaries)
    updated, changed = transcribe(catalog, medians)
    osl = run_osl(roots)
    lengths = set_lengths(updated, osl)
    spec = mark_speculation(updated)
    left = int((updated["kind"] == "floor").sum())
    print(f"run summaries read: {len(medians)}; floor rows made measured: {changed}; floors left: {left}")
    print("median output tokens per sample: " + ", ".join(f"{m} {v:.1f}" for m, v in sorted(osl.items())))
    print(f"rows given ISL/OSL: {lengths}; rows labelled with the speculative decoding their scenario "
          f"prescribes: {spec}")
    if args.write:
        updated.to_csv(CATALOG, index=False)
        print(f"wrote {CATALOG}")


if __name__ == "__main__":
    main()
