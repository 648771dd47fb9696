"""Measure your own OpenAI-compatible endpoint over a concurrency sweep: measured curve points.

``tokenomics measure URL --model M`` runs one benchmark per concurrency level and turns each
level's aggregate into a tidy curve point (:data:`tokenomics.curves.schema.CURVE_COLUMNS`,
``kind = "measured"``) ready for :func:`tokenomics.compare` and the cost functions.

One level is one well-defined step, :func:`run_level`, that writes an AIPerf aggregate export
(``profile_export_aiperf.json``) into the level's directory; the points are then read back with
:func:`tokenomics.read_aiperf`, so both drivers go through the same reader:

* ``driver="aiperf"``: runs ``aiperf profile`` (install the optional extra
  ``inference-tokenomics[measure]``) with ``--concurrency``, ``--request-count``,
  ``--synthetic-input-tokens-mean``, ``--output-tokens-mean`` and ``--tokenizer``, streaming chat
  completions (flags of AIPerf 0.13.0; tested against the stub server where AIPerf is installed).
* ``driver="builtin"``: a minimal streaming client in this module (standard library only):
  ``concurrency`` threads each send streamed ``/v1/chat/completions`` requests until
  ``requests`` are done, timing time to first token, inter-token gaps and end-to-end latency per
  request, and counting output tokens from the final ``usage`` chunk (one token per content chunk
  where the server sends no usage). It writes the same export layout, marked
  ``"generator": "tokenomics builtin"``. Use it where AIPerf cannot be installed.
* ``driver="auto"`` (default): AIPerf when its command is on the path, else the built-in client.

Before the sweep the endpoint is probed with one small streamed request: an unreachable host, a
refused connection or a reply that is not an OpenAI chat-completion stream stops the run with a
one-line error, and nothing is written. The points file is written once, atomically, after every
level succeeded.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import http.client
import json
import math
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

__all__ = ["EndpointError", "measure", "probe_endpoint", "run_level"]

Driver = Literal["auto", "aiperf", "builtin"]

_PROMPT_WORD = "token "
"""Filler of synthetic prompts: about one token per word for common tokenizers."""


class EndpointError(ConnectionError):
    """The endpoint cannot be reached or does not answer like an OpenAI-compatible server."""


def _split_url(url: str) -> tuple[str, str, int, str]:
    """Return (scheme, host, port, base path) of an endpoint URL such as ``http://h:8000/v1``."""
    parsed = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(f"url {url!r} is not an http(s) URL, e.g. http://127.0.0.1:8000/v1")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    base = parsed.path.rstrip("/")
    if not base.endswith("/v1"):
        base = f"{base}/v1"
    return parsed.scheme, parsed.hostname, port, base


