"""Validate disaggregated-serving projections against measured disaggregated points.

Measured points (all throughputs are input + output tokens/s per GPU of both pools):

* the disaggregated rows of ``data/curves/measured_points.csv`` (InferenceX Dynamo runs on B200,
  B300, GB200/GB300 NVL72, H100, H200 and SGLang + MoRI runs on MI355X; DeepSeek-R1 at 1k/1k and
  8k/1k, DeepSeek-V4-Pro at 8k/1k), matched at their **recorded configuration**. InferenceX runs
  every point from a recipe that fixes both pools (workers x TP / EP / DP-attention), MTP and the
  decode engine's batch limit; ``inferencex_disagg_recipes.csv`` (beside this script) transcribes
  those recipes with their source. Each recipe is projected as a closed loop of its fixed pools
  at its benchmark concurrencies (:func:`~tokenomics.perf.disagg.closed_loop_points`: Little's law
  with prefill queueing and decode slots). Decode pools of recipes that ran TensorRT-LLM
  (``dynamo-trt``) on hardware with measured operator tables run at those kernel rates
  (:func:`~tokenomics.perf.disagg.decode_pool_factors`): the tables are TensorRT-LLM 1.3.0rc20
  kernel latencies (NVIDIA AIConfigurator), and such a pool runs pure decode steps, while the
  bundled calibration is fitted mostly to aggregated serving. Every other pool (SGLang, vLLM,
  MoRI on MI355X; hardware without measured tables) and every prefill pool keeps the bundled
  calibration. Two sensitivity lines repeat the InferenceX points with every decode pool at the
  calibration and at kernel rates.

  - rows with a measured concurrency: the recipe whose concurrency list holds it (of the same
    hardware, model, precision, framework, ISL/OSL and MTP setting where stated). Where several
    do, the one whose GPU count Little's law gives from the measurement
    (``C (ISL + OSL) / (throughput x (TTFT + OSL x TPOT))``) is kept, then the one whose projected
    TPOT is nearest the measured. Projected TPOT and TTFT are printed beside the measured ones;
  - rows read from a published frontier ("throughput at X tok/s/user", no concurrency): the
    envelope of all those recipes' projected points, read at the measured interactivity
    (-100 % where it does not reach it);
  - rows without any transcribed recipe: the projected rate-matched disaggregated frontier
    (:func:`~tokenomics.perf.disagg.project_disagg_curve`) at the measured interactivity;

* the raw MI355X gpt-oss-120b files of ``../shared/data/inferencemax`` (1k/1k, concurrency
  4..512), matched at their recorded configuration: one TP8 prefill and one TP8 decode worker
  (experts tensor-parallel, no expert parallelism, no data-parallel attention), the stock
  checkpoint's precisions (MXFP4 experts; attention, router, embeddings and LM head in BF16,
  the checkpoint's ``modules_to_not_convert``) and vLLM's default BF16 KV cache (no
  ``--quantization`` or ``--kv-cache-dtype`` flag), closed loop at the measured concurrency.
  The layout is recorded beside the result files in the same commit of
  SemiAnalysisAI/InferenceX (a88fcacf72f3, 2026-04-28):
  ``benchmarks/multi_node/vllm_disagg_utils/models.yaml`` (gpt-oss-120b: prefill and decode
  ``--tensor-parallel-size 8``), ``run_P.sh`` / ``run_D.sh`` (``xP=1 yD=1``,
  ``PREFILL_ENABLE_EP`` / ``DECODE_ENABLE_EP`` / ``..._ENABLE_DP`` false) and
  ``amd_utils/server_vllm.sh`` (the serve command).

Rows left out are listed with their reason, among them points dominated under the
measured-frontier rule of :mod:`tokenomics.perf.calibrate` (older or less tuned software).
Error = projected / measured - 1.

Run: python benchmarks/validate_disagg.py
"""

from __future__ import annotations

import functools
import glob
import re
from pathlib import Path

import numpy as np
import pandas as pd

