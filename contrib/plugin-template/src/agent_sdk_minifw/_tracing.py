"""minifw has no tracing of its own: an observer emits the top agent's ``invoke_agent`` span
and a ``chat`` span per model call, so its trace has the same skeleton as every framework's
(C13). Sub-agents get their ``invoke_agent`` span from agent-sdk; their observer adds only
the model calls."""

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
