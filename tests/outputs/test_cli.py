"""The ``tokenomics`` command line: tables, CSV/JSON, hand-checked numbers, one-line errors."""

from __future__ import annotations

import io
import json
import re

import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.outputs.cli import build_parser, main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _one_line_error(err: str, command: str) -> None:
    assert err.startswith(f"tokenomics {command}: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [("hardware",), ("hardware", "show", "GB200"), ("models",), ("models", "deepseek-r1"),
     ("prices", "--model", "deepseek-r1")],
)
def test_existing_subcommands_still_work(capsys, argv):
    rc, out, _ = run(capsys, *argv)
    assert rc == 0
    assert out.strip()


@pytest.mark.parametrize(("command", "name"), [("hardware", "GB200"), ("models", "deepseek-r1")])
def test_show_is_optional_and_the_same_for_hardware_and_models(capsys, command, name):
    _, shown, _ = run(capsys, command, "show", name)
    _, bare, _ = run(capsys, command, name)
    assert shown == bare
    assert "parameter" in shown
    rc, _, err = run(capsys, command, "show")
    assert rc == 2
    assert "needs a NAME" in err


def test_show_prints_counts_and_years_as_whole_numbers(capsys):
    _, out, _ = run(capsys, "hardware", "show", "GB200")
    lines = {p[0]: p[1] for p in (line.split() for line in out.splitlines()) if len(p) >= 2}
    assert lines["release_year"] == "2025"
    assert lines["accelerators_per_system"] == "72"
    assert lines["fp4_dense_tflops"] == "10,000"


def _subcommands() -> list[str]:
    import argparse

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(action.choices)


def test_help_has_examples_for_every_subcommand(capsys):
    parser = build_parser()
    assert "tokenomics report" in parser.format_help()
    assert {"hardware", "models", "prices", "tco", "cost", "margin", "ingest", "report"} <= set(_subcommands())
    for name in _subcommands():
        with pytest.raises(SystemExit) as exc:
            main([name, "--help"])
        assert exc.value.code == 0
        assert "examples:" in capsys.readouterr().out


def test_tco_table_and_csv(capsys):
    expected = tk.tco("gb200", "neocloud")
    rc, out, _ = run(capsys, "tco", "GB200", "--profile", "neocloud")
    assert rc == 0
    assert f"{expected.usd_per_gpu_hour:.3f} USD/GPU-hour" in out
    assert "capex_amortisation" in out
    rc, out, _ = run(capsys, "tco", "GB200", "--profile", "neocloud", "--format", "csv")
    frame = pd.read_csv(io.StringIO(out)).set_index("component")
    parts = frame.drop(index="total")["usd_per_gpu_hour"].sum()
    assert parts == pytest.approx(frame.loc["total", "usd_per_gpu_hour"])
    assert frame.loc["total", "usd_per_gpu_hour"] == pytest.approx(expected.usd_per_gpu_hour)


def test_tco_published(capsys):
    pub = tk.published_tco("mi355x", vintage="2026-09", tier="rental")
    rc, out, _ = run(capsys, "tco", "mi355x", "--vintage", "2026-09", "--tier", "rental", "--format", "json")
    assert rc == 0
    rows = json.loads(out)
    total = next(r for r in rows if r["component"] == "total")
    assert total["usd_per_gpu_hour"] == pytest.approx(pub.usd_per_gpu_hour)


def test_cost_from_throughput_by_hand(capsys):
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--hardware", "mi355x", "--throughput", "1000",
                     "--utilization", "0.5", "--format", "csv")
    assert rc == 0
    frame = pd.read_csv(io.StringIO(out)).set_index("hardware_id")
    for hid in ("b200", "mi355x"):
        rate = tk.tco(hid, "hyperscaler").usd_per_gpu_hour
        # 1000 tok/s x 3600 s x 0.5 = 1.8 Mtok per GPU-hour
        assert frame.loc[hid, "cost_usd_per_mtok"] == pytest.approx(rate / 1.8)


def test_cost_reads_measured_curve(capsys):
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--model", "deepseek-r1", "--interactivity", "50",
                     "--format", "json")
    assert rc == 0
    row = json.loads(out)[0]
    # default workload: ISL/OSL 8192/1024
    pts = tk.curves(model="deepseek-r1", hardware="b200", kind="measured", workload="8k/1k")
    # the measured envelope across serving configurations and precisions (FP4 and FP8) covers 50 tok/s/user
    curve = tk.ThroughputCurve.from_points(pts, allow_mixed_groups=True)
    assert row["curve_kind"] == "measured"
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(float(curve.throughput_at(50.0)))


