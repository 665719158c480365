"""Shared helpers for the benchmark workers: tracing modes, statistics, RSS sampling."""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

from agent_sdk.tracing import use_tracer_provider
from agent_sdk.tracing.run_processor import RunSpanProcessor

MODES = ("noop", "sampled-off", "batch")
"""Where agent-sdk's spans go:

- ``noop``: no SDK provider (opentelemetry-api only, the ProxyTracer gives non-recording
  spans). This is what a user who never calls ``configure_tracing`` gets: tracing off.
- ``sampled-off``: an SDK ``TracerProvider`` with the ALWAYS_OFF sampler.
- ``batch``: an SDK ``TracerProvider`` with what ``configure_tracing`` adds
  (``RunSpanProcessor``, then ``BatchSpanProcessor``) + an exporter that drops every batch
  (all the SDK's work, no I/O).

Only agent-sdk's spans are switched (``use_tracer_provider``, never the global provider),
so the frameworks' own tracing stays as it is for the native and our variants alike.
"""


class DropExporter(SpanExporter):
    """A no-op exporter that counts what it was given."""

    def __init__(self) -> None:
        self.exported = 0

    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        self.exported += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


class Tracing:
    """Switch agent-sdk's spans between the modes, in one process."""

    def __init__(self) -> None:
        self.exporter = DropExporter()
        self.sampled_off = TracerProvider(sampler=ALWAYS_OFF)
        self.batch = TracerProvider()
        self.batch.add_span_processor(RunSpanProcessor())  # as configure_tracing does
        self.batch.add_span_processor(BatchSpanProcessor(self.exporter))
        self.mode = "noop"

    def use(self, mode: str) -> None:
        if mode == "noop":
            use_tracer_provider(None)
        elif mode == "sampled-off":
            use_tracer_provider(self.sampled_off)
        elif mode == "batch":
            use_tracer_provider(self.batch)
        else:  # pragma: no cover - programming error
            raise ValueError(mode)
        self.mode = mode

    def close(self) -> int:
        use_tracer_provider(None)
        self.batch.force_flush()
        self.batch.shutdown()
        self.sampled_off.shutdown()
        return self.exporter.exported


def quiet_frameworks() -> None:
    """Frameworks' own telemetry off, as in the native baselines, and log records below
    ERROR dropped: AutoGen's replay client logs a warning on every model call with tool
    calls ("Token count has been done only on string content"), and writing it to a pipe
    costs milliseconds on a loaded machine (for native and our tools alike)."""
    logging.disable(logging.WARNING)
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
    os.environ.setdefault("AUTOGEN_DISABLE_RUNTIME_TRACING", "true")
    os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark-offline")


def summary(values: Iterable[float]) -> dict[str, float]:
    """Median and spread (p25, p75, min, max) of ``values``."""
    data = sorted(values)
    if not data:
        return {"median": float("nan"), "p25": float("nan"), "p75": float("nan"), "n": 0}
    q = statistics.quantiles(data, n=4) if len(data) >= 2 else [data[0]] * 3
    return {
        "median": statistics.median(data),
        "p25": q[0],
        "p75": q[2],
        "min": data[0],
        "max": data[-1],
        "n": len(data),
    }


def rss_bytes() -> int:
    """The process's resident set size now (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):  # pragma: no cover - not Linux
        return 0


class PeakRSS:
    """Samples RSS in a thread every ``interval`` seconds; ``growth`` is peak - start."""

    def __init__(self, interval: float = 0.002) -> None:
        self.interval = interval
        self.start = 0
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_bytes())
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakRSS:
        gc.collect()
        self.start = self.peak = rss_bytes()
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes())

    @property
    def growth(self) -> int:
        return self.peak - self.start


def versions(*distributions: str) -> dict[str, str]:
    found = {}
    for dist in distributions:
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[dist] = "not installed"
    return found


def machine() -> dict[str, Any]:
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = (float("nan"),) * 3
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:  # pragma: no cover
        pass
    mem = 0
    with contextlib.suppress(ValueError, OSError):
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(mem / 2**30, 1),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "load": [round(x, 2) for x in load],
    }


def emit(result: dict[str, Any], path: str | None) -> None:
    """Write a worker's result as JSON to ``path`` (or stdout)."""
    text = json.dumps(result, indent=1, default=str)
    if path:
        with open(path, "w") as fh:
            fh.write(text)
    else:
        print(text)


def now_us() -> float:
    return time.perf_counter_ns() / 1000.0


def short_name(func: tuple[str, int, str]) -> str:
    """``file:line:function`` of a cProfile entry, with the install prefix cut off."""
    filename, line, name = func
    if filename == "~":
        return name
    repo = str(Path(__file__).resolve().parents[1]) + "/"
    if filename.startswith(repo):
        filename = filename[len(repo) :]
    for marker in ("site-packages/", "/src/", "lib/python"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            break
    return f"{filename}:{line}:{name}"


def top_costs(
    raw: dict[Any, Any], *, per: int, limit: int = 8, own: bool = False
) -> list[dict[str, Any]]:
    """The top entries of ``pstats.Stats(...).stats`` by self time (or, with ``own``, our
    own functions by cumulative time), in µs per ``per`` units of work."""
    rows = []
    for func, (_cc, ncalls, tt, ct, _callers) in raw.items():
        if own and "agent_sdk" not in func[0]:
            continue
        rows.append(
            {
                "function": short_name(func),
                "self_us": round(tt * 1e6 / per, 2),
                "cum_us": round(ct * 1e6 / per, 2),
                "calls": round(ncalls / per, 2),
            }
        )
    rows.sort(key=lambda r: r["cum_us" if own else "self_us"], reverse=True)
    return rows[:limit]
