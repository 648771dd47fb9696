"""``tokenomics report``: files written, self-contained HTML, headline recomputed, safe overwrite."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.curves.reference import curve_kind_at, reference_curve
from tokenomics.outputs import report
from tokenomics.outputs.report import MARKER, ReportOptions, write_report

# measured DeepSeek-R1 1k/1k points are bundled for B200: no roofline projection needed, fast
SMALL = ReportOptions(models=("deepseek-r1",), hardware=("b200",))


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("rep") / "report"
    write_report(target, SMALL, progress=False)
    return target


def test_files_written(out):
    names = {p.name for p in out.iterdir()}
    for stem in ("pareto", "cost_vs_interactivity", "margin_vs_utilization", "margin_heatmap", "tornado"):
        assert f"{stem}_deepseek-r1.png" in names
    assert "tco_breakdown.png" in names
    for table in ("headline", "curve_points", "cost_curves", "standard_points", "tco_rates", "margin_vs_utilization",
                  "margin_grid", "sensitivity", "tco", "assumptions", "sources", "skipped"):
        assert f"{table}.csv" in names
    assert {"index.html", MARKER} <= names
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.stat().st_size < 400_000


def test_html_self_contained_with_assumptions_and_sources(out):
    page = (out / "index.html").read_text(encoding="utf-8")
    # offline: no external script, stylesheet or image; plotly.js is inline
    assert re.findall(r'<script[^>]*\ssrc=', page) == []
    assert "<link" not in page
    assert re.findall(r'<img[^>]*src="http', page) == []
    assert "plotly.js" in page[:200_000].lower() or "Plotly" in page[:200_000]
    # one chart per figure: Pareto and cost per model, margin, heat map, tornado, Monte Carlo, TCO breakdown, and one
    # engram placement map per memory-section system in the report
    charts = re.findall(r'<script type="application/json" class="fig-data" data-target="([^"]+)"', page)
    memory = [c for c in charts if c.startswith("chart-memory-engram-")]
    systems = set(pd.read_csv(out / "memory_engram.csv")["hardware_id"]) if memory else set()
    assert len(charts) == len(set(charts)) == 7 + len(systems)
    assert {f"chart-memory-engram-{h}" for h in systems} == set(memory)
    assert ">Assumptions<" in page
    assert ">Sources<" in page
    sources = pd.read_csv(out / "sources.csv")
    # every catalog source used is listed: hardware spec, TCO inputs and profile, price, curve points
    cats = set(sources["category"])
    assert {"hardware spec", "TCO inputs", "TCO profile", "model architecture", "curve points (measured)"} <= cats
    assert any(c.startswith("API price") for c in cats)
    # every row is dated: projections by the calibration their factors come from
    assert sources["as_of"].notna().all()
    projected = sources[sources["category"].isin(["curve points (projected)", "curve points (anchored)"])]
    assert len(projected)
    assert projected["as_of"].str.endswith("(calibration)").all()
    for src in sources["source"].dropna().unique():
        for url in re.findall(r"https?://[^\s,;()\[\]<>\"']+", src):
            assert f'href="{_escape(url.rstrip("."))}"' in page, url  # sources are links
    assumptions = pd.read_csv(out / "assumptions.csv")
    assert "utilization" in set(assumptions["assumption"])
    assert "license fee" in set(assumptions["assumption"])


def test_chart_data_carries_hover_and_selector_tags(out):
    import json

    page = (out / "index.html").read_text(encoding="utf-8")
    blobs = re.findall(r'<script type="application/json" class="fig-data" data-target="[^"]+">(.*?)</script>',
                       page, flags=re.S)
    figs = [json.loads(b.replace("<\\/", "</")) for b in blobs]
    pareto = next(f for f in figs if f["layout"]["meta"]["title"].startswith("deepseek-r1: throughput"))
    roles = {tr["meta"]["role"] for tr in pareto["data"]}
    assert {"envelope", "configs"} <= roles
    configs = [tr for tr in pareto["data"] if tr["meta"]["role"] == "configs"]
    assert all(tr["visible"] is False for tr in configs)  # configurations on demand only
    assert all("source: " in tr["hovertemplate"] for tr in configs)
    assert all("configuration: %{customdata[0]}" in tr["hovertemplate"] for tr in configs)
    cost = next(f for f in figs if f["layout"]["meta"]["title"].startswith("deepseek-r1: cost"))
    tco_tags = {tr["meta"]["tco"] for tr in cost["data"]}
    rates = pd.read_csv(out / "tco_rates.csv")
    assert tco_tags == set(rates["tco_label"])
    assert len(tco_tags) >= 2  # a selector has something to choose
    # one colour per system, the same in every chart
    colours: dict[str, set[str]] = {}
    for f in figs:
        for tr in f["data"]:
            if "line" in tr and "color" in tr["line"] and "(" in tr.get("name", ""):
                colours.setdefault(tr["name"].split(" (")[0], set()).add(tr["line"]["color"])
    assert colours
    assert all(len(c) == 1 for c in colours.values())


def test_standard_points_recompute(out):
    std = pd.read_csv(out / "standard_points.csv")
    assert sorted(set(std["interactivity_tok_per_s_per_user"])) == [20, 35, 50, 75, 100]
    for rec in std[std["hardware_id"] == "b200"].itertuples():
        x = rec.interactivity_tok_per_s_per_user
        # each standard point reads the curve evaluate() reads there (measured envelope or anchored projection)
        curve, _ = reference_curve("deepseek-r1", "b200", workload="8k/1k", interactivity_tok_per_s_per_user=x)
        t = float(curve.throughput_at(x))
        if np.isnan(t):
            assert np.isnan(rec.throughput_tok_per_s_per_gpu)
            continue
        assert rec.throughput_tok_per_s_per_gpu == pytest.approx(t)
        assert rec.curve_kind == curve_kind_at(curve, x)
        assert np.isnan(rec.cost_low_usd_per_mtok) == (rec.curve_kind == "measured")
        mtok_per_hour = t * 3600 * rec.utilization_frac / 1e6
        assert rec.cost_usd_per_mtok == pytest.approx(rec.cost_usd_per_gpu_hour / mtok_per_hour)


def test_report_text_names_cli_options_not_python_arguments(out):
    page = (out / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    assert "ServingConfig" not in text
    assert not re.search(r"\bpass \w+=", text)
    skipped = pd.read_csv(out / "skipped.csv")
    for reason in skipped["reason"]:
        assert "=" not in reason, reason


def test_skip_reason_for_a_catalog_system_without_tco_row():
    err = KeyError("unknown hardware with TCO inputs 'tpu-v5e'; closest: tpu-v5p. Valid ids: b200")
    text = report.build._reason("TCO", "tpu-v5e", err)
    assert "unknown hardware" not in text
    assert "data/tco/systems.csv" in text
    assert "--tco-vintage" in text


def _escape(text: str) -> str:
    import html

    return html.escape(str(text))


class _TableParser(HTMLParser):
    """Collect the cell texts of the table with a given id."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id, self.inside, self.rows, self.cell = table_id, False, [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == self.table_id:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def _headline_cells(out: Path) -> list[list[str]]:
    parser = _TableParser("headline")
    parser.feed((out / "index.html").read_text(encoding="utf-8"))
    return parser.rows


