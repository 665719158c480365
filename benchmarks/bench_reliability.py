"""Reliability under load (core only): deferred approvals and trace files.

- Deferred approvals: N concurrent ``DeferredApproval.request`` calls on each store, a SQLite
  file and a PostgreSQL database (a real server this benchmark starts with
  ``agent_sdk.testing.postgres.PostgresServer``: local, loopback TCP, ``fsync=off``, so
  the figures are the store's own cost, not a disk's); the throughput, and the event loop's
  lag meanwhile (a ticker that asks for 5 ms sleeps: how late it wakes up at worst). Then a
  reviewer approves them all and the same N calls are retried concurrently: each uses its
  approval once (approved reruns per second; the lag covers both phases). Target: lag
  <= 50 ms at N = 2,000 on each store. Baselines in the same process: the same requests one
  after the other (throughput), and N no-op calls handed to one worker thread (the lag any
  off-loop store costs). A PostgreSQL server that cannot start makes its rows say why.
- Trace files: the cost per span of ``JaegerFileExporter`` on the thread that ends the span,
  and of the whole file written at shutdown, at 200 / 2,000 / 20,000 spans: the per-span
  cost must stay flat (the exporter used to rewrite the file on every span).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any


async def _ticker(stop: asyncio.Event, lags: list[float], period: float = 0.005) -> None:
    while not stop.is_set():
        asked = time.perf_counter()
        await asyncio.sleep(period)
        lags.append(time.perf_counter() - asked - period)


async def _baseline_lag(n: int) -> float:
    """The loop lag of N concurrent no-op calls handed to one worker thread (what any
    off-loop store costs the loop at least), in ms."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1)
    loop = asyncio.get_running_loop()
    stop, lags = asyncio.Event(), list[float]()
    ticker = asyncio.ensure_future(_ticker(stop, lags))
    await asyncio.sleep(0.02)
    await asyncio.gather(*(loop.run_in_executor(pool, int) for _ in range(n)))
    stop.set()
    await ticker
    pool.shutdown()
    return max(lags) * 1000 if lags else 0.0


async def _concurrently(
    n: int, calls: Callable[[int], Awaitable[Any]]
) -> tuple[float, float, float]:
    """``calls(0..n-1)`` all at once: seconds taken, and the loop's worst and 99th
    percentile lag (ms)."""
    stop, lags = asyncio.Event(), list[float]()
    ticker = asyncio.ensure_future(_ticker(stop, lags))
    await asyncio.sleep(0.02)
    started = time.perf_counter()
    await asyncio.gather(*(calls(i) for i in range(n)))
    took = time.perf_counter() - started
    stop.set()
    await ticker
    if not lags:
        return took, 0.0, 0.0
    ordered = sorted(lags)
    return took, ordered[-1] * 1000, ordered[min(len(ordered) - 1, len(ordered) * 99 // 100)] * 1000


async def deferred(n: int, targets: Callable[[str], str] | None = None) -> dict[str, Any]:
    """N deferred requests on the store ``targets(name)`` names (default: SQLite files)."""
    from agent_sdk import DeferredApproval

    with tempfile.TemporaryDirectory() as tmp:
        target = targets or (lambda name: str(Path(tmp) / f"{name}.db"))
        port = DeferredApproval(target("concurrent"))
        decisions: list[Any] = [None] * n

        async def ask(i: int) -> None:
            decisions[i] = await port.request("pay", {"i": i}, call_id=f"c{i}", run_id="r")

        concurrent_s, lag_ms, p99_ms = await _concurrently(n, ask)
        assert all(d.pending_id for d in decisions)
        for d in decisions:  # the reviewer, one decision after another (not timed)
            port.resolve(d.pending_id, approved=True, reviewer="bench")

        async def rerun(i: int) -> None:
            d = await port.request("pay", {"i": i}, call_id=f"c{i}", run_id="r")
            assert d.approved, d

        rerun_s, rerun_lag_ms, rerun_p99_ms = await _concurrently(n, rerun)
        port.store.close()
        serial = DeferredApproval(target("serial"))
        started = time.perf_counter()
        for i in range(n):
            await serial.request("pay", {"i": i}, call_id=f"c{i}", run_id="r")
        serial_s = time.perf_counter() - started
        serial.store.close()
    baseline_ms = await _baseline_lag(n)
    return {
        "n": n,
        "baseline_lag_ms": baseline_ms,
        "per_s": n / concurrent_s,
        "approved_per_s": n / rerun_s,
        "serial_per_s": n / serial_s,
        "ratio_vs_serial": concurrent_s / serial_s,
        "max_lag_ms": max(lag_ms, rerun_lag_ms),
        "p99_lag_ms": max(p99_ms, rerun_p99_ms),
        "request_lag_ms": lag_ms,
        "rerun_lag_ms": rerun_lag_ms,
    }


async def deferred_postgres(sizes: tuple[int, ...]) -> dict[str, Any]:
    """``deferred`` on a PostgreSQL server started here; ``error`` says why not if it could
    not start (no binaries, no unprivileged user under root, no psycopg)."""
    try:
        from agent_sdk.testing.postgres import PostgresServer

        server = PostgresServer().start()
    except Exception as exc:
        return {"error": " ".join(f"{type(exc).__name__}: {exc}".split())[:300], "rows": []}
    try:
        import psycopg

        with psycopg.connect(server.dsn()) as conn:
            row = conn.execute("SHOW server_version").fetchone()
        rows = [await deferred(n, lambda name: server.create_database()) for n in sizes]
        return {"rows": rows, "server": f"PostgreSQL {row[0] if row else '?'}"}
    finally:
        server.close()


def trace_file(n: int) -> dict[str, Any]:
    from opentelemetry.sdk.trace import TracerProvider

    from agent_sdk.tracing import JaegerFileExporter, load_trace_file

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        exporter = JaegerFileExporter(path, "bench")
        provider = TracerProvider()  # no processor: the spans below are ended, not exported
        tracer = provider.get_tracer("bench")
        with tracer.start_as_current_span("root") as root:
            spans = [tracer.start_span(f"span {i}") for i in range(n - 1)]
        for s in spans:
            s.end()
        ended = [root, *spans]
        started = time.perf_counter()
        for s in ended:  # as SimpleSpanProcessor does, one export per ended span
            exporter.export([s])  # type: ignore[list-item]
        caller_s = time.perf_counter() - started
        started = time.perf_counter()
        exporter.shutdown()
        flush_s = time.perf_counter() - started
        assert sum(len(t["spans"]) for t in load_trace_file(path)) == n
    return {
        "n": n,
        "caller_us_per_span": caller_s / n * 1e6,
        "total_us_per_span": (caller_s + flush_s) / n * 1e6,
    }


async def measure(quick: bool) -> dict[str, Any]:
    sizes = (200, 2000) if quick else (200, 2000, 20000)
    deferred_sizes = (200,) if quick else (200, 2000)
    return {
        "deferred": [await deferred(n) for n in deferred_sizes],
        "deferred_postgres": await deferred_postgres(deferred_sizes),
        "trace_file": [trace_file(n) for n in sizes],
    }
