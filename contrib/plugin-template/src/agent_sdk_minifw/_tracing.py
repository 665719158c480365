"""minifw has no tracing of its own: an observer emits the top agent's ``invoke_agent`` span
and a ``chat`` span per model call, so its trace has the same skeleton as every framework's
(C13). Sub-agents get their ``invoke_agent`` span from agent-sdk; their observer adds only
the model calls. ``minifw_instrument(agent)`` is the opt-in for top-level agents."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

from agent_sdk.integration import agent_span, record_model_call
from agent_sdk_minifw.framework import Agent, ModelCallReport, Observer

PROVIDER = "minifw"


class SpanObserver(Observer):
    def __init__(self, *, agent_spans: bool = True) -> None:
        self.agent_spans = agent_spans

    def agent_run(self, agent: Agent) -> AbstractContextManager[Any]:
        return agent_span(agent.name, provider=PROVIDER) if self.agent_spans else nullcontext()

    def model_called(self, report: ModelCallReport) -> None:
        record_model_call(
            report.model,
            provider=PROVIDER,
            start_ns=report.start_ns,
            end_ns=report.end_ns,
            response_model=report.model,
            finish_reasons=[report.finish_reason],
        )


def minifw_instrument(agent: Agent) -> Agent:
    """Trace a top-level minifw agent the way agent-sdk traces the agents it runs: an
    ``invoke_agent`` span per run and a ``chat`` span per model call, in the run's tree.
    Adds the observer once; returns ``agent``."""
    if not any(isinstance(o, SpanObserver) for o in agent.observers):
        agent.observers.append(SpanObserver())
    return agent


def _observer() -> SpanObserver:
    """What the deprecated ``minifw_observer()`` still answers: the observer to pass
    yourself (``minifw_instrument`` adds it)."""
    return SpanObserver()