def test_cost_outside_curve_is_one_line_error(capsys):
    rc, _, err = run(capsys, "cost", "--hardware", "b200", "--model", "deepseek-r1", "--interactivity", "5000")
    assert rc == 2
    _one_line_error(err, "cost")
    assert "--interactivity=5000 is beyond the fastest point" in err
    assert "b200" in err


def test_a_system_that_cannot_serve_the_point_is_skipped_like_compare_does(capsys):
    rc, out, err = run(capsys, "cost", "--model", "deepseek-r1", "--hardware", "gb200", "--hardware", "h100",
                       "--interactivity", "300", "--format", "csv")
    assert rc == 0
    frame = pd.read_csv(io.StringIO(out))
    with pytest.warns(tk.SkippedSystemsWarning):
        table = tk.compare("deepseek-r1", ["gb200", "h100"], interactivity_tok_per_s_per_user=300)
    assert frame["hardware_id"].tolist() == table["hardware_id"].tolist() == ["gb200-nvl72"]
    assert frame["cost_usd_per_mtok"].iloc[0] == pytest.approx(table["cost_usd_per_mtok"].iloc[0])
    assert "skipped h100-sxm: --interactivity=300 is beyond the fastest point" in err
    # every system failing is still an error
    rc, _, err = run(capsys, "margin", "--model", "deepseek-r1", "--hardware", "h200", "--hardware", "h100",
                     "--interactivity", "300")
    assert rc == 2
    assert "no system could be evaluated: h200-sxm: --interactivity=300" in err


@pytest.mark.parametrize("flag", [("--interactivity", "20", "50"), ("--utilization", "0.6", "0.8")])
def test_an_option_given_twice_is_refused_not_overwritten(capsys, flag):
    name, first, second = flag
    with pytest.raises(SystemExit) as stop:
        main(["margin", "--model", "deepseek-r1", "--hardware", "gb200", name, first, name, second])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"{name} given twice ({float(first)} and {float(second)}): give it once" in err


def test_margin_by_hand(capsys):
    rc, out, _ = run(capsys, "margin", "--hardware", "gb300", "--model", "kimi-k2", "--utilization", "0.6",
                     "--license-fee", "0.3", "--price-input", "0.6", "--price-output", "2.5",
                     "--throughput", "1500", "--isl", "1024", "--osl", "1024", "--format", "csv")
    assert rc == 0
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    rate = tk.tco("gb300", "hyperscaler").usd_per_gpu_hour
    q = 1500 * 3600 * 0.6 / 1e6  # 3.24 Mtok per GPU-hour
    price = 0.5 * 0.6 + 0.5 * 2.5  # ISL = OSL = 1024: half the tokens are input
    assert row["blended_price_usd_per_mtok"] == pytest.approx(1.55)
    assert row["gross_margin_frac"] == pytest.approx(1 - 0.3 - rate / (q * price))
    assert row["breakeven_utilization_frac"] == pytest.approx(rate / (price * 0.7 * 1500 * 3600 / 1e6))


def test_margin_table_is_readable(capsys):
    rc, out, _ = run(capsys, "margin", "--hardware", "gb300", "--model", "kimi-k2", "--throughput", "1500")
    assert rc == 0
    assert "gross_margin_frac" in out
    assert " nan" not in out


def test_margin_table_has_one_header_row_and_a_quantity_column(capsys):
    rc, out, _ = run(capsys, "margin", "--hardware", "gb300", "--hardware", "b200", "--model", "kimi-k2",
                     "--throughput", "1500")
    assert rc == 0
    lines = out.splitlines()
    # header: the quantity column, then one column per system; no stray row-header line
    assert lines[0].split() == ["quantity", "gb300-nvl72", "b200"]
    assert not any(line.strip() in ("quantity", "hardware_id") for line in lines[1:])
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["model_id"] == ["kimi-k2", "kimi-k2"]
    assert rows["throughput_tok_per_s_per_gpu"] == ["1,500", "1,500"]
    assert "e+" not in out  # large numbers with separators, not scientific notation
    # quantity names are left-aligned
    assert all(line.startswith(line.split()[0]) for line in lines)