import tokenomics as tk
from tokenomics.perf import ServingConfig, best_practice_precisions
from tokenomics.perf.disagg import (
    Pool,
    ServingPlan,
    best_prefill_config,
    closed_loop_points,
    decode_configs,
    decode_pool_factors,
    project_disagg_curve,
)
from tokenomics.perf.operators import operator_table
from tokenomics.precision import canonical_precision

GOAL_MEDIAN_ABS_ERROR_FRAC = 0.25
REPO = Path(__file__).resolve().parents[1]
RAW = REPO.parent / "shared" / "data" / "inferencemax" / "multinode_disagg_raw_gptoss120b_1k1k"
WORKLOADS = {"1k/1k": (1024.0, 1024.0), "8k/1k": (8192.0, 1024.0)}

RECIPES_CSV = Path(__file__).with_name("inferencex_disagg_recipes.csv")
KERNEL_ENGINE = "dynamo-trt"
"""Framework whose kernels the operator tables measured (TensorRT-LLM, served by Dynamo)."""
RATES = ("engine", "calibration", "kernel")
"""Decode-pool efficiencies: kernel rates where the engine's kernels were measured (headline),
the bundled calibration everywhere, or kernel rates everywhere."""


@functools.cache
def recipes() -> pd.DataFrame:
    """Return the transcribed InferenceX recipes, one row per search-space entry."""
    return pd.read_csv(RECIPES_CSV, comment="#", dtype={"mtp_draft_tokens": "Int64", "decode_batch": str})


def _precisions(model: str, hardware: str, weight: str) -> dict[str, str | None]:
    prec = best_practice_precisions(model, hardware)
    if weight != prec["weight_precision"]:
        # the measured run's weight precision (e.g. FP8 DeepSeek-R1 on Blackwell)
        dense = "fp8" if weight in ("fp4", "fp8") else None
        prec = {**prec, "weight_precision": weight, "dense_weight_precision": dense}
    return prec


def _mtp(model: str, draft_tokens: int) -> dict[str, float | int]:
    if not draft_tokens:
        return {}
    found = [s for s in tk.perf.speculative_settings(model) if s.draft_tokens == draft_tokens]
    if not found:
        raise KeyError(f"no published acceptance rate of {model} at {draft_tokens} draft tokens")
    return found[0].fields()


def _ep_limit(note: object) -> int | None:
    """EP limit a row's note states ("EP<=8", "EP up to 32"), if any."""
    hit = re.search(r"EP\s*(?:<=|up to)\s*(\d+)", str(note))
    return int(hit.group(1)) if hit else None


def _frontier(model: str, hardware: str, isl: float, osl: float, weight: str, spec: str,
              ep_limit: int | None) -> tk.ThroughputCurve:
    prec = _precisions(model, hardware, weight)
    cfgs = decode_configs(model, hardware, **prec)  # type: ignore[arg-type]
    if spec == "mtp":
        cfgs = [c for c in cfgs if c.mtp_draft_tokens]
    elif spec == "none":
        cfgs = [c for c in cfgs if not c.mtp_draft_tokens]
    if ep_limit is not None:
        cfgs = [c for c in cfgs if c.ep <= ep_limit and c.num_gpus <= ep_limit]
    prefill = best_prefill_config(model, hardware, isl_tokens=isl,
                                  configs=tk.perf.prefill_configs(model, hardware, isl_tokens=isl, **prec))
    pts = project_disagg_curve(model, hardware, hardware, isl_tokens=isl, osl_tokens=osl, prefill_config=prefill,
                               decode_configs_=cfgs, with_cost=False)
    return tk.ThroughputCurve.from_points(pts, allow_mixed_groups=True)


def _recipe_unusable(r: pd.Series) -> str | None:
    if pd.isna(r["mtp_draft_tokens"]):
        return "draft tokens not stated"
    n = int(r["mtp_draft_tokens"])
    if n and not any(x.draft_tokens == n for x in tk.perf.speculative_settings(r["model_id"])):
        return f"no published acceptance rate at {n} draft tokens"
    return None


