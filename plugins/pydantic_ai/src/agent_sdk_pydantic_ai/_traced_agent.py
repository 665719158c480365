"""A pydantic-ai agent traced with the trace skeleton alone: ``pydantic_ai_instrument(agent)``.

pydantic-ai's spans come from its ``Instrumentation`` capability, and pydantic-ai copies the
``RunContext`` for every capability of a run at every hook (about nine copies per tool call)
whatever the capability does there. ``TracedAgent`` makes the skeleton's spans without a
capability: an ``invoke_agent`` span around each run (``Agent.iter``, which ``run``,
``run_sync`` and the streamed runs go through) and a ``chat`` span per model request from a
model wrapper (``ChatSpans``) given to the run as its model; our tools' ``execute_tool``
spans are the executor's. So a traced run costs the spans and nothing per hook.

What it leaves out (the capability, ``pydantic_ai_instrument()``, has them): spans of
pydantic-ai's own tools (export them with ``pydantic_ai_tool`` to trace them), message content
(never recorded, whatever the content opt-in), pydantic-ai's attributes beyond the skeleton's.
A run that agent-sdk records nothing of runs as the wrapped agent's own.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from pydantic_ai import RunUsage
from pydantic_ai.agent import AbstractAgent, WrapperAgent
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from agent_sdk import Usage
from agent_sdk.integration import ModelCall, agent_span, model_call, tracing_enabled
from agent_sdk.integration import semconv as sc

PROVIDER = "pydantic_ai"

# What the model calls of the traced run now going on used (its sub-agents' runs are theirs):
# the invoke_agent span's tokens. None outside a traced run: ChatSpans then only hands on.
_own_usage: contextvars.ContextVar[RunUsage | None] = contextvars.ContextVar(
    "agent_sdk_pydantic_ai_own_usage", default=None
)


def _noted(call: ModelCall, response: ModelResponse) -> None:
    usage = response.usage
    call.usage = Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)
    call.response_model = response.model_name
    call.response_id = response.provider_response_id
    if response.finish_reason is not None:
        call.finish_reasons = (response.finish_reason,)
    own = _own_usage.get()
    if own is not None:
        own.incr(usage)


class ChatSpans(WrapperModel):
    """A model whose requests inside a traced run each get a ``chat {model}`` span (model,
    provider, server, tokens, response model and id, finish reason; no content)."""

    @contextmanager
    def _span(self) -> Iterator[ModelCall | None]:
        if _own_usage.get() is None:
            yield None
            return
        wrapped = self.wrapped
        with model_call(
            wrapped.model_name, provider=wrapped.system, server_url=wrapped.base_url
        ) as call:
            yield call

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        with self._span() as call:
            response = await self.wrapped.request(
                messages, model_settings, model_request_parameters
            )
            if call is not None:
                _noted(call, response)
            return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: Any = None,
    ) -> AsyncIterator[StreamedResponse]:
        with self._span() as call:
            async with self.wrapped.request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as stream:
                yield stream
            if call is not None:
                _noted(call, stream.get())


def _chat_spans(model: Any) -> Any:
    if model is None or isinstance(model, ChatSpans):
        return model  # none: pydantic-ai's own error for an agent without a model
    return ChatSpans(model)


class TracedAgent(WrapperAgent[Any, Any]):
    """``agent`` with the trace skeleton's ``invoke_agent`` and ``chat`` spans while agent-sdk
    records (see the module docstring); everything else is the wrapped agent's. Given to
    ``pydantic_ai_agent_tool``, the wrapped agent is the sub-agent (agent-sdk traces those)."""

    @asynccontextmanager
    async def iter(  # every option is handed on as it came
        self, user_prompt: Any = None, *, model: Any = None, **options: Any
    ) -> AsyncIterator[Any]:
        if not tracing_enabled():
            async with self.wrapped.iter(user_prompt, model=model, **options) as run:
                yield run
            return
        used = RunUsage()
        with agent_span(self.wrapped.name or "agent", provider=PROVIDER) as span:
            token = _own_usage.set(used)
            try:
                chosen = _chat_spans(model if model is not None else self.wrapped.model)
                async with self.wrapped.iter(user_prompt, model=chosen, **options) as run:
                    yield run
            finally:
                _own_usage.reset(token)
                span.set_attribute(sc.GEN_AI_USAGE_INPUT_TOKENS, used.input_tokens)
                span.set_attribute(sc.GEN_AI_USAGE_OUTPUT_TOKENS, used.output_tokens)

    @contextmanager
    def override(self, *, model: Any = None, **options: Any) -> Iterator[None]:
        """The wrapped agent's ``override``; an overriding model (which wins over the one
        each run is given) gets the chat spans too."""
        if model is not None:
            options["model"] = _chat_spans(model)
        with self.wrapped.override(**options):
            yield


def unwrapped(agent: AbstractAgent[Any, Any]) -> AbstractAgent[Any, Any]:
    """The agent a ``TracedAgent`` wraps (a sub-agent gets agent-sdk's spans), else ``agent``."""
    while isinstance(agent, TracedAgent):
        agent = agent.wrapped
    return agent


def traced(agent: AbstractAgent[Any, Any]) -> TracedAgent:
    return agent if isinstance(agent, TracedAgent) else TracedAgent(agent)


__all__ = ["PROVIDER", "ChatSpans", "TracedAgent", "traced", "unwrapped"]
