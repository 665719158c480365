"""agent-sdk's spans into memory for a test: the one setup the kit's fixtures and checks use."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from agent_sdk.tracing.spans import use_tracer_provider

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


@contextmanager
def recording_spans(*, stamp_runs: bool = False) -> Iterator[InMemorySpanExporter]:
    """An in-memory exporter receiving agent-sdk's spans for the block (through
    ``use_tracer_provider``; the global provider is never touched). ``stamp_runs`` adds
    ``RunSpanProcessor`` first, as ``configure_tracing`` does."""
    # Imported here: the pytest plugin loads this module in every test session.
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agent_sdk.tracing.run_processor import RunSpanProcessor

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    if stamp_runs:
        provider.add_span_processor(RunSpanProcessor())
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    try:
        yield exporter
    finally:
        use_tracer_provider(None)
        provider.shutdown()


__all__ = ["recording_spans"]