def _recipe_plan(r: pd.Series) -> tuple[ServingPlan, int | None]:
    model = str(r["model_id"])
    prec = _precisions(model, r["hardware_id"], r["precision"])

    def pool(role: str, mtp: int) -> Pool:
        tp, ep, dpa = int(r[f"{role}_tp"]), int(r[f"{role}_ep"]), bool(r[f"{role}_dp_attention"])
        cfg = ServingConfig(tp=tp, ep=ep, dp_attention=dpa, **prec, **_mtp(model, mtp))
        return Pool(hardware=r["hardware_id"], config=cfg, num_gpus=int(r[f"{role}_workers"]) * tp)

    batch = None
    text = r["decode_batch"]
    if isinstance(text, str) and text:
        if text.startswith("total:"):
            batch = int(text.split(":")[1])
        else:
            batch = int(text) * (int(r["decode_tp"]) if bool(r["decode_dp_attention"]) else 1)
    return ServingPlan(prefill=pool("prefill", 0), decode=pool("decode", int(r["mtp_draft_tokens"]))), batch


SKIPPED: dict[str, str] = {}
"""Recipes the model cannot run (a pool whose weights do not fit, as the catalog counts them)."""


def kernel_rates_apply(framework: str, hardware_id: str) -> bool:
    """Whether a decode pool runs at the measured kernel rates under the headline rule."""
    return framework == KERNEL_ENGINE and hardware_id in set(operator_table()["hardware_id"])


@functools.cache
def _recipe_points(index: int, rates: str = "engine") -> pd.DataFrame:
    """Closed loop of one recipe at each of its concurrencies (empty if a pool does not fit)."""
    r = recipes().loc[index]
    plan, batch = _recipe_plan(r)
    conc = [float(c) for c in str(r["concurrency"]).split()]
    kernel = rates == "kernel" or (rates == "engine" and kernel_rates_apply(r["framework"], r["hardware_id"]))
    decode = decode_pool_factors(r["hardware_id"]) if kernel else None
    try:
        pts = closed_loop_points(str(r["model_id"]), plan, conc, isl_tokens=float(r["isl_tokens"]),
                                 osl_tokens=float(r["osl_tokens"]), max_batch_per_replica=batch,
                                 decode_factors=decode)
    except ValueError as exc:
        SKIPPED[str(r["recipe"])] = str(exc).split(";")[0]
        return pd.DataFrame()
    pts["recipe"] = r["recipe"]
    pts["spec_decoding"] = r["spec_decoding"]
    return pts


def _candidates(row: pd.Series, spec: str) -> pd.DataFrame:
    rec = recipes()
    isl, osl = WORKLOADS[row["workload"]]
    same = rec[(rec["model_id"] == row["model_id"]) & (rec["hardware_id"] == row["hardware_id"])
               & (rec["precision"] == row["precision"]) & (rec["framework"] == row["framework"])
               & (rec["isl_tokens"] == isl) & (rec["osl_tokens"] == osl)]
    if spec in ("mtp", "none"):
        same = same[same["spec_decoding"] == spec]
    return same[[_recipe_unusable(r) is None for _, r in same.iterrows()]]