def _post_stream(url: str, payload: dict[str, Any], timeout_s: float) -> tuple[http.client.HTTPConnection,
                                                                                http.client.HTTPResponse]:
    scheme, host, port, base = _split_url(url)
    conn_cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(host, port, timeout=timeout_s)
    body = json.dumps(payload).encode()
    conn.request("POST", f"{base}/chat/completions", body=body,
                 headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
    return conn, conn.getresponse()


def _events(resp: http.client.HTTPResponse) -> Any:
    """Yield decoded ``data:`` payloads of a server-sent-event stream (``[DONE]`` ends it)."""
    for raw in resp:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line or line.startswith(":"):
            continue
        if not line.startswith("data:"):
            raise EndpointError(f"not a server-sent-event stream (line {line[:60]!r})")
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            yield json.loads(data)
        except json.JSONDecodeError:
            raise EndpointError(f"stream event is not JSON ({data[:60]!r})") from None


def _one_request(url: str, model: str, prompt: str, max_tokens: int, timeout_s: float) -> dict[str, float]:
    """Send one streamed chat completion; return its timings [s] and token counts."""
    payload = {"model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
               "stream": True, "stream_options": {"include_usage": True}, "ignore_eos": True}
    start = time.perf_counter()
    conn, resp = _post_stream(url, payload, timeout_s)
    try:
        if resp.status != 200:
            detail = resp.read(200).decode("utf-8", errors="replace")
            raise EndpointError(f"HTTP {resp.status} from {url}: {' '.join(detail.split())[:120]}")
        ctype = resp.getheader("Content-Type", "")
        if "text/event-stream" not in ctype:
            raise EndpointError(f"reply is {ctype or 'untyped'}, not a text/event-stream chat completion")
        stamps: list[float] = []
        usage: dict[str, Any] | None = None
        for event in _events(resp):
            if not isinstance(event, dict) or "choices" not in event:
                raise EndpointError(f"stream event without 'choices' ({str(event)[:60]})")
            if event.get("usage"):
                usage = event["usage"]
            for choice in event["choices"]:
                delta = choice.get("delta") or {}
                if delta.get("content") or delta.get("reasoning_content"):
                    stamps.append(time.perf_counter())
    finally:
        conn.close()
    end = time.perf_counter()
    if not stamps:
        raise EndpointError("the stream carried no content tokens")
    out_tokens = float(usage["completion_tokens"]) if usage and usage.get("completion_tokens") else len(stamps)
    in_tokens = float(usage["prompt_tokens"]) if usage and usage.get("prompt_tokens") else math.nan
    ttft = stamps[0] - start
    itl = (end - stamps[0]) / (out_tokens - 1) if out_tokens > 1 else math.nan
    return {"ttft_s": ttft, "itl_s": itl, "e2el_s": end - start, "osl": out_tokens, "isl": in_tokens,
            "start": start, "end": end}


def probe_endpoint(url: str, model: str, *, timeout_s: float = 10.0) -> None:
    """Send one tiny streamed request; raise if the endpoint is not a usable OpenAI server.

    Parameters
    ----------
    url : str
        Base URL, e.g. ``http://127.0.0.1:8000`` or ``http://127.0.0.1:8000/v1``.
    model : str
        Model name the server serves.
    timeout_s : float
        Connect and read timeout [s].

    Raises
    ------
    EndpointError
        Refused connection, unknown host, timeout, an HTTP error or a reply that is not an
        OpenAI chat-completion event stream; the message is one line.
    ValueError
        If ``url`` is not an http(s) URL.
    """
    try:
        _one_request(url, model, "Say hi.", 4, timeout_s)
    except EndpointError:
        raise
    except ConnectionRefusedError:
        raise EndpointError(f"connection refused by {url}: is the server running?") from None
    except TimeoutError:
        raise EndpointError(f"no answer from {url} within {timeout_s:g} s") from None
    except OSError as err:  # DNS failure, unreachable network, reset
        raise EndpointError(f"cannot reach {url}: {err.strerror or err}") from None
    except (http.client.HTTPException, UnicodeDecodeError) as err:
        raise EndpointError(f"{url} does not answer like an OpenAI-compatible server ({err})") from None


def _stats(values: Sequence[float], scale: float) -> dict[str, float]:
    vals = sorted(v * scale for v in values if not math.isnan(v))
    if not vals:
        return {}
    def pct(q: float) -> float:
        pos = q / 100 * (len(vals) - 1)
        lo, hi = math.floor(pos), math.ceil(pos)
        return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)
    return {"avg": statistics.fmean(vals), "min": vals[0], "max": vals[-1], "p50": pct(50), "p90": pct(90),
            "p99": pct(99)}


def _builtin_level(url: str, model: str, concurrency: int, requests: int, isl: int, osl: int,
                   timeout_s: float, on_request: Callable[[], None]) -> dict[str, Any]:
    """Run one concurrency level with the built-in client; return an AIPerf-layout export."""
    prompt = _PROMPT_WORD * max(isl - 8, 1)
    results: list[dict[str, float]] = []
    errors: list[Exception] = []
    lock = threading.Lock()
    issued = [0]

    def worker() -> None:
        while True:
            with lock:
                if issued[0] >= requests or errors:
                    return
                issued[0] += 1
            try:
                res = _one_request(url, model, prompt, osl, timeout_s)
            except Exception as err:  # re-raised in the caller's thread
                with lock:
                    errors.append(err)
                return
            with lock:
                results.append(res)
            on_request()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    wall0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        err = errors[0]
        if isinstance(err, EndpointError):
            raise err
        raise EndpointError(f"request failed at concurrency {concurrency}: {err}") from err
    duration = max(r["end"] for r in results) - wall0
    total_osl = sum(r["osl"] for r in results)
    isl_vals = [r["isl"] for r in results]
    total_isl = sum(isl_vals) if not any(math.isnan(v) for v in isl_vals) else math.nan
    doc: dict[str, Any] = {
        "generator": "tokenomics builtin",
        "request_throughput": {"unit": "requests/sec", "avg": len(results) / duration},
        "output_token_throughput": {"unit": "tokens/sec", "avg": total_osl / duration},
        "time_to_first_token": {"unit": "ms", **_stats([r["ttft_s"] for r in results], 1000.0)},
        "inter_token_latency": {"unit": "ms", **_stats([r["itl_s"] for r in results], 1000.0)},
        "request_latency": {"unit": "ms", **_stats([r["e2el_s"] for r in results], 1000.0)},
        "output_sequence_length": {"unit": "tokens", **_stats([r["osl"] for r in results], 1.0)},
        "benchmark_duration": {"unit": "sec", "avg": duration},
        "request_count": {"unit": "requests", "avg": float(len(results))},
        "start_time": dt.datetime.now(dt.UTC).isoformat(),
        "input_config": {"endpoint": {"model_names": [model], "url": url, "streaming": True},
                         "loadgen": {"concurrency": concurrency, "request_count": requests}},
    }
    if not math.isnan(total_isl):
        doc["input_sequence_length"] = {"unit": "tokens", **_stats(isl_vals, 1.0)}
        doc["total_isl"] = {"unit": "tokens", "avg": total_isl}
    return doc


