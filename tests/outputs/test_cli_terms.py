"""Terminal tables and errors speak the command line's terms: years as years, column names as names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokenomics.outputs.cli import main


def test_release_year_prints_without_a_thousands_separator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hardware", "--columns", "hardware_id,release_year"]) == 0
    out = capsys.readouterr().out
    assert "2,0" not in out
    assert any(line.split()[-1] in {"2023", "2024", "2025", "2026", "2027"} for line in out.splitlines()[2:] if line)


def test_an_unknown_column_lists_column_names_not_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "--hardware", "gb200", "--model", "deepseek-r1", "--columns", "interactivity"]) == 2
    err = capsys.readouterr().err
    assert "closest: interactivity_tok_per_s_per_user" in err
    assert "--interactivity" not in err.split("Valid ids:")[1]



def test_ingest_hints_name_its_flags(capsys: pytest.CaptureFixture[str]) -> None:
    raw = str(Path(__file__).parents[1] / "fixtures" / "ingest" / "raw_plain_bench.json")
    assert main(["ingest", raw]) == 2
    assert "pass --gpus" in capsys.readouterr().err
    assert main(["ingest", raw, "--gpus", "8"]) == 2
    err = capsys.readouterr().err
    assert "pass --hardware NAME" in err
    assert "hardware=" not in err
