"""Tracing: configure an exporter (extra ``[otel]``), carry a hierarchy across processes,
write Jaeger JSON files and print trace trees.

The library itself only uses opentelemetry-api and never sets the global tracer provider;
``configure_tracing`` does, when the application calls it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote, unquote

from opentelemetry import baggage, propagate, trace
from opentelemetry import context as otel_context

from agent_sdk import semconv as sc
from agent_sdk._spans import capture_content, use_tracer_provider
from agent_sdk._spans import tracer as get_tracer
from agent_sdk.context import CallContext, current_context, use_context
from agent_sdk.errors import ConfigurationError
from agent_sdk.exports import deprecated_exports
from agent_sdk.run import RUN_VAR, HierarchyLimits, RunState, current_run

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import SpanExportResult

__all__ = [
    "JaegerFileExporter",
    "capture_content",
    "configure_tracing",
    "continue_run",
    "format_tree",
    "get_tracer",
    "inject",
    "load_trace_file",
    "use_tracer_provider",
]


def configure_tracing(
    service_name: str,
    *,
    endpoint: str | None = None,
    protocol: str = "http/protobuf",
    file: str | os.PathLike[str] | None = None,
    console: bool = False,
    set_global: bool = True,
    capture_content: bool = False,
) -> TracerProvider:
    """Set up the OpenTelemetry SDK with a batch processor and an OTLP exporter.

    ``endpoint`` defaults to the standard ``OTEL_EXPORTER_OTLP_*`` variables, else
    ``http://localhost:4318`` (HTTP) or ``localhost:4317`` (``protocol="grpc"``). ``file``
    also writes finished spans as Jaeger JSON (the UI's "JSON File" upload); ``console``
    prints them. Returns the provider: call ``shutdown()`` on it to flush. With
    ``set_global=False`` only this SDK's spans go to the provider.
    """
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SimpleSpanProcessor,
        )
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ConfigurationError(
            "configure_tracing needs the OpenTelemetry SDK: pip install 'agent-sdk[otel]'"
        ) from exc
    if protocol not in ("http/protobuf", "grpc"):
        raise ConfigurationError(f"protocol must be 'http/protobuf' or 'grpc', not {protocol!r}")
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    if endpoint is not None or file is None or _otlp_env_set():
        provider.add_span_processor(BatchSpanProcessor(_otlp_exporter(endpoint, protocol)))
    if file is not None:
        provider.add_span_processor(
            SimpleSpanProcessor(cast(Any, JaegerFileExporter(file, service_name)))
        )
    if console:
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    if set_global:
        trace.set_tracer_provider(provider)
        use_tracer_provider(None)
    else:
        use_tracer_provider(provider)
    _set_capture(capture_content)
    return provider


_set_capture = capture_content


def _otlp_env_set() -> bool:
    return any(
        k in os.environ
        for k in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def _otlp_exporter(endpoint: str | None, protocol: str) -> Any:
    try:
        if protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

            return OTLPSpanExporter(endpoint=endpoint) if endpoint else OTLPSpanExporter()
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
            OTLPSpanExporter as HTTPExporter,
        )
    except ImportError as exc:  # pragma: no cover
        raise ConfigurationError(
            f"the OTLP {protocol} exporter is not installed: pip install 'agent-sdk[otel]'"
        ) from exc
    if endpoint is None:
        return HTTPExporter()
    # The HTTP exporter uses an explicit endpoint verbatim: accept the base URL users know.
    url = endpoint.rstrip("/")
    if not url.endswith("/v1/traces"):
        url += "/v1/traces"
    return HTTPExporter(endpoint=url)


# -- Jaeger JSON files ---------------------------------------------------------------------
class JaegerFileExporter:
    """A span exporter that keeps a file in Jaeger's query-API JSON (``{"data": [...]}``),
    which the Jaeger UI's "JSON File" upload reads without a backend."""

    def __init__(self, path: str | os.PathLike[str], service_name: str) -> None:
        self.path = Path(path)
        self.service_name = service_name
        self._traces: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        from opentelemetry.sdk.trace.export import SpanExportResult

        with self._lock:
            for s in spans:
                trace_id = format(s.context.trace_id, "032x")
                self._traces.setdefault(trace_id, []).append(_jaeger_span(s, trace_id))
            self._write()
        return SpanExportResult.SUCCESS

    def _write(self) -> None:
        data = [
            {
                "traceID": tid,
                "spans": spans,
                "processes": {"p1": {"serviceName": self.service_name, "tags": []}},
                "warnings": None,
            }
            for tid, spans in self._traces.items()
        ]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(json.dumps({"data": data}, indent=1))
        tmp.replace(self.path)

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def _tag(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "type": "bool", "value": value}
    if isinstance(value, int):
        return {"key": key, "type": "int64", "value": value}
    if isinstance(value, float):
        return {"key": key, "type": "float64", "value": value}
    if isinstance(value, (list, tuple)):
        return {"key": key, "type": "string", "value": json.dumps(list(value))}
    return {"key": key, "type": "string", "value": str(value)}


def _jaeger_span(s: ReadableSpan, trace_id: str) -> dict[str, Any]:
    from opentelemetry.trace import SpanKind, StatusCode

    tags = [_tag(k, v) for k, v in (s.attributes or {}).items()]
    if s.kind != SpanKind.INTERNAL:
        tags.append(_tag("span.kind", s.kind.name.lower()))
    if s.status.status_code == StatusCode.ERROR:
        tags.append(_tag("error", True))
        tags.append(_tag("otel.status_code", "ERROR"))
        if s.status.description:
            tags.append(_tag("otel.status_description", s.status.description))
    if s.instrumentation_scope is not None:
        tags.append(_tag("otel.scope.name", s.instrumentation_scope.name))
    references = []
    if s.parent is not None:
        references.append(
            {
                "refType": "CHILD_OF",
                "traceID": format(s.parent.trace_id, "032x"),
                "spanID": format(s.parent.span_id, "016x"),
            }
        )
    start = (s.start_time or 0) // 1000
    end = (s.end_time or s.start_time or 0) // 1000
    return {
        "traceID": trace_id,
        "spanID": format(s.context.span_id, "016x"),
        "operationName": s.name,
        "references": references,
        "startTime": start,
        "duration": max(end - start, 0),
        "tags": tags,
        "logs": [
            {
                "timestamp": e.timestamp // 1000,
                "fields": [_tag("event", e.name)]
                + [_tag(k, v) for k, v in (e.attributes or {}).items()],
            }
            for e in s.events
        ],
        "processID": "p1",
        "warnings": None,
    }


def load_trace_file(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The traces of a Jaeger JSON file (``{"data": [...]}``)."""
    try:
        doc = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ConfigurationError(f"no trace file at {path}") from None
    except ValueError as exc:
        raise ConfigurationError(f"{path} is not JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("data"), list):
        raise ConfigurationError(f"{path} is not a Jaeger JSON file (no 'data' list)")
    return doc["data"]  # type: ignore[no-any-return]


def format_tree(traces: Sequence[Mapping[str, Any]]) -> str:
    """An indented tree per trace: name, duration, path and outcome of every span."""
    lines: list[str] = []
    for t in traces:
        spans = list(t.get("spans", []))
        ids = {s["spanID"] for s in spans}
        children: dict[str | None, list[Mapping[str, Any]]] = {}
        for s in spans:
            refs = [r for r in s.get("references", []) if r.get("refType") == "CHILD_OF"]
            parent = refs[0]["spanID"] if refs and refs[0]["spanID"] in ids else None
            children.setdefault(parent, []).append(s)
        for group in children.values():
            group.sort(key=lambda s: (s.get("startTime", 0), s.get("operationName", "")))
        lines.append(f"trace {t.get('traceID')} ({len(spans)} spans)")

        def walk(
            parent: str | None,
            indent: int,
            children: dict[str | None, list[Mapping[str, Any]]] = children,
        ) -> None:
            for s in children.get(parent, []):
                tags = {tag["key"]: tag["value"] for tag in s.get("tags", [])}
                dur = s.get("duration", 0) / 1000.0
                extra = []
                if tags.get(sc.PATH):
                    extra.append(f"path={tags[sc.PATH]}")
                if sc.OUTCOME in tags:
                    extra.append(f"outcome={tags[sc.OUTCOME]}")
                label = f"{'  ' * indent}{s.get('operationName')}  {dur:.1f} ms"
                lines.append(f"{label}  {' '.join(extra)}".rstrip())
                walk(s["spanID"], indent + 1, children)

        walk(None, 1)
    return "\n".join(lines)


# -- across processes ----------------------------------------------------------------------
def inject(carrier: MutableMapping[str, str] | None = None) -> MutableMapping[str, str]:
    """Write the W3C traceparent and baggage (run id, path, depth, budget left, max depth)
    of the current call into ``carrier`` (e.g. HTTP headers) and return it."""
    carrier = {} if carrier is None else carrier
    ctx = current_context()
    run = current_run()
    otel_ctx = otel_context.get_current()
    if ctx is not None:
        otel_ctx = baggage.set_baggage(sc.BAGGAGE_RUN_ID, ctx.run_id, otel_ctx)
        path = "/".join(quote(p, safe="") for p in ctx.path)
        otel_ctx = baggage.set_baggage(sc.BAGGAGE_PATH, path, otel_ctx)
        otel_ctx = baggage.set_baggage(sc.BAGGAGE_DEPTH, str(ctx.depth), otel_ctx)
    if run is not None:
        otel_ctx = baggage.set_baggage(sc.BAGGAGE_MAX_DEPTH, str(run.limits.max_depth), otel_ctx)
        if run.remaining is not None:
            otel_ctx = baggage.set_baggage(sc.BAGGAGE_BUDGET, str(run.remaining), otel_ctx)
    propagate.inject(carrier, context=otel_ctx)
    return carrier


@contextmanager
def continue_run(carrier: Mapping[str, str]) -> Iterator[CallContext | None]:
    """Continue a hierarchy from another process: the same trace (the caller's span becomes
    the parent), the same run id, path and depth, and the remaining budget, so the guards
    (recursion included) hold across the process boundary. Use as
    ``with continue_run(headers):`` (``extract`` before 0.2, still an alias).
    """
    otel_ctx = propagate.extract(dict(carrier))
    values = baggage.get_all(otel_ctx)
    run_id = values.get(sc.BAGGAGE_RUN_ID)
    token = otel_context.attach(otel_ctx)
    try:
        if run_id is None:
            yield None
            return
        raw_path = str(values.get(sc.BAGGAGE_PATH, ""))
        path = tuple(unquote(p) for p in raw_path.split("/") if p)
        max_depth = int(str(values.get(sc.BAGGAGE_MAX_DEPTH, "2")))
        budget = values.get(sc.BAGGAGE_BUDGET)
        limits = HierarchyLimits(
            max_depth=max_depth, max_model_calls=int(str(budget)) if budget is not None else None
        )
        ctx = CallContext(run_id=str(run_id), path=path)
        run_token = RUN_VAR.set(RunState(str(run_id), limits))
        try:
            with use_context(ctx):
                yield ctx
        finally:
            RUN_VAR.reset(run_token)
    finally:
        otel_context.detach(token)


__getattr__ = deprecated_exports(__name__, {"extract": (__name__, "continue_run")})
