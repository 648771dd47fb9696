"""The report page in a real browser: headless Chromium driven over the DevTools protocol.

The page is opened from disk with the network disabled, the test waits until every chart has
drawn, and then asserts: no console error or uncaught exception, every visible chart drew its
traces, no element overflows the page width (tables scroll inside their own box), legend text is
readable, and the selectors change what the charts show. A full-page screenshot is saved
(``report.png`` in the test's temporary directory, or in ``$TOKENOMICS_SCREENSHOT_DIR``).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tokenomics.outputs.report import ReportOptions, write_report

# every catalog system: measured, anchored and projected curves, and legends as long as a full report's
OPTIONS = ReportOptions(models=("deepseek-r1",))
WIDTH_PX = 1280


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("Chromium is not installed and could not be installed here (.ci/run installs Debian's chromium "
                "as root with apt-get); the report is not checked in a real browser")
    raise AssertionError  # unreachable


class _Page:
    """A minimal DevTools-protocol client of one page."""

    def __init__(self, ws_url: str) -> None:
        from websockets.sync.client import connect

        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(ws_url, max_size=64 * 2**20, open_timeout=20))
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == ident:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))
            if "method" in msg:
                self.events.append(msg)

    def js(self, expression: str) -> Any:
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expression[:60]}...: {res['exceptionDetails']}")
        return res["result"].get("value")

    def errors(self) -> list[str]:
        out = []
        for ev in self.events:
            method, params = ev["method"], ev.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(json.dumps(params.get("exceptionDetails", {}))[:300])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(str(params["entry"].get("text")))
        return out


@contextlib.contextmanager
def _browser(tmp: Path) -> Iterator[_Page]:
    args = [_chromium(), "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--remote-debugging-port=0", f"--user-data-dir={tmp / 'profile'}", f"--window-size={WIDTH_PX},900",
            "--hide-scrollbars", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "about:blank"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.insert(1, "--no-sandbox")  # Chromium refuses to run its sandbox as root
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        port = None
        deadline = time.monotonic() + 30
        assert proc.stderr is not None
        while port is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                pytest.skip(f"Chromium did not start here (exit status {proc.returncode})")
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
        assert port, "Chromium did not report its DevTools port within 30 s"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            targets = json.load(resp)
        page = _Page(next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page"))
        try:
            yield page
        finally:
            page.stack.close()
    finally:
        proc.kill()
        proc.wait(timeout=10)


_CHECKS = r"""
(() => {
  const W = document.documentElement.clientWidth;
  const charts = [...document.querySelectorAll('.chart')].filter(d => d.offsetParent !== null);
  const drawn = charts.map(d => ({
    id: d.id,
    traces: (d._fullData || []).filter(t => t.visible === true).length,
    svgTraces: d.querySelectorAll('g.trace, g.hm, image').length,
    width: d.getBoundingClientRect().width,
  }));
  const scrolls = el => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') { return true; }
    }
    return false;
  };
  const overflow = [...document.body.querySelectorAll('*')].filter(el => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > W + 1 && !scrolls(el);
  }).map(el => el.tagName + '#' + el.id + '.' + el.className).slice(0, 10);
  const legendPx = [...document.querySelectorAll('.legendtext')].map(t => parseFloat(getComputedStyle(t).fontSize));
  // layout: the legend clear of the axis titles and without its own scrollbar; tick labels inside the chart
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const layout = [];
  charts.forEach(d => {
    const box = d.getBoundingClientRect();
    const legend = d.querySelector('g.legend');
    const lb = legend ? legend.getBoundingClientRect() : null;
    d.querySelectorAll('.g-xtitle text, .g-ytitle text').forEach(t => {
      if (lb && lb.width > 0 && meet(lb, t.getBoundingClientRect())) { layout.push(d.id + ': legend on axis title'); }
    });
    d.querySelectorAll('g.legend rect.scrollbar').forEach(r => {
      if (r.getBoundingClientRect().height > 0) { layout.push(d.id + ': legend scrolls'); }
    });
    d.querySelectorAll('g.xtick text, g.ytick text').forEach(t => {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1)) {
        layout.push(d.id + ': tick label cut off: ' + t.textContent);
      }
    });
  });
  return {W, scrollWidth: document.documentElement.scrollWidth, drawn, overflow, layout,
          minLegendPx: legendPx.length ? Math.min(...legendPx) : null,
          height: document.documentElement.scrollHeight};
})()
"""


@pytest.fixture(scope="module")
def report_path(tmp_path_factory) -> Path:
    return write_report(tmp_path_factory.mktemp("browser") / "report", OPTIONS, progress=False, png=False)


@pytest.mark.slow
def test_report_in_headless_chromium(report_path, tmp_path):
    with _browser(tmp_path) as page:
        page.call("Runtime.enable")
        page.call("Log.enable")
        page.call("Page.enable")
        page.call("Emulation.setDeviceMetricsOverride", width=WIDTH_PX, height=900, deviceScaleFactor=1, mobile=False)
        page.call("Page.navigate", url=report_path.resolve().as_uri())
        deadline = time.monotonic() + 60
        while not page.js("window.tokenomicsReportReady === true"):
            assert time.monotonic() < deadline, f"charts not drawn within 60 s; errors: {page.errors()}"
            time.sleep(0.2)
        state = page.js(_CHECKS)

        assert page.errors() == []
        n_charts = len(re.findall(r'class="fig-data"', report_path.read_text(encoding="utf-8")))
        assert len(state["drawn"]) == n_charts > 0
        for chart in state["drawn"]:
            assert chart["traces"] > 0, chart
            assert chart["svgTraces"] > 0, chart
            assert chart["width"] > 300, chart
        assert state["overflow"] == []
        assert state["scrollWidth"] <= state["W"]
        assert state["layout"] == []
        assert state["minLegendPx"] >= 11

        # the TCO selector switches the cost curves; the checkbox shows individual configurations
        cost_id = next(c["id"] for c in state["drawn"] if "cost" in c["id"])
        visible = f"document.getElementById('{cost_id}')._fullData.filter(t => t.visible === true).length"
        tco_meta = (f"[...new Set(document.getElementById('{cost_id}')._fullData"
                    ".filter(t => t.visible === true).map(t => t.meta.tco))]")
        first = page.js(tco_meta)
        assert len(first) == 1
        options = page.js("[...document.getElementById('sel-tco').options].map(o => o.value)")
        other = next(o for o in options if o != first[0])
        page.js(f"(() => {{ const s = document.getElementById('sel-tco'); s.value = {json.dumps(other)}; "
                "s.dispatchEvent(new Event('change')); })()")
        assert page.js(tco_meta) == [other]
        assert page.js(visible) > 0
        pareto_id = next(c["id"] for c in state["drawn"] if "pareto" in c["id"])
        configs = (f"document.getElementById('{pareto_id}')._fullData"
                   ".filter(t => t.meta && t.meta.role === 'configs' && t.visible === true).length")
        assert page.js(configs) == 0
        page.js("(() => { const b = document.getElementById('show-configs'); b.checked = true; "
                "b.dispatchEvent(new Event('change')); })()")
        assert page.js(configs) > 0
        page.js("(() => { const b = document.getElementById('show-configs'); b.checked = false; "
                "const s = document.getElementById('sel-tco'); s.selectedIndex = 0; "
                "s.dispatchEvent(new Event('change')); })()")
        assert page.errors() == []

        height = min(int(page.js("document.documentElement.scrollHeight")), 16000)
        page.call("Emulation.setDeviceMetricsOverride", width=WIDTH_PX, height=height, deviceScaleFactor=1,
                  mobile=False)
        time.sleep(0.5)
        shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    png = base64.b64decode(shot["data"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out_dir = Path(os.environ.get("TOKENOMICS_SCREENSHOT_DIR", tmp_path))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "report.png").write_bytes(png)
    assert (out_dir / "report.png").stat().st_size > 50_000
