"""README.md starts with the two commands, and .ci/run runs exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first_block = re.search(r"```(?:bash|sh)?\n(.*?)```", text, re.S)
    assert first_block, "README.md has no code block"
    return [line.strip() for line in first_block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_readme_opens_with_two_commands():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert text.index("```") < 800, "the commands must come first"
    main_job, tests = _commands()
    assert "tokenomics report" in main_job
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command_verbatim():
    _, tests = _commands()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci.splitlines()
