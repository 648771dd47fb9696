"""Shared fixtures of the report tests."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tokenomics.outputs.report import Report, ReportOptions, build_report


@pytest.fixture(scope="session")
def agentic_report() -> Report:
    """A small report on session traffic with KV offload to host DRAM (B200 and TPU v7)."""
    return build_report(ReportOptions(models=("deepseek-r1",), hardware=("b200", "tpu-v7"),
                                      workload="agentic-coding", kv_offload="dram"))


def figures(html_parts: list[str] | str) -> dict[str, dict[str, Any]]:
    """The plotly figures embedded in rendered HTML, by chart id."""
    text = html_parts if isinstance(html_parts, str) else "".join(html_parts)
    found = re.findall(r'data-target="([^"]+)">(.*?)</script>', text, flags=re.S)
    return {name: json.loads(payload.replace("<\\/", "</")) for name, payload in found}
