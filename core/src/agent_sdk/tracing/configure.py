"""``configure_tracing``: the OpenTelemetry SDK set up with a batch processor and an
exporter (OTLP over HTTP, extra ``[otel]``, or gRPC, extra ``[otel-grpc]``), a Jaeger JSON
file, the console. Only the application calls it: the library never sets the global tracer
provider itself.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

from opentelemetry import trace

from agent_sdk.errors import ConfigurationError
from agent_sdk.tracing.spans import capture_content, use_tracer_provider
from agent_sdk.tracing.trace_file import JaegerFileExporter

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider


def configure_tracing(
    service_name: str,
    *,
    endpoint: str | None = None,
    protocol: str = "http/protobuf",
    file: str | os.PathLike[str] | None = None,
    console: bool = False,
    set_global: bool = True,
    capture_content: bool | None = None,
) -> TracerProvider:
    """Set up the OpenTelemetry SDK with a batch processor and an OTLP exporter.

    ``endpoint`` defaults to the standard ``OTEL_EXPORTER_OTLP_*`` variables, else
    ``http://localhost:4318`` (HTTP) or ``localhost:4317`` (``protocol="grpc"``). ``file``
    also writes finished spans as Jaeger JSON (the UI's "JSON File" upload); ``console``
    prints them. Returns the provider: call ``shutdown()`` on it to flush. With
    ``set_global=False`` only this SDK's spans go to the provider. Every span started inside
    a run, the frameworks' own included, gets the run id and path (``RunSpanProcessor``).
    ``capture_content``: tool arguments and results on spans (None: follow
    ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``; off by default).
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
    from agent_sdk.tracing.run_processor import RunSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    provider.add_span_processor(RunSpanProcessor())  # first: stamps before export
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
            f"the OTLP {protocol} exporter is not installed: pip install "
            f"'agent-sdk[{'otel-grpc' if protocol == 'grpc' else 'otel'}]'"
        ) from exc
    if endpoint is None:
        return HTTPExporter()
    # The HTTP exporter uses an explicit endpoint verbatim: accept the base URL users know.
    url = endpoint.rstrip("/")
    if not url.endswith("/v1/traces"):
        url += "/v1/traces"
    return HTTPExporter(endpoint=url)