def _at_concurrency(row: pd.Series, cands: pd.DataFrame, rates: str = "engine") -> dict[str, object] | None:
    """Project a row at the recipe that ran its concurrency (Little's-law GPU count, then nearest TPOT)."""
    conc = float(row["concurrency"])
    hits = cands[[conc in [float(c) for c in str(x).split()] for x in cands["concurrency"]]]
    if hits.empty:
        return None
    isl, osl = WORKLOADS[row["workload"]]
    meas = float(row["throughput_tok_per_s_per_gpu"])
    tpot, ttft = float(row["tpot_median_s"]), float(row["ttft_median_s"])
    gpus = conc * (isl + osl) / (meas * (ttft + osl * tpot))
    sizes = hits["prefill_workers"] * hits["prefill_tp"] + hits["decode_workers"] * hits["decode_tp"]
    hits = hits[(sizes - gpus).abs() == (sizes - gpus).abs().min()]
    best: dict[str, object] | None = None
    for i in hits.index:
        pts = _recipe_points(int(i), rates)
        if pts.empty:
            continue
        p = pts[pts["concurrency"] == conc].iloc[0]
        if best is None or abs(np.log(p["tpot_s"] / tpot)) < abs(np.log(best["projected_tpot_ms"] / 1e3 / tpot)):  # type: ignore[operator]
            best = {"recipe": p["recipe"], "spec_decoding": p["spec_decoding"], "num_gpus": float(p["num_gpus"]),
                    "littles_law_gpus": gpus, "projected_tok_per_s_per_gpu": float(p["throughput_tok_per_s_per_gpu"]),
                    "measured_tpot_ms": 1e3 * tpot, "projected_tpot_ms": 1e3 * float(p["tpot_s"]),
                    "measured_ttft_s": ttft, "projected_ttft_s": float(p["ttft_s"]), "bound": p["bound"]}
    return best


def _envelope_at(cands: pd.DataFrame, x: float, rates: str = "engine") -> tuple[float, str]:
    """Throughput of the recipes' projected envelope at interactivity ``x`` (NaN above its reach)."""
    pts = pd.concat([_recipe_points(int(i), rates) for i in cands.index], ignore_index=True)
    if pts.empty:
        return float("nan"), ""
    ok = pts[pts["interactivity_tok_per_s_per_user"] >= x]
    if ok.empty:
        return float("nan"), ""
    best = ok.loc[ok["throughput_tok_per_s_per_gpu"].idxmax()]
    # between envelope knots: log-linear to the next slower point of higher throughput
    slower = pts[(pts["interactivity_tok_per_s_per_user"] < x)
                 & (pts["throughput_tok_per_s_per_gpu"] > best["throughput_tok_per_s_per_gpu"])]
    y = float(best["throughput_tok_per_s_per_gpu"])
    if not slower.empty:
        nxt = slower.loc[slower["interactivity_tok_per_s_per_user"].idxmax()]
        x0, x1 = float(best["interactivity_tok_per_s_per_user"]), float(nxt["interactivity_tok_per_s_per_user"])
        y1 = float(nxt["throughput_tok_per_s_per_gpu"])
        w = np.log(x0 / x) / np.log(x0 / x1)
        y = float(np.exp((1 - w) * np.log(y) + w * np.log(y1)))
    return y, str(best["recipe"])


def _dominated(pts: pd.DataFrame) -> dict[int, str]:
    """Rows dropped by the measured-frontier rule of :mod:`tokenomics.perf.calibrate`, by row label.

    Within one (hardware, model, precision) group a point is dominated when another
    measurement at an at least as heavy workload (ISL + OSL and ISL / OSL no smaller) reaches at
    least its output tokens/s per GPU at at least its interactivity, better in one: older or
    less tuned software, which a roofline of well-optimised serving does not project.
    """
    isl, osl = pts["isl_tokens"].astype(float), pts["osl_tokens"].astype(float)
    out = pts["output_throughput_tok_per_s_per_gpu"].astype(float).fillna(
        pts["throughput_tok_per_s_per_gpu"].astype(float) * osl / (isl + osl))
    x = pts["interactivity_tok_per_s_per_user"].astype(float)
    prec = pts["precision"].map(lambda v: canonical_precision(v) if isinstance(v, str) else v)
    found: dict[int, str] = {}
    for _, g in pts.assign(_precision=prec).groupby(["hardware_id", "model_id", "_precision"]):
        for i in g.index:
            for j in g.index:
                if i == j or not np.isfinite([out[i], out[j], x[i], x[j]]).all():
                    continue
                heavier = isl[j] + osl[j] >= isl[i] + osl[i] and isl[j] / osl[j] >= isl[i] / osl[i]
                if heavier and out[j] >= out[i] and x[j] >= x[i] and (out[j] > out[i] or x[j] > x[i]):
                    found[int(i)] = (f"dominated (measured-frontier rule) by row {j} ({pts.loc[j, 'framework']}, "
                                     f"{pts.loc[j, 'as_of']}): {out[j]:.0f} vs {out[i]:.0f} output tok/s/GPU at "
                                     f"{x[j]:.1f} vs {x[i]:.1f} tok/s/user")
                    break
    return found


