"""README.md starts with the two commands, .ci/run runs exactly the README's test command, and
every Python example in the README runs."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def _commands() -> list[str]:
    first_block = re.search(r"```(?:bash|sh)?\n(.*?)```", README, re.S)
    assert first_block, "README.md has no code block"
    return [line.strip() for line in first_block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_readme_opens_with_two_commands():
    assert README.index("```") < 800, "the commands must come first"
    main_job, tests = _commands()
    assert "tokenomics report" in main_job
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command_verbatim():
    _, tests = _commands()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci.splitlines()


def test_there_are_python_examples():
    assert len(PYTHON_BLOCKS) >= 4


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))])
def test_readme_python_example_runs(block: str):
    if block.lstrip().startswith("# illustrative"):
        pytest.skip("example reads the user's own files")
    namespace: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    plt.close("all")