def test_cost_table_formats_numbers(capsys):
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--throughput", "10000")
    assert rc == 0
    assert "10,000" in out
    assert "e+" not in out
    # CSV keeps full precision: 2.898.../ (10000 x 3600 x 0.6 / 1e6 = 21.6 Mtok per GPU-hour)
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--throughput", "10000", "--format", "csv")
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    assert row["throughput_tok_per_s_per_gpu"] == 10000
    assert row["cost_usd_per_mtok"] == pytest.approx(tk.tco("b200", "hyperscaler").usd_per_gpu_hour / 21.6, rel=1e-12)


def test_cost_refuses_interactivity_with_throughput(capsys):
    rc, _, err = run(capsys, "cost", "--hardware", "b200", "--model", "deepseek-r1", "--interactivity", "50",
                     "--throughput", "1000")
    assert rc == 2
    _one_line_error(err, "cost")
    assert "--interactivity" in err
    assert "--throughput" in err


@pytest.mark.parametrize(
    ("flag", "value", "allowed"),
    [
        ("--price-output", "-2", "[0, inf)"),
        ("--price-input", "-0.5", "[0, inf)"),
        ("--price-cached", "nan", "[0, inf)"),
        ("--throughput", "0", "(0, inf)"),
        ("--interactivity", "-1", "(0, inf)"),
    ],
)
def test_margin_flags_validated_before_the_scenario(capsys, flag, value, allowed):
    rc, _, err = run(capsys, "margin", "--hardware", "b200", "--model", "deepseek-r1",
                     *(("--throughput", "1000") if flag not in ("--throughput", "--interactivity") else ()),
                     flag, value)
    assert rc == 2
    _one_line_error(err, "margin")
    assert f"{flag} {value}" in err
    assert allowed in err
    assert "usd_per_mtok" not in err  # names the flag, not the Scenario field
    assert "pydantic" not in err


def test_margin_cache_hit_flag_validated(capsys):
    rc, _, err = run(capsys, "margin", "--hardware", "b200", "--model", "deepseek-r1", "--throughput", "1000",
                     "--cache-hit", "1.5")
    assert rc == 2
    _one_line_error(err, "margin")
    assert "--cache-hit" in err


def test_pydantic_errors_become_one_line_without_url(capsys, tmp_path):
    # an implausible --isl reaches Workload (pydantic): main() turns its ValidationError into one line
    rc, _, err = run(capsys, "report", "-o", str(tmp_path / "r"), "--isl", "5000000", "--osl", "1000", "-q")
    assert rc == 2
    _one_line_error(err, "report")
    assert "--isl" in err  # the flag the user typed, not the library's field name
    assert "isl_tokens" not in err
    assert "5e+06" in err or "5000000" in err
    assert "errors.pydantic.dev" not in err
    assert "validation error" not in err


def test_prices_json_dates_are_plain(capsys):
    rc, out, _ = run(capsys, "prices", "--model", "deepseek-r1", "--format", "json")
    assert rc == 0
    rows = json.loads(out)
    assert rows
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["as_of"]) for r in rows)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("margin", "--hardware", "b200", "--model", "deepseek-r1", "--throughput", "1000", "--utilization", "60"),
         "percent"),
        (("margin", "--hardware", "b200", "--model", "deepseek-r1", "--throughput", "1000", "--license-fee", "30"),
         "percent"),
        (("cost", "--hardware", "gb2000", "--throughput", "5"), "unknown hardware"),
        (("cost", "--hardware", "b200", "--throughput", "-5"), "throughput"),
        (("tco", "b200", "--profile", "hyperscalr"), "closest"),
        (("report", "--utilization", "60", "-o", "x"), "percent"),
        (("report", "--model", "deepseek-r9", "-o", "x"), "unknown model"),
        (("report", "--tco-vintage", "2026-13", "-o", "x"), "Valid ids: 2025-08, 2026-07, 2026-09"),
        (("report", "--tco-tier", "foo", "-o", "x"), "unknown published TCO tier 'foo'"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, needle):
    rc, _, err = run(capsys, *argv)
    assert rc == 2
    _one_line_error(err, argv[0])
    assert needle in err


def test_ingest_directory(capsys, tmp_path, shared_data):
    target = tmp_path / "points.csv"
    src = str(shared_data / "inferencemax" / "agentx_agg_mi355x_kimik2.7")
    rc, _, err = run(capsys, "ingest", src, "-o", str(target))
    assert rc == 0
    points = pd.read_csv(target)
    assert len(points) > 0
    assert set(points["hardware_id"]) == {"mi355x"}
    assert "wrote" in err
    rc, _, err = run(capsys, "ingest", src, "-o", str(target))
    assert rc == 2
    _one_line_error(err, "ingest")
    assert "--force" in err
    rc, _, _ = run(capsys, "ingest", src, "-o", str(target), "--force")
    assert rc == 0


