"""Transcribe GPUStack's performance-lab throughput runs into the measured-point catalog.

GPUStack (github.com/gpustack/gpustack, ``docs/performance-lab/<model>/<gpu>.md``) publishes, per
model and GPU, the printed result of every ``vllm bench serve`` run of its tuning experiments:
ShareGPT (1,000 prompts) and random-length datasets (500 prompts of 4,000 / 200 and 2,000 / 100
tokens, 100 of 32,000 / 100), each sent at once (request rate infinite), under the serving
command printed above it (vLLM, SGLang or TensorRT-LLM; parallelism and checkpoint in its flags).
This script reads those pages from a local copy of the repository (a clone or a bare mirror: it
reads with ``git show``) and writes one row per run:

- ``throughput_tok_per_s_per_gpu``: the run's total token throughput (input + output tokens over
  the benchmark duration, which includes the ramp and the tail of the burst) over the GPUs of its
  serving command (``tp x pp``);
- ``interactivity_tok_per_s_per_user``: ``1 / median TPOT``; ``ttft_median_s``, ``tpot_median_s``;
- ``isl_tokens``, ``osl_tokens``: the run's own means (total input / generated tokens over the
  requests), ``workload`` the dataset (``sharegpt``, or the random dataset's nominal ``ISL/OSL``);
- ``concurrency``: only where the client capped it (the runs labelled ``ShareGPT batch size N``);
  a burst of all requests is capped by the engine's own batch limit, which the page does not
  state, so those rows are frontier points;
- ``precision``: FP8 for an ``-FP8`` checkpoint, else the model's native precision.

Not transcribed, with the reason: runs with speculative decoding (draft settings not modelled
from the flags), the random 128 / 4 dataset (four output tokens: its TPOT is queueing behind the
burst's prefills, not a decode speed), runs that failed, runs whose command sets data
parallelism (replica count not stated) or pipeline parallelism (the catalog has no PP column).

Run (dry run, prints the rows):
    python benchmarks/gpustack_points.py --repo PATH_TO/gpustack
Add ``--write`` to replace the GPUStack rows of data/curves/measured_points.csv.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
from pathlib import Path

import pandas as pd

import tokenomics as tk

REPO = Path(__file__).resolve().parents[1]
CATALOG = REPO / "data" / "curves" / "measured_points.csv"
SOURCE_PREFIX = "https://github.com/gpustack/gpustack/blob/"
PAGES = {
    "docs/performance-lab/qwen3-32b/h100.md": ("qwen3-32b", "h100-sxm"),
    "docs/performance-lab/qwen3-235b-a22b/h100.md": ("qwen3-235b-a22b", "h100-sxm"),
    "docs/performance-lab/gpt-oss-120b/h100.md": ("gpt-oss-120b", "h100-sxm"),
    "docs/performance-lab/deepseek-r1/h200.md": ("deepseek-r1", "h200-sxm"),
}
"""Pages read -> (catalog model, catalog hardware)."""
RANDOM_DATASETS = {"32k": "32000/100", "4k": "4000/200", "2k": "2000/100", "128": "128/4"}
"""Comment of a random-dataset run (``# random 4K input``) -> its nominal ISL/OSL."""
SKIPPED_WORKLOADS = {"128/4": "four output tokens: the TPOT is queueing behind the burst's prefills"}
ENGINES = (("vllm serve", "vllm"), ("sglang.launch_server", "sglang"), ("trtllm-serve", "trt"))
FLAG_SIZES = {
    "tp": ("-tp", "--tensor-parallel-size", "--tp-size", "--tp", "--tp_size"),
    "pp": ("-pp", "--pipeline-parallel-size", "--pp-size", "--pp_size"),
    "dp": ("-dp", "--data-parallel-size", "--dp-size", "--dp"),
    "ep": ("--ep-size", "--ep_size", "--ep"),
}


def _flag(tokens: list[str], names: tuple[str, ...]) -> int | None:
    for i, tok in enumerate(tokens):
        name, _, value = tok.partition("=")
        if name in names:
            return int(value or tokens[i + 1])
    return None


def parse_command(line: str) -> dict[str, object]:
    """Engine, parallelism, checkpoint and flags of one serving command."""
    engine = next(e for key, e in ENGINES if key in line)
    tokens = shlex.split(line.strip())
    sizes = {k: _flag(tokens, names) for k, names in FLAG_SIZES.items()}
    tp, pp = sizes["tp"] or 1, sizes["pp"] or 1
    ep = sizes["ep"] or (tp * pp if "--enable-expert-parallel" in tokens or "--enable-ep-moe" in tokens else 1)
    checkpoint = next((t for t in tokens if "/" in t and not t.startswith("-")), "")
    return {
        "engine": engine, "tp": tp, "pp": pp, "ep": ep, "dp": sizes["dp"],
        "dp_attention": "--enable-dp-attention" in tokens,
        "speculative": any(t.startswith("--speculative") for t in tokens),
        "fp8": checkpoint.upper().endswith("-FP8"),
        "command": line.strip(),
    }


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def parse_page(text: str) -> list[dict[str, object]]:
    """Every benchmark result block of a page with the serving command and dataset it ran under."""
    lines = text.splitlines()
    runs: list[dict[str, object]] = []
    command: dict[str, object] | None = None
    dataset, clients = "sharegpt", None
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if any(key in line for key, _ in ENGINES) and not stripped.startswith(("#", "|", "!")) \
                and "bench serve" not in line and "Recommended" not in line:
            command = parse_command(stripped)
            dataset, clients = "sharegpt", None
        elif stripped.startswith("# random"):
            size = stripped.split()[2].lower()
            dataset, clients = RANDOM_DATASETS.get(size, f"random {size}"), None
        elif stripped.lower().startswith("# sharegpt"):
            capped = re.search(r"batch size (\d+)", stripped.lower())
            dataset, clients = "sharegpt", int(capped.group(1)) if capped else None
        elif "Serving Benchmark Result" in stripped and command is not None:
            fields: dict[str, float] = {}
            start = i + 1
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("=========="):
                key, sep, value = lines[i].strip().rpartition(":")
                if sep and re.fullmatch(r"[0-9.,]+", value.strip()):
                    fields[key.strip()] = _number(value.strip())
                i += 1
            runs.append({**command, "dataset": dataset, "clients": clients, "line": start, **fields})
        i += 1
    return runs


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"gpustack_points: git {' '.join(args)} in {repo} failed: {done.stderr.strip()}")
    return done.stdout