def inferencex_rows(rates: str = "engine") -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Return the matched InferenceX rows with their errors, the recipe details and the rows left out.

    ``rates`` (one of :data:`RATES`) says which decode pools run at
    :func:`~tokenomics.perf.disagg.decode_pool_factors`: ``"engine"`` (the headline) those of
    TensorRT-LLM recipes on hardware with measured tables, ``"kernel"`` all, ``"calibration"``
    none.
    """
    if rates not in RATES:
        raise ValueError(f"rates={rates!r} must be one of {RATES}")
    pts = pd.read_csv(REPO / "data" / "curves" / "measured_points.csv")
    dis = pts[pts["disaggregated"].astype("boolean").fillna(False)]
    dominated = _dominated(pts)
    used, left = [], []
    for i, row in dis.iterrows():
        fw = str(row["framework"])
        reason = dominated.get(int(i))
        if reason:
            pass
        elif not (recipes()["framework"] == fw).any():
            reason = f"no transcribed recipe of the framework ({fw})"
        elif row["model_id"] not in tk.model_table().index:
            reason = f"model {row['model_id']} not in the catalog"
        elif pd.isna(row["throughput_tok_per_s_per_gpu"]):
            reason = "no throughput per GPU of both pools (output per decode GPU only, prefill GPUs not stated)"
        elif row["workload"] not in WORKLOADS:
            reason = f"workload {row['workload']!r}: ISL/OSL not stated"
        elif row["spec_decoding"] == "mtp" and not tk.perf.speculative_settings(row["model_id"]):
            reason = "MTP run of a model without a published acceptance rate"
        if reason:
            left.append({"row": i, "hardware_id": row["hardware_id"], "model_id": row["model_id"],
                         "workload": row["workload"], "reason": reason})
            continue
        used.append(row)
    cache: dict[tuple[object, ...], tk.ThroughputCurve] = {}
    out, details = [], []
    for row in used:
        isl, osl = WORKLOADS[row["workload"]]
        spec = "any" if pd.isna(row["spec_decoding"]) else str(row["spec_decoding"])
        meas = float(row["throughput_tok_per_s_per_gpu"])
        x = float(row["interactivity_tok_per_s_per_user"])
        cands = _candidates(row, spec)
        exact = (_at_concurrency(row, cands, rates) if pd.notna(row["concurrency"]) and not cands.empty
                 else None)
        if exact is not None:
            proj = float(exact["projected_tok_per_s_per_gpu"])  # type: ignore[arg-type]
            spec = f"{exact['spec_decoding']} (recipe)"
            match = "recipe of the measured concurrency, closed loop"
            details.append({"hardware_id": row["hardware_id"], "workload": row["workload"],
                            "precision": row["precision"], "concurrency": row["concurrency"], **exact})
        elif not cands.empty:
            proj, _ = _envelope_at(cands, x, rates)
            match = f"envelope of {len(cands)} recipes, closed loop"
        else:
            limit = _ep_limit(row["note"])
            key = (row["model_id"], row["hardware_id"], row["workload"], row["precision"], spec, limit)
            if key not in cache:
                cache[key] = _frontier(row["model_id"], row["hardware_id"], isl, osl, row["precision"], spec, limit)
            proj = float(cache[key].throughput_at(x))
            match = "rate-matched frontier (no recipe)" + (f", EP <= {limit}" if limit else "")
        out.append({"hardware_id": row["hardware_id"], "model_id": row["model_id"], "workload": row["workload"],
                    "precision": row["precision"], "spec_decoding": spec, "framework": row["framework"],
                    "interactivity_tok_per_s_per_user": x, "measured_tok_per_s_per_gpu": meas,
                    "projected_tok_per_s_per_gpu": proj,
                    "error_frac": (proj / meas - 1.0) if np.isfinite(proj) else -1.0,
                    "match": match})
    return pd.DataFrame(out), pd.DataFrame(details), pd.DataFrame(left)


RAW_PRECISIONS: dict[str, str] = {"weight_precision": "fp4", "dense_weight_precision": "bf16",
                                  "kv_precision": "bf16"}
"""Recorded precisions of the MI355X gpt-oss run: the checkpoint's MXFP4 experts, BF16 elsewhere."""