def test_ingest_to_stdout_and_missing_path(capsys, tmp_path, shared_data):
    f = next((shared_data / "inferencemax" / "fixed_seq_agg_mi355x_kimik2.5").glob("agg_*1k1k*.json"))
    rc, out, _ = run(capsys, "ingest", str(f), "--format", "json")
    assert rc == 0
    assert json.loads(out)[0]["hardware_id"] == "mi355x"
    rc, _, err = run(capsys, "ingest", str(tmp_path / "nope"))
    assert rc == 2
    _one_line_error(err, "ingest")


def test_report_command(capsys, tmp_path):
    target = tmp_path / "r"
    rc, out, _ = run(capsys, "report", "-o", str(target), "--model", "deepseek-r1", "--hardware", "b200", "-q")
    assert rc == 0
    assert out.strip() == str(target / "index.html")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "a.txt").write_text("x")
    rc, _, err = run(capsys, "report", "-o", str(tmp_path / "other"), "--model", "deepseek-r1",
                     "--hardware", "b200", "-q")
    assert rc == 2
    _one_line_error(err, "report")
    assert (tmp_path / "other" / "a.txt").exists()


@pytest.mark.slow
def test_report_names_a_named_system_it_left_out(capsys, tmp_path):
    rc, _, err = run(capsys, "report", "-o", str(tmp_path / "r"), "--model", "deepseek-r1", "--hardware", "b200",
                       "--hardware", "h100", "--interactivity", "300", "-q")
    assert rc == 0
    skipped = pd.read_csv(tmp_path / "r" / "skipped.csv")
    assert "h100-sxm" in set(skipped["hardware_id"])
    assert "skipped deepseek-r1 on h100-sxm (margin): --interactivity=300 is beyond the fastest point" in err


@pytest.mark.parametrize("flag", ["--utilization", "--license-fee", "--cache-hit"])
def test_percent_sign_hints_the_fraction(capsys, flag):
    rc, out, err = run_exit(capsys, "margin", "--hardware", "b200", "--model", "deepseek-r1", "--throughput", "1000",
                            flag, "60%")
    assert rc == 2
    assert out == ""
    _one_line_error(err, "margin")
    assert flag in err
    assert "0.60" in err


def test_not_a_number_names_the_flag(capsys):
    rc, _, err = run_exit(capsys, "cost", "--hardware", "b200", "--throughput", "fast")
    assert rc == 2
    _one_line_error(err, "cost")
    assert "--throughput" in err
    assert "--help" in err


def run_exit(capsys, *argv: str) -> tuple[int, str, str]:
    """Run main(); argparse errors exit, and their status is returned like main()'s."""
    try:
        rc = main(list(argv))
    except SystemExit as exc:
        rc = int(exc.code or 0)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_library_errors_name_cli_flags(capsys):
    rc, _, err = run(capsys, "cost", "--hardware", "b200", "--throughput", "1000", "--utilization", "60")
    assert rc == 2
    _one_line_error(err, "cost")
    assert "--utilization" in err
    assert "utilization_frac" not in err
    assert "0.6" in err  # the fix


def test_unknown_name_points_to_the_listing_command(capsys):
    rc, _, err = run(capsys, "cost", "--hardware", "gb2000", "--throughput", "1000")
    assert rc == 2
    _one_line_error(err, "cost")
    assert "closest" in err
    assert "`tokenomics hardware`" in err


@pytest.mark.parametrize("width", [80, 100, 160])
@pytest.mark.parametrize("argv", [("hardware",), ("models",), ("prices",), ("tco", "gb200"),
                                  ("cost", "--hardware", "b200", "--hardware", "gb200", "--throughput", "1000")])
def test_tables_fit_the_terminal(capsys, monkeypatch, width, argv):
    monkeypatch.setenv("COLUMNS", str(width))
    rc, out, _ = run(capsys, *argv)
    assert rc == 0
    table_lines = [ln for ln in out.splitlines() if not ln.startswith(("TCO of", "note:"))]
    assert max(len(ln) for ln in table_lines) <= width
    assert "e+" not in out