def _aiperf_command(url: str, model: str, concurrency: int, requests: int, isl: int, osl: int,
                    artifacts: Path, tokenizer: str | None = None) -> list[str]:
    exe = shutil.which("aiperf")
    if exe is None:
        raise FileNotFoundError("the aiperf command is not installed; pip install 'inference-tokenomics[measure]' "
                                "or use driver='builtin'")
    scheme, host, port, _ = _split_url(url)
    return [exe, "profile", "--model", model, "--url", f"{scheme}://{host}:{port}", "--endpoint-type", "chat",
            "--streaming", "--concurrency", str(concurrency), "--request-count", str(requests),
            "--synthetic-input-tokens-mean", str(isl), "--output-tokens-mean", str(osl),
            "--artifact-dir", str(artifacts), *(["--tokenizer", tokenizer] if tokenizer else [])]


def run_level(url: str, model: str, concurrency: int, *, requests: int, isl: int, osl: int, directory: Path,
              driver: Literal["aiperf", "builtin"], timeout_s: float = 120.0,
              on_request: Callable[[], None] | None = None, tokenizer: str | None = None) -> Path:
    """Benchmark one concurrency level and write its AIPerf aggregate export.

    Parameters
    ----------
    url, model : str
        Endpoint base URL and served model name.
    concurrency : int
        Requests in flight.
    requests : int
        Requests to complete at this level (>= concurrency).
    isl, osl : int
        Synthetic prompt length and requested output length [tokens].
    directory : pathlib.Path
        Where the level's artifacts go.
    driver : {"aiperf", "builtin"}
        The benchmark client (see the module docstring).
    timeout_s : float
        Per-request timeout [s] of the built-in client.
    on_request : callable, optional
        Called after each completed request (progress).
    tokenizer : str, optional
        AIPerf ``--tokenizer`` (a Hugging Face id, a path, or ``builtin`` for tiktoken without
        network access); default the model name.

    Returns
    -------
    pathlib.Path
        The level's ``profile_export_aiperf.json``.

    Raises
    ------
    EndpointError
        A request fails.
    FileNotFoundError
        ``driver="aiperf"`` without the ``aiperf`` command.
    """
    directory.mkdir(parents=True, exist_ok=True)
    if driver == "aiperf":
        cmd = _aiperf_command(url, model, concurrency, requests, isl, osl, directory, tokenizer)
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tail = " ".join((proc.stderr or proc.stdout).split())[-200:]
            raise EndpointError(f"aiperf failed at concurrency {concurrency} (exit {proc.returncode}): {tail}")
        found = sorted(directory.rglob("profile_export_aiperf.json"))
        if not found:
            raise EndpointError(f"aiperf wrote no profile_export_aiperf.json under {directory}")
        if on_request is not None:
            for _ in range(requests):
                on_request()
        return found[0]
    doc = _builtin_level(url, model, concurrency, requests, isl, osl, timeout_s, on_request or (lambda: None))
    path = directory / "profile_export_aiperf.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def measure(
    url: str,
    model: str,
    *,
    hardware: str,
    num_gpus: float,
    concurrencies: Sequence[int] = (1, 2, 4, 8),
    requests_per_level: int | None = None,
    isl: int = 512,
    osl: int = 128,
    driver: Driver = "auto",
    output: str | Path | None = None,
    overwrite: bool = False,
    progress: bool = True,
    timeout_s: float = 120.0,
    tokenizer: str | None = None,
) -> pd.DataFrame:
    """Measure an OpenAI-compatible endpoint over a concurrency sweep into curve points.

    Parameters
    ----------
    url : str
        Endpoint base URL, e.g. ``http://127.0.0.1:8000/v1``.
    model : str
        Served model name (as the server knows it); resolved to a catalog id where possible.
    hardware : str
        Hardware behind the endpoint (name or alias), for per-GPU throughput.
    num_gpus : float
        Accelerators serving the endpoint [count].
    concurrencies : sequence of int
        Concurrency levels, each >= 1.
    requests_per_level : int, optional
        Requests per level (default ``max(4 x concurrency, 8)``).
    isl, osl : int
        Synthetic prompt length and requested output length [tokens].
    driver : {"auto", "aiperf", "builtin"}
        Benchmark client (see the module docstring).
    output : str or pathlib.Path, optional
        CSV to write the points to (atomically, after every level succeeded).
    overwrite : bool
        Replace an existing ``output``.
    progress : bool
        Show a progress bar on stderr.
    timeout_s : float
        Per-request timeout [s], in (0, 3600].
    tokenizer : str, optional
        Tokenizer AIPerf counts tokens with (``driver="aiperf"``); default the model name.

    Returns
    -------
    pandas.DataFrame
        One measured point per level (:data:`tokenomics.curves.schema.CURVE_COLUMNS`).

    Raises
    ------
    EndpointError
        Unreachable endpoint, refused connection, non-OpenAI reply or a failed request (nothing
        is written).
    KeyError
        Unknown hardware (close matches listed), before any request is sent.
    ValueError
        Bad concurrency, request count, lengths, GPU count (a whole number >= 1) or timeout (in
        (0, :data:`MAX_TIMEOUT_S`] s).
    FileExistsError
        ``output`` exists and ``overwrite`` is False.
    """
    from tokenomics.curves.ingest import read_aiperf, resolve_hardware_name

    levels = [int(c) for c in concurrencies]
    if not levels or any(c < 1 or c != float(cc) for c, cc in zip(levels, concurrencies, strict=True)):
        raise ValueError(f"concurrencies must be whole numbers >= 1, got {list(concurrencies)}")
    for name, value in (("isl", isl), ("osl", osl)):
        if int(value) < 1:
            raise ValueError(f"{name} must be >= 1 token, got {value}")
    if not num_gpus > 0 or float(num_gpus) != int(num_gpus):
        raise ValueError(f"num_gpus must be a whole number of accelerators >= 1, got {num_gpus}")
    if not 0 < timeout_s <= MAX_TIMEOUT_S:
        hint = " (it looks like milliseconds: give seconds)" if timeout_s > MAX_TIMEOUT_S else ""
        raise ValueError(f"timeout_s={timeout_s:g} is outside (0, {MAX_TIMEOUT_S:g}] s{hint}")
    resolve_hardware_name(hardware)  # an unknown name fails here, before any request is sent
    if requests_per_level is not None and requests_per_level < 1:
        raise ValueError(f"requests_per_level must be >= 1, got {requests_per_level}")
    out = Path(output) if output is not None else None
    if out is not None and out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists; pass overwrite=True (--force) to replace it")
    chosen: Literal["aiperf", "builtin"]
    chosen = ("aiperf" if shutil.which("aiperf") else "builtin") if driver == "auto" else driver
    probe_endpoint(url, model, timeout_s=min(timeout_s, 30.0))
    counts = [requests_per_level or max(4 * c, 8) for c in levels]
    frames: list[pd.DataFrame] = []
    with tempfile.TemporaryDirectory(prefix="tokenomics-measure-") as tmp, _progress(sum(counts), progress) as step:
        for conc, n in zip(levels, counts, strict=True):
            export = run_level(url, model, conc, requests=max(n, conc), isl=isl, osl=osl,
                               directory=Path(tmp) / f"c{conc}", driver=chosen, timeout_s=timeout_s,
                               on_request=step, tokenizer=tokenizer)
            point = read_aiperf(export, hardware=hardware, num_gpus=num_gpus, model=model,
                                as_of=dt.date.today().isoformat())
            point["source"] = f"{url} ({'AIPerf' if chosen == 'aiperf' else 'tokenomics builtin client'}, "\
                              f"concurrency {conc}, {max(n, conc)} requests)"
            frames.append(point)
    points = pd.concat(frames, ignore_index=True)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp_out = out.with_name(f".{out.name}.tmp")
        points.to_csv(tmp_out, index=False)
        tmp_out.replace(out)
    return points


MAX_TIMEOUT_S: float = 3600.0
"""Longest per-request timeout :func:`measure` accepts [s]; a larger value is taken for milliseconds."""


@contextlib.contextmanager
def _progress(total: int, enabled: bool) -> Any:
    """Yield a callable advancing a rich progress bar on stderr by one request."""
    if not enabled:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("measuring"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    task = bar.add_task("requests", total=total)
    lock = threading.Lock()

    def step() -> None:
        with lock:
            bar.advance(task)

    with bar:
        yield step