def default_search_rows(ix: pd.DataFrame) -> pd.DataFrame:
    """The library's default disaggregated search at each row's interactivity (a diagnostic).

    :func:`~tokenomics.perf.disagg.project_disagg_curve` over every decode parallelism (with and
    without the published MTP settings, as the row states) with the prefill pool sized by rate
    matching: what the default projection claims reachable, not the recipe that ran.
    """
    out = []
    cache: dict[tuple[object, ...], tk.ThroughputCurve] = {}
    for _, row in ix.iterrows():
        spec = str(row["spec_decoding"]).split(" ")[0]
        spec = spec if spec in ("mtp", "none") else "any"
        isl, osl = WORKLOADS[row["workload"]]
        key = (row["model_id"], row["hardware_id"], row["workload"], row["precision"], spec)
        try:
            if key not in cache:
                cache[key] = _frontier(row["model_id"], row["hardware_id"], isl, osl, row["precision"], spec, None)
            proj = float(cache[key].throughput_at(float(row["interactivity_tok_per_s_per_user"])))
        except ValueError:
            proj = float("nan")
        meas = float(row["measured_tok_per_s_per_gpu"])
        out.append({**{c: row[c] for c in ("hardware_id", "model_id", "workload", "precision", "spec_decoding",
                                           "interactivity_tok_per_s_per_user")},
                    "measured_tok_per_s_per_gpu": meas, "default_search_tok_per_s_per_gpu": proj,
                    "error_frac": proj / meas - 1.0 if np.isfinite(proj) else -1.0})
    return pd.DataFrame(out)


def _raw_points() -> pd.DataFrame:
    files = sorted(glob.glob(str(RAW / "*.json")))
    if not files:
        return pd.DataFrame()
    return pd.concat([tk.read_inferencex(f, hardware="mi355x") for f in files]).sort_values("concurrency")


def _raw_plan(cfg: ServingConfig) -> ServingPlan:
    return ServingPlan(prefill=Pool(hardware="mi355x", config=cfg, num_gpus=8),
                       decode=Pool(hardware="mi355x", config=cfg, num_gpus=8))