@pytest.mark.parametrize("width", [80, 100])
def test_cost_table_shows_the_cost_per_mtok_by_default(capsys, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--hardware", "gb200", "--throughput", "10000")
    assert rc == 0
    header = " ".join(out.splitlines()[:2])
    assert "[USD/Mtok]" in header
    assert "cost_usd_per_mtok" not in out  # not among the columns left out
    # b200: its TCO / (10000 tok/s x 3600 s x 0.6 / 1e6 = 21.6 Mtok per GPU-hour), 3 decimals
    assert f"{tk.tco('b200', 'hyperscaler').usd_per_gpu_hour / 21.6:.3f}" in out.splitlines()[3]


def test_columns_choose_what_is_shown(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    rc, out, _ = run(capsys, "hardware", "--columns", "name,tdp_w,hbm_bandwidth_tb_per_s")
    assert rc == 0
    header = " ".join(out.splitlines()[:3])
    assert "[W]" in header
    assert "[TB/s]" in header
    assert "more column" not in out
    rc, out, _ = run(capsys, "hardware")
    assert "more columns" in out  # at 60 characters not everything fits: the note says what is left out
    assert "--columns" in out
    rc, _, err = run(capsys, "hardware", "--columns", "name,tdpw")
    assert rc == 2
    _one_line_error(err, "hardware")
    assert "tdp_w" in err


def test_columns_choose_the_csv_json_and_margin_columns(capsys):
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--throughput", "10000", "--format", "csv",
                     "--columns", "hardware_id,cost_usd_per_mtok")
    assert rc == 0
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame.columns) == ["hardware_id", "cost_usd_per_mtok"]
    # its TCO / (10000 tok/s x 3600 s x 0.6 / 1e6 = 21.6 Mtok per GPU-hour)
    assert frame["cost_usd_per_mtok"].iloc[0] == pytest.approx(tk.tco("b200", "hyperscaler").usd_per_gpu_hour / 21.6)
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--throughput", "10000", "--format", "json",
                     "--columns", "cost_usd_per_mtok")
    assert rc == 0
    assert list(json.loads(out)[0]) == ["cost_usd_per_mtok"]
    rc, out, _ = run(capsys, "margin", "--hardware", "b200", "--model", "deepseek-r1", "--throughput", "10000",
                     "--columns", "gross_margin_frac,cost_usd_per_mtok")
    assert rc == 0
    assert [ln.split()[0] for ln in out.splitlines()] == ["quantity", "gross_margin_frac", "cost_usd_per_mtok"]
    rc, _, err = run(capsys, "cost", "--hardware", "b200", "--throughput", "10000", "--format", "csv",
                     "--columns", "cost_usd_per_mtk")
    assert rc == 2
    _one_line_error(err, "cost")
    assert "cost_usd_per_mtok" in err


def test_prices_that_earn_nothing_are_named_as_flags(capsys):
    rc, _, err = run(capsys, "margin", "--hardware", "b200", "--model", "deepseek-r1", "--throughput", "10000",
                     "--price-input", "0", "--price-output", "0")
    assert rc == 2
    _one_line_error(err, "margin")
    assert "--price-input 0" in err
    assert "--price-output 0" in err
    assert "usd_per_mtok" not in err