def test_headline_table_recomputes_from_csv(out):
    rows = _headline_cells(out)
    head = pd.read_csv(out / "headline.csv")
    assert rows[0][0] == "model"
    body = rows[1:]
    assert len(body) == len(head) == 1
    # the HTML shows the CSV's numbers
    assert body == report.headline_cells(head)
    r = head.iloc[0]
    # ... and the CSV's numbers satisfy the chain's formulas, recomputed here by hand
    q = r.throughput_tok_per_s_per_gpu * 3600 * r.utilization_frac / 1e6  # Mtok per GPU-hour
    cost = r.cost_usd_per_gpu_hour / q
    # default ISL/OSL 8192/1024: 8 of 9 tokens are input (no cache hits by default)
    price = 8 / 9 * r.input_usd_per_mtok + 1 / 9 * r.output_usd_per_mtok
    margin = 1 - r.license_fee_frac - cost / price
    u_star = r.cost_usd_per_gpu_hour / (price * (1 - r.license_fee_frac) * r.throughput_tok_per_s_per_gpu * 3600 / 1e6)
    assert r.cost_usd_per_mtok == pytest.approx(cost, rel=1e-12)
    assert r.blended_price_usd_per_mtok == pytest.approx(price, rel=1e-12)
    assert r.gross_margin_frac == pytest.approx(margin, rel=1e-12)
    assert r.breakeven_utilization_frac == pytest.approx(u_star, rel=1e-12)
    cells = dict(zip(rows[0], body[0], strict=True))
    assert cells["cost [USD/Mtok]"] == f"{cost:.3f}"
    assert cells["gross margin [%]"] == f"{margin:.1%}"
    assert cells["break-even utilization [%]"] == f"{u_star:.1%}"
    assert cells["TCO [USD/GPU-hour]"] == f"{tk.tco('b200', 'hyperscaler').usd_per_gpu_hour:.2f}"