def rows(repo: Path, commit: str) -> tuple[pd.DataFrame, list[str]]:
    """Catalog rows of every usable run, and a line per run left out (with its reason)."""
    full = _git(repo, "rev-parse", commit).strip()
    out, skipped = [], []
    listed = set(_git(repo, "ls-tree", "-r", "--name-only", full, "docs/performance-lab").split())
    for path, (model_id, hardware_id) in PAGES.items():
        if path not in listed:
            skipped.append(f"{path}: not in {full[:7]}")
            continue
        text = _git(repo, "show", f"{full}:{path}")
        as_of = _git(repo, "log", "-1", "--format=%cs", full, "--", path).strip()
        native = tk.model(model_id).native_weight_precision
        for run in parse_page(text):
            where = f"{path}:{run['line']}"
            reason = None
            if run["speculative"]:
                reason = "speculative decoding"
            elif run["dp"]:
                reason = "data parallelism (replicas not stated)"
            elif int(str(run["pp"])) > 1:
                reason = "pipeline parallelism (the catalog states TP and EP only)"
            elif run["dataset"] in SKIPPED_WORKLOADS:
                reason = SKIPPED_WORKLOADS[str(run["dataset"])]
            elif "Total Token throughput (tok/s)" not in run or "Median TPOT (ms)" not in run:
                reason = "no throughput or TPOT printed"
            if reason:
                skipped.append(f"{where}: {reason}")
                continue
            n = float(run["Successful requests"])
            gpus = int(run["tp"]) * int(run["pp"])
            clients = run["clients"]
            out.append({
                "hardware_id": hardware_id,
                "model_id": model_id,
                "model_in_catalog": "True",
                "precision": "fp8" if run["fp8"] else native,
                "framework": run["engine"],
                "spec_decoding": "none",
                "disaggregated": "False",
                "workload": run["dataset"],
                "isl_tokens": format(float(run["Total input tokens"]) / n, ".6g"),
                "osl_tokens": format(float(run["Total generated tokens"]) / n, ".6g"),
                "concurrency": str(clients) if clients else "",
                "tp": str(run["tp"]),
                "ep": str(run["ep"]),
                "dp_attention": str(bool(run["dp_attention"])),
                "num_gpus": str(gpus),
                "throughput_tok_per_s_per_gpu": format(float(run["Total Token throughput (tok/s)"]) / gpus, ".6g"),
                "output_throughput_tok_per_s_per_gpu": format(
                    float(run["Output token throughput (tok/s)"]) / gpus, ".6g"),
                "interactivity_tok_per_s_per_user": format(1e3 / float(run["Median TPOT (ms)"]), ".6g"),
                "ttft_median_s": format(float(run["Median TTFT (ms)"]) / 1e3, ".6g"),
                "tpot_median_s": format(float(run["Median TPOT (ms)"]) / 1e3, ".6g"),
                "kind": "measured",
                "source": f"{SOURCE_PREFIX}{full[:7]}/{path}#L{run['line']}",
                "as_of": as_of,
                "note": (f"GPUStack performance lab, vllm bench serve, {int(n)} requests "
                         + (f"at client concurrency {clients}" if clients else "sent at once")
                         + "; throughput = total tokens / benchmark duration (ramp and tail included) "
                         + "per GPU of the command; interactivity = 1 / median TPOT; serving command: "
                         + str(run["command"])),
            })
    return pd.DataFrame(out), skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="local clone or bare mirror of gpustack/gpustack")
    parser.add_argument("--commit", default="HEAD", help="commit to read (default HEAD)")
    parser.add_argument("--write", action="store_true", help="replace the GPUStack rows of the catalog")
    args = parser.parse_args()
    new, skipped = rows(args.repo, args.commit)
    pd.set_option("display.width", 200)
    print(new[["model_id", "hardware_id", "framework", "precision", "workload", "tp", "ep", "concurrency",
               "isl_tokens", "osl_tokens", "throughput_tok_per_s_per_gpu",
               "interactivity_tok_per_s_per_user"]].to_string())
    print(f"{len(new)} rows; left out {len(skipped)}:")
    for s in skipped:
        print("  " + s)
    if args.write:
        catalog = pd.read_csv(CATALOG, dtype=str, keep_default_na=False)
        kept = catalog[~catalog["source"].str.startswith(SOURCE_PREFIX)]
        merged = pd.concat([kept, new.reindex(columns=catalog.columns, fill_value="")], ignore_index=True)
        merged.to_csv(CATALOG, index=False)
        print(f"wrote {CATALOG}: {len(catalog) - len(kept)} GPUStack rows replaced by {len(new)}")


if __name__ == "__main__":
    main()
