"""benchmarks/gpustack_points.py: serving commands and vllm bench serve result blocks read from a page."""

from __future__ import annotations

import pytest

from tests._benchmarks import load_benchmark

G = load_benchmark("gpustack_points")

BLOCK = """    ============ Serving Benchmark Result ============
    Successful requests:                     {n}
    Benchmark duration (s):                  100.00
    Total input tokens:                      {inp}
    Total generated tokens:                  {out}
    Output token throughput (tok/s):         {otps}
    Total Token throughput (tok/s):          {tps}
    Median TTFT (ms):                        1500.00
    Median TPOT (ms):                        {tpot}
    ==================================================
"""

PAGE = "\n".join([
    "### 1. Choosing the Inference Engine",
    "    ```bash",
    "    vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 -tp 4 --enable-expert-parallel",
    "    ```",
    BLOCK.format(n=1000, inp=217000, out=201000, otps="2010.00", tps="4180.00", tpot="100.00"),
    "    python3 -m sglang.launch_server --model-path x/Y --tp-size 8 --enable-dp-attention",
    "    # random 4K input",
    BLOCK.format(n=500, inp=2000000, out=100000, otps="1000.00", tps="21000.00", tpot="50.00"),
    "    # ShareGPT batch size 4",
    BLOCK.format(n=100, inp=22000, out=21000, otps="210.00", tps="430.00", tpot="8.00"),
    "    # random 128 input",
    BLOCK.format(n=1000, inp=128000, out=4000, otps="40.00", tps="1320.00", tpot="900.00"),
])


def test_serving_commands_give_engine_parallelism_and_checkpoint_precision() -> None:
    vllm = G.parse_command("vllm serve Qwen/Qwen3-32B-FP8 -tp 2 --enable-expert-parallel")
    assert (vllm["engine"], vllm["tp"], vllm["ep"], vllm["fp8"]) == ("vllm", 2, 2, True)
    sgl = G.parse_command("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp-size 8 "
                          "--enable-dp-attention --speculative-algorithm EAGLE")
    assert (sgl["engine"], sgl["tp"], sgl["ep"]) == ("sglang", 8, 1)
    assert sgl["dp_attention"]
    assert sgl["speculative"]
    trt = G.parse_command("trtllm-serve /w/DeepSeek-R1 --tp_size 8 --ep_size 8")
    assert (trt["engine"], trt["tp"], trt["ep"], trt["fp8"]) == ("trt", 8, 8, False)
    assert G.parse_command("vllm serve openai/gpt-oss-120b -pp 2")["pp"] == 2


def test_each_result_block_takes_the_command_and_dataset_above_it() -> None:
    runs = G.parse_page(PAGE)
    assert [r["engine"] for r in runs] == ["vllm", "sglang", "sglang", "sglang"]
    assert [r["dataset"] for r in runs] == ["sharegpt", "4000/200", "sharegpt", "128/4"]
    assert [r["clients"] for r in runs] == [None, None, 4, None]
    first = runs[0]
    assert first["Total Token throughput (tok/s)"] == pytest.approx(4180.0)
    assert first["Median TPOT (ms)"] == pytest.approx(100.0)
    assert first["tp"] == 4
    assert first["ep"] == 4