def test_headline_throughput_read_off_measured_curve(out):
    head = pd.read_csv(out / "headline.csv")
    pts = tk.curves(model="deepseek-r1", hardware="b200", kind="measured", workload="8k/1k")
    # the measured envelope across serving configurations and precisions (FP4 and FP8) covers 50 tok/s/user
    curve = tk.ThroughputCurve.from_points(pts, allow_mixed_groups=True)
    assert head["throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(float(curve.throughput_at(50.0)))
    assert head["curve_kind"].iloc[0] == "measured"


def test_defaults_stated():
    opts = ReportOptions()
    assert opts.models == ("deepseek-r1", "gpt-oss-120b")
    assert opts.utilization_frac == 0.6
    assert opts.tco == tk.TcoBasis.itemised("hyperscaler")
    assert opts.workload == tk.workload(tk.DEFAULT_WORKLOAD)
    assert (opts.isl_tokens, opts.osl_tokens) == (8192.0, 1024.0)
    assert tk.model("deepseek-r1").open_weights
    assert tk.default_license_fee_frac(tk.model("deepseek-r1")) == 0.0


def test_licensed_model_default_fee():
    closed = tk.model("deepseek-r1").model_copy(update={"open_weights": False})
    assert tk.default_license_fee_frac(closed) == tk.LICENSED_MODEL_FEE_FRAC == 0.30


def test_percent_option_rejected():
    with pytest.raises(ValueError, match="percent"):
        ReportOptions(utilization_frac=60)
    with pytest.raises(ValueError, match="percent"):
        ReportOptions(license_fee_frac=30)
    with pytest.raises(KeyError, match="closest"):
        ReportOptions(hardware=("b2000",))


@pytest.mark.parametrize(
    ("fields", "needle", "listed"),
    [
        ({"tco_basis": "published", "tco_vintage": "2026-13"}, "published TCO vintage '2026-13'",
         ("2025-08", "2026-07", "2026-09")),
        ({"tco_basis": "published", "tco_tier": "foo"}, "published TCO tier 'foo'",
         ("hyperscaler", "neocloud", "rental", "internal")),
        # both names exist, but the 2026-09 set has no neocloud figure
        ({"tco_basis": "published", "tco_vintage": "2026-09", "tco_tier": "neocloud"}, "has no tier",
         ("hyperscaler", "internal", "rental")),
        ({"tco_profile": "hyperscalr"}, "TCO profile 'hyperscalr'", ("hyperscaler", "neocloud", "rental")),
    ],
)
def test_tco_names_validated_up_front(fields, needle, listed):
    # the options object refuses them: nothing of the chain runs, no list of skipped systems
    with pytest.raises(KeyError) as info:
        ReportOptions(models=("deepseek-r1",), **fields)
    msg = str(info.value.args[0])
    assert needle in msg
    assert "[{" not in msg
    for name in listed:  # the message lists what is valid
        assert name in msg


def test_progress_counts_candidate_and_evaluated_systems():
    said: list[str] = []
    # tpu-v5e has no itemised TCO (not a candidate); DeepSeek-R1 runs across two H100 nodes
    rep = report.build_report(
        ReportOptions(models=("deepseek-r1",), hardware=("b200", "tpu-v5e", "h100-sxm")), step=said.append
    )
    assert len(rep.tables["headline"]) == 2
    assert "deepseek-r1: curves, cost and margin on 2 candidate systems" in said
    assert any(m.startswith("deepseek-r1: evaluated on 2 of 2 candidate systems") for m in said)


def test_headline_cells_sorted_by_model_then_cost():
    head = pd.DataFrame({
        "model_id": ["m-b", "m-a", "m-b", "m-a"],
        "hardware_id": ["h1", "h1", "h2", "h2"],
        "curve_kind": ["measured"] * 4,
        "cost_usd_per_mtok": [0.5, 0.9, 0.2, 0.1],
    })
    cells = report.headline_cells(head)
    order = [(c[0], c[1]) for c in cells]
    assert order == [("m-a", "h2"), ("m-a", "h1"), ("m-b", "h2"), ("m-b", "h1")]


def test_headline_html_rows_sorted(out):
    body = _headline_cells(out)[1:]
    head = pd.read_csv(out / "headline.csv")
    keys = [(r[0], float(r[6].split()[0])) for r in body]
    assert keys == sorted(keys)
    assert list(head["model_id"]) == sorted(head["model_id"])


def test_assumptions_state_the_fee_applied_per_model(out):
    rows = pd.read_csv(out / "assumptions.csv").set_index("assumption")
    applied = rows.loc["license fee applied to deepseek-r1"]
    assert float(applied["value"]) == 0.0  # DeepSeek-R1 has open weights
    assert "open weights" in applied["note"]
    assert "0.30 for licensed models" in applied["note"]
    assert "--license-fee" in applied["note"]
    given = report.build._assumptions(ReportOptions(models=("deepseek-r1",), license_fee_frac=0.2),
                                pd.DataFrame({"hardware_id": ["b200"]})).set_index("assumption")
    assert given.loc["license fee applied to deepseek-r1", "value"] == "0.2"
    assert "given" in given.loc["license fee applied to deepseek-r1", "note"]


def test_measured_headline_rows_have_no_band(out):
    head = pd.read_csv(out / "headline.csv")
    for col in ("throughput_low_tok_per_s_per_gpu", "throughput_high_tok_per_s_per_gpu",
                "cost_low_usd_per_mtok", "cost_high_usd_per_mtok"):
        assert head[col].isna().all()
    cell = _headline_cells(out)[1][6]
    assert "(" not in cell


def test_refuses_foreign_nonempty_dir_and_force(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match=r"--force, force=True") as err:
        write_report(target, SMALL, progress=False)
    assert "out_dir in Python" in str(err.value)  # the keyword a Python caller passes, beside the flag
    assert (target / "notes.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]  # no temporary left behind
    write_report(target, SMALL, force=True, progress=False, png=False)  # PNGs: test_files_written
    assert not (target / "notes.txt").exists()
    assert (target / "index.html").is_file()
    # a directory the report wrote itself is replaced without --force
    first = (target / "headline.csv").stat().st_mtime_ns
    write_report(target, SMALL, progress=False, png=False)
    assert (target / "headline.csv").stat().st_mtime_ns >= first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_no_system_with_a_tco_names_each_reason_in_words():
    opts = ReportOptions(models=("deepseek-r1",), hardware=("rubin-cpx",),
                         tco=tk.tco_basis("published", tier="hyperscaler"))
    with pytest.raises(ValueError, match="no hardware has a TCO") as err:
        report.build_report(opts)
    assert "rubin-cpx: " in str(err.value)
    assert "{" not in str(err.value)  # reasons, not a list of dicts


def test_target_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(FileExistsError, match="not a directory"):
        write_report(f, SMALL, progress=False)


def test_failure_leaves_nothing(tmp_path, monkeypatch):
    def boom(_):
        raise RuntimeError("chart failed")

    monkeypatch.setattr(report.sections, "png_charts", boom)
    with pytest.raises(RuntimeError, match="chart failed"):
        write_report(tmp_path / "r", SMALL, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_margin_grid_and_sensitivity_consistent(out):
    grid = pd.read_csv(out / "margin_grid.csv")
    head = pd.read_csv(out / "headline.csv").iloc[0]
    # grid point at the headline's utilization and license fee equals the headline margin
    at = grid[np.isclose(grid["utilization_frac"], 0.6) & np.isclose(grid["license_fee_frac"], 0.0)]
    assert len(at) == 1
    assert at["gross_margin_frac"].iloc[0] == pytest.approx(head.gross_margin_frac)
    sens = pd.read_csv(out / "sensitivity.csv")
    assert sens["base_gross_margin_frac"].iloc[0] == pytest.approx(head.gross_margin_frac)


def test_projected_hardware_has_band(tmp_path):
    """No points are bundled at ISL/OSL 2048/512: the curve is the roofline projection."""
    with pytest.raises(ValueError, match="no bundled curve points"):
        tk.curves(model="deepseek-r1", hardware="gb200", workload="2k/512")
    rep = report.build_report(ReportOptions(models=("deepseek-r1",), hardware=("gb200",),
                                            workload=tk.Workload(name="2k/512", isl_tokens=2048, osl_tokens=512)))
    cost = rep.tables["cost_curves"]
    assert set(cost["kind"]) == {"projected"}
    assert (cost["cost_low_usd_per_mtok"] <= cost["cost_usd_per_mtok"]).all()
    assert (cost["cost_usd_per_mtok"] <= cost["cost_high_usd_per_mtok"]).all()
    # the headline row carries the projection's band: a constant multiple of the central value
    head = rep.tables["headline"].iloc[0]
    assert head["curve_kind"] == "projected"
    wl = tk.Workload(name="2k/512", isl_tokens=2048, osl_tokens=512)
    _, points = reference_curve("deepseek-r1", "gb200", workload=wl,
                                    interactivity_tok_per_s_per_user=50.0)
    mid = points["throughput_tok_per_s_per_gpu"]
    low = float(np.median(points["throughput_low_tok_per_s_per_gpu"] / mid))
    high = float(np.median(points["throughput_high_tok_per_s_per_gpu"] / mid))
    assert low < 1 < high
    t = head["throughput_tok_per_s_per_gpu"]
    assert head["throughput_low_tok_per_s_per_gpu"] == pytest.approx(t * low)
    assert head["throughput_high_tok_per_s_per_gpu"] == pytest.approx(t * high)
    # cost is inversely proportional to throughput: the low cost goes with the high throughput
    assert head["cost_low_usd_per_mtok"] == pytest.approx(head["cost_usd_per_mtok"] / high)
    assert head["cost_high_usd_per_mtok"] == pytest.approx(head["cost_usd_per_mtok"] / low)
    cell = report.headline_cells(rep.tables["headline"])[0][6]
    assert cell == (f"{head['cost_usd_per_mtok']:.3f} "
                    f"({head['cost_low_usd_per_mtok']:.3f}-{head['cost_high_usd_per_mtok']:.3f})")


def test_extra_workloads_fill_the_workload_selector(tmp_path):
    opts = ReportOptions(models=("deepseek-r1",), hardware=("b200",), extra_workloads=("1k/1k", "8k/1k"))
    assert [w.name for w in opts.extra_workloads] == ["1k/1k"]  # the main workload is not repeated
    path = write_report(tmp_path / "r", opts, progress=False, png=False)
    page = path.read_text(encoding="utf-8")
    selector = re.search(r'<select id="sel-workload">(.*?)</select>', page, flags=re.S)
    assert selector
    assert re.findall(r'<option value="([^"]+)"', selector.group(1)) == ["8k/1k", "1k/1k"]
    std = pd.read_csv(tmp_path / "r" / "standard_points.csv")
    assert set(std["workload"]) == {"8k/1k", "1k/1k"}
    head = pd.read_csv(tmp_path / "r" / "headline.csv")
    assert len(head) == 1  # headline and margin stay at the main workload


def test_unknown_price_provider_is_named_before_any_computation():
    with pytest.raises(KeyError, match="unknown price provider 'nope'"):
        report.ReportOptions(price_provider="nope")


def test_standard_points_below_the_curve_are_met_at_its_slowest_point_as_compare_reads_them():
    from tokenomics.outputs.report.build import _standard_points

    # a measured curve from 40 to 90 tok/s/user: 20 and 35 lie below it (met at the 40 tok/s/user
    # point's throughput, as evaluate() reads them), 100 above it (NaN)
    pts = pd.DataFrame({"hardware_id": "b200", "model_id": "deepseek-r1", "kind": "measured",
                        "interactivity_tok_per_s_per_user": [40.0, 60.0, 90.0],
                        "throughput_tok_per_s_per_gpu": [3000.0, 2000.0, 800.0]})
    curve = tk.ThroughputCurve.from_points(pts)
    std = _standard_points("deepseek-r1", "b200", "8k/1k", curve, (0.5, 2.0), {"published": 2.0}, 0.6)
    by_x = std.set_index("interactivity_tok_per_s_per_user")
    assert by_x.loc[20.0, "throughput_tok_per_s_per_gpu"] == 3000.0
    assert by_x.loc[35.0, "throughput_tok_per_s_per_gpu"] == 3000.0
    assert by_x.loc[50.0, "throughput_tok_per_s_per_gpu"] == pytest.approx(float(curve.throughput_at(50.0)))
    assert np.isnan(by_x.loc[100.0, "throughput_tok_per_s_per_gpu"])
    # cost at 20: $2 per GPU-hour over 3000 tok/s x 3600 s x 0.6 = 6.48 Mtok per hour
    assert by_x.loc[20.0, "cost_usd_per_mtok"] == pytest.approx(2.0 / (3000 * 3600 * 0.6 / 1e6))
    assert np.isnan(by_x.loc[100.0, "cost_usd_per_mtok"])


def test_reference_interactivity_beyond_every_curve_is_refused_with_the_reachable_range(capsys, tmp_path):
    import math

    from tokenomics.outputs.cli import main

    curve, _ = reference_curve("deepseek-r1", "b200", workload="8k/1k")
    fastest = math.floor(curve.interactivity_range[1] * 10) / 10  # shown rounded down: a reachable value
    with pytest.raises(ValueError) as err:
        report.build_report(ReportOptions(models=("deepseek-r1",), hardware=("b200",),
                                          reference_interactivity_tok_per_s_per_user=500.0))
    text = str(err.value)
    assert "reference_interactivity_tok_per_s_per_user=500 tok/s/user" in text
    assert f"choose a value in (0, {fastest:g}]" in text
    assert "deepseek-r1 on b200" in text
    assert "TCO" not in text  # no unrelated skip reasons
    argv = ["report", "-o", str(tmp_path / "r"), "--model", "deepseek-r1", "--hardware", "b200",
            "--interactivity", "500", "-q"]
    assert main(argv) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith("tokenomics report: error: --interactivity=500 tok/s/user is beyond")
    assert f"(0, {fastest:g}]" in line


def test_one_name_is_a_list_of_one():
    """As compare() reads a single system name: a plain string is one name, not its characters."""
    one = tk.ReportOptions(models="DeepSeek-R1", hardware="GB200", extra_workloads="1k/1k")
    listed = tk.ReportOptions(models=["deepseek-r1"], hardware=["gb200-nvl72"], extra_workloads=["1k/1k"])
    assert one.models == listed.models == ("deepseek-r1",)
    assert one.hardware == listed.hardware == ("gb200-nvl72",)
    assert [w.name for w in one.extra_workloads] == [w.name for w in listed.extra_workloads] == ["1k/1k"]


def test_kv_offload_applies_to_an_extra_session_workload_and_says_so():
    opts = tk.ReportOptions(models="deepseek-r1", hardware="b200", extra_workloads="agentic-coding",
                            kv_offload="dram")
    assert opts.offload_label() == "KV offload to host DRAM (agentic-coding)"
    assert "offload" not in opts.conditions_label()  # the 8k/1k headline is served from HBM
    with pytest.raises(ValueError, match="applies to session workloads"):
        tk.ReportOptions(models="deepseek-r1", extra_workloads="1k/1k", kv_offload="dram")