def test_table_headers_carry_units(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--throughput", "1000")
    assert rc == 0
    lines = out.splitlines()
    rule = next(i for i, ln in enumerate(lines) if ln.startswith("─"))
    header = " ".join(" ".join(lines[:rule]).split())
    for unit in ("[tok/s/GPU]", "[USD/Mtok]", "[USD/GPU-hour]", "[kW/accelerator]"):
        assert unit in header


def test_prices_with_nothing_listed_is_an_error_not_an_empty_line(capsys):
    rc, out, err = run(capsys, "prices", "--model", "kimi-k2", "--tier", "batch")
    assert rc == 2
    assert out == ""
    _one_line_error(err, "prices")
    assert "--model kimi-k2, --tier batch" in err


def test_tco_names_its_own_flags_and_checks_columns_before_printing(capsys):
    rc, out, err = run(capsys, "tco", "gb200", "--profile", "neocloud", "--vintage", "2026-09")
    assert rc == 2
    assert "--profile 'neocloud'" in err
    assert "--vintage '2026-09'" in err
    assert "tco_profile" not in err
    rc, out, err = run(capsys, "tco", "gb200", "--columns", "foo")
    assert rc == 2
    assert out == ""  # no header printed before the error
    _one_line_error(err, "tco")
    # the share column by either name, in percent in a table and as a fraction in csv
    for name in ("share_frac", "share_%"):
        rc, table, _ = run(capsys, "tco", "gb200", "--columns", f"component,{name}")
        assert rc in (0, None)
        assert "share %" in table
        rc, csv, _ = run(capsys, "tco", "gb200", "--columns", f"component,{name}", "--format", "csv")
        assert rc in (0, None)
        assert csv.splitlines()[0] == "component,share_frac"


def test_one_system_named_twice_is_refused(capsys):
    rc, _, err = run(capsys, "cost", "--hardware", "gb200", "--hardware", "gb200-nvl72", "--throughput", "1000")
    assert rc == 2
    _one_line_error(err, "cost")
    assert "name the same system (gb200-nvl72)" in err


def test_chosen_columns_show_without_a_value_and_the_margin_header(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    # a measured row has no band: the chosen column is shown empty, not refused
    rc, out, _ = run(capsys, "cost", "--hardware", "gb200", "--model", "deepseek-r1", "--columns",
                     "hardware_id,cost_low_usd_per_mtok")
    assert rc == 0
    assert "cost low" in out
    rc, out, _ = run(capsys, "margin", "--hardware", "b200", "--model", "deepseek-r1", "--throughput", "10000",
                     "--columns", "hardware_id,gross_margin_frac")
    assert rc == 0
    assert [ln.split()[0] for ln in out.splitlines()] == ["quantity", "gross_margin_frac"]


def test_unreachable_breakevens_are_explained(capsys):
    # revenue per GPU-hour at 0.05/0.3 USD/Mtok is below the TCO at any utilization
    rc, out, _ = run(capsys, "margin", "--hardware", "b200", "--model", "deepseek-r1", "--throughput", "1000",
                     "--price-input", "0.05", "--price-output", "0.3", "--columns", "breakeven_utilization_frac")
    assert rc == 0
    assert "note: '-' under breakeven_utilization_frac: no utilization up to 1" in out


def test_json_writes_slashes_plainly(capsys):
    rc, out, _ = run(capsys, "cost", "--hardware", "b200", "--throughput", "1000", "--format", "json",
                     "--columns", "workload")
    assert rc == 0
    assert '"8k/1k"' in out
    assert json.loads(out) == [{"workload": "8k/1k"}]


def test_a_contradictory_tco_basis_names_the_basis_flag(capsys):
    rc, _, err = run(capsys, "tco", "gb200", "--basis", "published", "--profile", "neocloud")
    assert rc == 2
    assert "--basis 'published' contradicts --profile 'neocloud'" in err
    assert "tco_basis" not in err


def test_tco_without_power_figures_names_what_this_command_can_do(capsys):
    rc, out, err = run(capsys, "tco", "tpu-v5e")
    assert rc == 2
    assert out == ""
    assert "give it with --input facility_power_kw_per_accelerator=KW" in err
    _one_line_error(err, "tco")


def test_tco_inputs_on_the_command_line(capsys):
    rc, out, _ = run(capsys, "cost", "--model", "deepseek-r1", "--hardware", "gb200", "--throughput", "1000",
                     "--tco-input", "electricity_usd_per_kwh=0.05", "--tco-input", "pue=1.3", "--format", "csv")
    assert rc == 0
    rate = tk.tco("gb200", electricity_usd_per_kwh=0.05, pue=1.3).usd_per_gpu_hour
    assert pd.read_csv(io.StringIO(out))["cost_usd_per_gpu_hour"].iloc[0] == pytest.approx(rate)
    rc, out, _ = run(capsys, "tco", "gb200", "--input", "electricity_usd_per_kwh=0.05", "--format", "csv")
    assert rc == 0
    frame = pd.read_csv(io.StringIO(out))
    assert frame.loc[frame["component"] == "total", "usd_per_gpu_hour"].iloc[0] == pytest.approx(
        tk.tco("gb200", electricity_usd_per_kwh=0.05).usd_per_gpu_hour)
    rc, _, err = run(capsys, "tco", "gb200", "--input", "pue=13")
    assert rc == 2
    assert "--input pue=13.0 is outside the allowed range [1.0, 3.0]" in err
    rc, _, err = run(capsys, "cost", "--model", "deepseek-r1", "--hardware", "gb200", "--tco-tier", "rental",
                     "--tco-input", "pue=1.2")
    assert rc == 2
    assert "--tco-input replaces inputs of an itemised TCO" in err
