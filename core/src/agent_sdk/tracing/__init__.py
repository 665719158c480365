"""Tracing: agent-sdk's spans, and what an application uses to see them.

- ``spans``: the spans agent-sdk makes (tool calls, runs, sub-agents) and the tracer they
  use (``get_tracer``, ``use_tracer_provider``, ``capture_content``);
- ``genai``: the GenAI spans a plugin emits for what its framework does not trace itself;
- ``run_processor``: run id and path on every span started inside a run;
- ``configure``: ``configure_tracing``, the OpenTelemetry SDK set up with an exporter;
- ``trace_file``: Jaeger JSON files, written as spans end, read back, printed as trees;
- ``propagation``: carrying a hierarchy across processes (``inject``, ``continue_run``);
- ``semconv``: attribute and span names.

The library itself only uses opentelemetry-api and never sets the global tracer provider;
``configure_tracing`` does, when the application calls it.
"""

from typing import TYPE_CHECKING

from agent_sdk.exports import lazy_exports
from agent_sdk.tracing.spans import capture_content, use_tracer_provider
from agent_sdk.tracing.spans import tracer as get_tracer

if TYPE_CHECKING:
    from agent_sdk.tracing.configure import configure_tracing
    from agent_sdk.tracing.propagation import continue_run, inject
    from agent_sdk.tracing.trace_file import JaegerFileExporter, format_tree, load_trace_file

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

# The spans are imported by every tool call; setting up the SDK, files and propagation wait
# until they are used. ``extract`` (0.1) is ``continue_run``: it warns once.
__getattr__ = lazy_exports(
    __name__,
    {
        "configure_tracing": "agent_sdk.tracing.configure",
        "continue_run": "agent_sdk.tracing.propagation",
        "inject": "agent_sdk.tracing.propagation",
        "JaegerFileExporter": "agent_sdk.tracing.trace_file",
        "format_tree": "agent_sdk.tracing.trace_file",
        "load_trace_file": "agent_sdk.tracing.trace_file",
    },
    submodules=True,
)