def raw_mi355x_rows() -> pd.DataFrame:
    """Return the MI355X gpt-oss 8 + 8 raw points projected at their recorded configuration."""
    meas = _raw_points()
    if meas.empty:
        print(f"raw MI355X files not found under {RAW}: left out")
        return meas
    conc = meas["concurrency"].to_numpy(dtype=float)
    proj = closed_loop_points("gpt-oss-120b", _raw_plan(ServingConfig(tp=8, **RAW_PRECISIONS)), conc,
                              isl_tokens=1024.0, osl_tokens=1024.0)
    # the measured-frontier rule against every bundled measurement (aggregated ones included)
    pts = pd.read_csv(REPO / "data" / "curves" / "measured_points.csv")
    raw_rows = pd.DataFrame({
        "hardware_id": "mi355x", "model_id": "gpt-oss-120b", "precision": "mxfp4", "framework": "vllm-disagg",
        "as_of": "2026-04-28", "isl_tokens": 1024.0, "osl_tokens": 1024.0,
        "throughput_tok_per_s_per_gpu": meas["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float),
        "output_throughput_tok_per_s_per_gpu": np.nan,
        "interactivity_tok_per_s_per_user": meas["interactivity_tok_per_s_per_user"].to_numpy(dtype=float),
    }, index=range(len(pts), len(pts) + len(meas)))
    dominated = _dominated(pd.concat([pts, raw_rows]))
    left = [dominated.get(int(i), "") for i in raw_rows.index]
    return pd.DataFrame({
        "hardware_id": "mi355x", "model_id": "gpt-oss-120b", "workload": "1k/1k", "precision": "mxfp4",
        "spec_decoding": "none", "framework": "vllm-disagg", "concurrency": conc,
        "interactivity_tok_per_s_per_user": meas["interactivity_tok_per_s_per_user"].to_numpy(dtype=float),
        "projected_interactivity_tok_per_s_per_user": proj["interactivity_tok_per_s_per_user"].to_numpy(),
        "measured_tok_per_s_per_gpu": meas["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float),
        "projected_tok_per_s_per_gpu": proj["throughput_tok_per_s_per_gpu"].to_numpy(),
        "measured_ttft_s": meas["ttft_median_s"].to_numpy(dtype=float),
        "projected_ttft_s": proj["ttft_s"].to_numpy(),
        "error_frac": proj["throughput_tok_per_s_per_gpu"].to_numpy()
        / meas["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float) - 1.0,
        "match": "recorded 1 x TP8 + 1 x TP8, checkpoint precisions, closed loop",
        "left_out": left,
    })


def raw_layout_sensitivity() -> pd.DataFrame:
    """Median error of the raw MI355X points under other layouts per role (the recorded one first)."""
    meas = _raw_points()
    if meas.empty:
        return meas
    conc = meas["concurrency"].to_numpy(dtype=float)
    prec = RAW_PRECISIONS
    rows = []
    for name, cfg in (("TP8 (recorded, headline)", ServingConfig(tp=8, **prec)),
                      ("TP8 + EP8", ServingConfig(tp=8, ep=8, **prec)),
                      ("TP8, DP-attention, EP8", ServingConfig(tp=8, ep=8, dp_attention=True, **prec)),
                      ("4 x TP2", ServingConfig(tp=2, ep=2, **prec)),
                      ("8 x TP1", ServingConfig(tp=1, **prec))):
        p = closed_loop_points("gpt-oss-120b", _raw_plan(cfg), conc, isl_tokens=1024.0, osl_tokens=1024.0)
        e = p["throughput_tok_per_s_per_gpu"].to_numpy() / meas["throughput_tok_per_s_per_gpu"].to_numpy(float) - 1
        rows.append({"layout per role": name, "median_abs_error_pct": round(100 * float(np.median(np.abs(e))), 1),
                     "signed_median_pct": round(100 * float(np.median(e)), 1)})
    return pd.DataFrame(rows)


def main() -> None:
    pd.set_option("display.width", 220)
    pd.set_option("display.max_columns", 20)
    pd.set_option("display.max_colwidth", 70)
    ix, details, left = inferencex_rows()
    raw = raw_mi355x_rows()
    if not left.empty:
        print("Left out (disaggregated rows of measured_points.csv):")
        print(left.to_string(index=False))
        print()
    cols = ["hardware_id", "model_id", "workload", "precision", "spec_decoding", "interactivity_tok_per_s_per_user",
            "measured_tok_per_s_per_gpu", "projected_tok_per_s_per_gpu", "error_frac", "match"]
    print("InferenceX disaggregated points (same hardware both pools), recorded recipes:")
    print(ix[cols].round(3).to_string(index=False))
    if not details.empty:
        print()
        print("Rows at the recipe of their measured concurrency (inferencex_disagg_recipes.csv):")
        print(details.round(3).to_string(index=False))
    if not raw.empty:
        print()
        print("MI355X gpt-oss-120b 1k/1k, 8 prefill + 8 decode GPUs (recorded configuration, closed loop):")
        rc = ["concurrency", "interactivity_tok_per_s_per_user", "projected_interactivity_tok_per_s_per_user",
              "measured_ttft_s", "projected_ttft_s", "measured_tok_per_s_per_gpu", "projected_tok_per_s_per_gpu",
              "error_frac"]
        print(raw[rc].round(3).to_string(index=False))
        for c, why in zip(raw["concurrency"], raw["left_out"], strict=True):
            if why:
                print(f"  concurrency {c:g} left out: {why}")
        print()
        print("Sensitivity of the MI355X run to the layout per role (the headline is the recorded TP8 of")
        print("InferenceX a88fcacf72f3 benchmarks/multi_node/vllm_disagg_utils):")
        print(raw_layout_sensitivity().to_string(index=False))
    if SKIPPED:
        print()
        print("Recipes the model cannot run (left out of their envelope):")
        for name, why in SKIPPED.items():
            print(f"  {name}: {why}")
    search = default_search_rows(ix[ix["model_id"] == "deepseek-r1"])
    print()
    print("Diagnostic, not in the headline: the default search (rate-matched pools over every parallelism) at")
    print("the measured interactivity of the DeepSeek-R1 rows:")
    print(search.round(3).to_string(index=False))
    print(f"default search: median abs error {100 * search['error_frac'].abs().median():.1f} %, signed median "
          f"{100 * search['error_frac'].median():+.1f} % (n={len(search)})")
    print()
    print("Decode pools at measured kernel rates (decode_pool_factors) in the headline: "
          + ", ".join(sorted({f"{h} {w}" for h, w, f in zip(ix["hardware_id"], ix["workload"], ix["framework"],
                                                            strict=True) if kernel_rates_apply(f, h)})))
    for rates, what in (("calibration", "every decode pool at the bundled calibration"),
                        ("kernel", "every decode pool at measured kernel rates")):
        alt = inferencex_rows(rates)[0]
        e = alt["error_frac"].abs()
        rec = alt["match"].str.startswith("recipe")
        print(f"Sensitivity, not in the headline: {what}:")
        print(f"  recipe points: median abs error {100 * e[rec].median():.1f} %, signed "
              f"{100 * alt['error_frac'][rec].median():+.1f} % (n={int(rec.sum())}); all InferenceX points: "
              f"{100 * e.median():.1f} % (n={len(e)})")
    kept_raw = raw[raw["left_out"] == ""] if not raw.empty else raw
    allp = pd.concat([ix, kept_raw], ignore_index=True)
    err = allp["error_frac"].abs().to_numpy(dtype=float)
    print()
    for name, part in [(f"InferenceX, {m}", ix[ix["match"].str.startswith(m)])
                       for m in ("recipe", "envelope", "rate-matched")] + [("MI355X raw 8+8 (not left out)", kept_raw)]:
        if not part.empty:
            e = part["error_frac"].abs().to_numpy(dtype=float)
            print(f"{name}: median abs error {100 * np.median(e):.1f} % (n={len(e)}), "
                  f"signed median {100 * np.median(part['error_frac']):+.1f} %")
    within = int((err <= GOAL_MEDIAN_ABS_ERROR_FRAC).sum())
    print(f"points within {100 * GOAL_MEDIAN_ABS_ERROR_FRAC:.0f} %: {within} of {len(err)}; "
          f"goal: median <= {100 * GOAL_MEDIAN_ABS_ERROR_FRAC:.0f} %")
    if not raw.empty and len(kept_raw) < len(raw):
        every = np.abs(pd.concat([ix, raw], ignore_index=True)["error_frac"].to_numpy(dtype=float))
        print(f"with the {len(raw) - len(kept_raw)} MI355X raw points the measured-frontier rule leaves out: "
              f"median abs error {100 * np.median(every):.1f} % (n={len(every)})")
    print(f"disagg median abs error {100 * np.median(err):.1f} % (n={len(err)})")


if __name__ == "__main__":
    main()
