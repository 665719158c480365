"""Run id and path on every span started inside a run, the frameworks' own spans included.

agent-sdk's spans carry ``agent_sdk.run_id``, ``agent_sdk.path`` and ``agent_sdk.depth``
themselves. A framework's spans (its agent, model-call and tool spans) know nothing of the
run; ``RunSpanProcessor`` stamps them when they start, from the run in the context of the
code that starts them. Spans started outside any run are left untouched.

``configure_tracing`` adds it to the provider it builds; with a provider of your own, add it
first: ``provider.add_span_processor(RunSpanProcessor())``.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

from agent_sdk.context import current_context
from agent_sdk.run import RUN_VAR
from agent_sdk.tracing import semconv as sc
from agent_sdk.tracing.spans import base_attributes


class RunSpanProcessor(SpanProcessor):
    """Stamps run id, path and depth on spans started inside a run that lack them."""

    def on_start(self, span: Span, parent_context: Any = None) -> None:
        attributes = span.attributes or {}
        if sc.RUN_ID in attributes:
            return  # one of ours, or stamped already: asked first, it is most spans
        ctx = current_context()
        if ctx is None or RUN_VAR.get() is None:
            return
        for key, value in base_attributes(ctx, ctx.path).items():
            if key not in attributes:  # a conversation id the framework set stays its own
                span.set_attribute(key, value)

    def on_end(self, span: ReadableSpan) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


__all__ = ["RunSpanProcessor"]
