"""``tokenomics measure`` end to end against a small streaming stub server on 127.0.0.1.

The stub answers OpenAI ``/v1/chat/completions`` streams with a fixed number of content chunks
spaced by a fixed delay, serves a bounded number of requests and stops by itself. Expected values
are derived from those settings by hand in each test.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tokenomics.outputs.cli import main
from tokenomics.outputs.measure import EndpointError, measure

CHUNKS = 6  # content tokens per reply
GAP_S = 0.01  # delay between chunks
PROMPT_TOKENS = 100


class _Stub(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *, max_requests: int, mode: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.max_requests = max_requests
        self.mode = mode
        self.served = 0
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    server: _Stub

    def log_message(self, *args: object) -> None:  # keep test output quiet
        return

    def do_POST(self) -> None:
        with self.server.lock:
            self.server.served += 1
            last = self.server.served >= self.server.max_requests
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.server.mode == "html":
            page = b"<html><body>Welcome</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
        else:
            n = min(CHUNKS, int(body.get("max_tokens", CHUNKS)))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            head = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": body.get("model", "")}
            for i in range(n):
                time.sleep(GAP_S)
                delta = {"role": "assistant", "content": f"t{i} "} if i == 0 else {"content": f"t{i} "}
                finish = "length" if i == n - 1 else None
                event = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            counts = {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": n, "total_tokens": PROMPT_TOKENS + n}
            usage = {**head, "choices": [], "usage": counts}
            self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
        if last:
            threading.Thread(target=self.server.shutdown, daemon=True).start()


@pytest.fixture
def stub(request: pytest.FixtureRequest) -> Iterator[_Stub]:
    mode, max_requests = getattr(request, "param", ("openai", 64))
    server = _Stub(max_requests=max_requests, mode=mode)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    timer = threading.Timer(60.0, server.shutdown)  # stops by itself whatever happens
    timer.start()
    yield server
    timer.cancel()
    server.shutdown()
    server.server_close()
    thread.join(5)


def _url(server: _Stub) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


@pytest.mark.parametrize("stub", [("openai", 1 + 8 + 8)], indirect=True)
def test_sweep_writes_measured_points(stub: _Stub, tmp_path: Path) -> None:
    out = tmp_path / "points.csv"
    points = measure(_url(stub), "kimi-k2.7", hardware="h100", num_gpus=1, concurrencies=(1, 4),
                     requests_per_level=8, isl=64, osl=CHUNKS, driver="builtin", output=out, progress=False)
    assert stub.served == 1 + 8 + 8  # probe + two levels, then the stub stopped itself
    assert out.is_file()
    assert list(points["concurrency"]) == [1, 4]
    assert set(points["kind"]) == {"measured"}
    assert (points["model_id"].iloc[0], bool(points["model_in_catalog"].iloc[0])) == ("kimi-k2.7", True)
    assert set(points["hardware_id"]) == {"h100-sxm"}
    # one stream: 6 chunks 10 ms apart -> inter-token gap ~10 ms, interactivity ~100 tok/s/user,
    # end-to-end >= 60 ms; generous bounds for a loaded CI machine
    itl = points["tpot_median_s"]
    assert ((itl > 0.008) & (itl < 0.05)).all()
    assert (points["e2el_median_s"] >= CHUNKS * GAP_S).all()
    # tokens per request come from the usage chunk: 100 prompt + 6 output
    row = points.iloc[0]
    assert row["isl_tokens"] == PROMPT_TOKENS
    assert row["osl_tokens"] == CHUNKS
    ratio = row["input_throughput_tok_per_s_per_gpu"] / row["output_throughput_tok_per_s_per_gpu"]
    assert ratio == pytest.approx(PROMPT_TOKENS / CHUNKS)
    # more concurrency, more throughput on a server that is not saturated
    assert points["output_throughput_tok_per_s_per_gpu"].iloc[1] > points["output_throughput_tok_per_s_per_gpu"].iloc[0]


@pytest.mark.parametrize("stub", [("openai", 1 + 8)], indirect=True)
def test_cli_measure(stub: _Stub, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.csv"
    rc = main(["measure", _url(stub), "--model", "kimi-k2.7", "--hardware", "h100", "--gpus", "1",
               "--concurrency", "2", "--requests", "8", "--osl", str(CHUNKS), "--driver", "builtin",
               "-o", str(out), "-q"])
    assert rc == 0
    assert "wrote 1 measured curve points" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8").startswith("hardware_id,")


def test_refused_connection_is_one_line_and_writes_nothing(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "m.csv"
    rc = main(["measure", f"http://127.0.0.1:{port}/v1", "--model", "m", "--hardware", "h100", "--gpus", "1",
               "--driver", "builtin", "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "connection refused" in err
    assert err.count("\n") == 1
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_unresolvable_host_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["measure", "http://no-such-host.invalid/v1", "--model", "m", "--hardware", "h100", "--gpus", "1",
               "--driver", "builtin", "-q", "--timeout", "5"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "cannot reach" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("stub", [("html", 4)], indirect=True)
def test_non_openai_reply_is_refused(stub: _Stub, tmp_path: Path) -> None:
    out = tmp_path / "m.csv"
    with pytest.raises(EndpointError, match="not a text/event-stream"):
        measure(_url(stub), "m", hardware="h100", num_gpus=1, driver="builtin", output=out, progress=False)
    assert not out.exists()


def test_existing_output_is_not_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "m.csv"
    out.write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError, match="--force"):
        measure("http://127.0.0.1:9/v1", "m", hardware="h100", num_gpus=1, output=out, progress=False)
    assert out.read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize(("kwargs", "match"), [({"concurrencies": (0,)}, "concurrencies"),
                                               ({"num_gpus": 0}, "num_gpus"), ({"osl": 0}, "osl"),
                                               ({"num_gpus": 2.5}, "num_gpus must be a whole number"),
                                               ({"timeout_s": 120_000.0}, "looks like milliseconds")])
def test_bad_arguments(kwargs: dict[str, object], match: str) -> None:
    # port 9 refuses connections: each error is raised before any request is sent
    args: dict[str, object] = {"hardware": "h100", "num_gpus": 1, "progress": False, **kwargs}
    with pytest.raises(ValueError, match=match):
        measure("http://127.0.0.1:9/v1", "m", **args)  # type: ignore[arg-type]


def test_unknown_hardware_is_named_before_connecting() -> None:
    with pytest.raises(KeyError, match=r"h2000.*closest: H200"):
        measure("http://127.0.0.1:9/v1", "m", hardware="h2000", num_gpus=8, progress=False)


# A word-level tokenizer AIPerf can load offline (its "builtin" tokenizer downloads a BPE file).
_TOKENIZER = {
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
    "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
    "model": {"type": "WordLevel", "unk_token": "[UNK]",
              "vocab": {"[UNK]": 0, "token": 1, **{f"t{i}": 2 + i for i in range(CHUNKS)}}},
}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("aiperf") is None, reason="aiperf is not installed (optional extra 'measure')")
@pytest.mark.parametrize("stub", [("openai", 1 + 8)], indirect=True)
def test_sweep_with_aiperf(stub: _Stub, tmp_path: Path) -> None:
    tok = tmp_path / "tok"
    tok.mkdir()
    (tok / "tokenizer.json").write_text(json.dumps(_TOKENIZER), encoding="utf-8")
    (tok / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]"}), encoding="utf-8")
    points = measure(_url(stub), "mock-model", hardware="h100", num_gpus=1, concurrencies=(2,),
                     requests_per_level=8, isl=64, osl=CHUNKS, driver="aiperf", progress=False,
                     tokenizer=str(tok))
    row = points.iloc[0]
    assert row["osl_tokens"] == CHUNKS
    assert 0.008 < row["tpot_median_s"] < 0.05
    assert "AIPerf" in row["source"]


@pytest.mark.parametrize(("flags", "named"), [
    (["--isl", "0"], "--isl must be >= 1 token"),
    (["--osl", "0"], "--osl must be >= 1 token"),
    (["--requests", "0"], "--requests must be >= 1"),
    (["--timeout", "0"], "--timeout 0 is outside"),
    (["--concurrency", "0"], "--concurrency must be whole numbers"),
])
def test_bad_settings_name_their_flags(flags: list[str], named: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["measure", "http://127.0.0.1:9/v1", "--model", "m", "--hardware", "h100", "--gpus", "1",
               "--driver", "builtin", "-q", *flags])
    err = capsys.readouterr().err
    assert rc == 2
    assert named in err
    assert err.count("\n") == 1
