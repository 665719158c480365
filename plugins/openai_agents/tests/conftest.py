"""Shared fixtures: SDK trace export is off for every test, and nothing global is left changed."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from agents.tracing import get_trace_provider, set_trace_processors
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent_sdk.plugins import ENV_ONLY, reset_plugins
from agent_sdk.tracing import use_tracer_provider


@pytest.fixture(autouse=True, scope="module")
def _only_the_openai_agents_plugin() -> Iterator[None]:
    """Load only this plugin's entry point (other frameworks take seconds to import)."""
    before = os.environ.get(ENV_ONLY)
    os.environ[ENV_ONLY] = "openai-agents"
    reset_plugins()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV_ONLY, None)
        else:
            os.environ[ENV_ONLY] = before
        reset_plugins()


@pytest.fixture(autouse=True)
def no_sdk_trace_export() -> Iterator[None]:
    """Tests that enable SDK tracing must not export to OpenAI: the processor list is
    emptied for the test and put back afterwards."""
    multi = get_trace_provider()._multi_processor  # type: ignore[attr-defined]
    saved = tuple(multi._processors)
    set_trace_processors([])
    try:
        yield
    finally:
        set_trace_processors(list(saved))


@pytest.fixture
def otel() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    try:
        yield exporter
    finally:
        use_tracer_provider(None)
        provider.shutdown()
