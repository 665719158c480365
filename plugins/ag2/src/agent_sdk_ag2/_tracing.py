"""GenAI spans for AG2 agents: an AG2 middleware that emits the agent's ``invoke_agent``
span around each turn and a ``chat {model}`` span per model call, with the tokens, response
model and finish reason AG2's client reported.

AG2 emits no spans unless ``TelemetryMiddleware`` is added, and then it captures message
content by default and wraps our tools in a second ``execute_tool`` span. This middleware
is agent-sdk's alternative: the spans go through agent-sdk's tracer (run id and path from
the context, content never captured).

* ``ag2_instrument(agent)`` adds it to a top-level agent of the user's own.
* The agents the plugin runs as sub-agents (``ag2_agent_tool``) get the chat spans on each
  call (their ``invoke_agent`` span is agent-sdk's, around the call), unless the agent
  already carries this middleware or AG2's ``TelemetryMiddleware``: those spans are
  adopted, not doubled.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Sequence
from typing import Any

from ag2 import Agent
from ag2.events import BaseEvent, ModelResponse
from ag2.middleware import BaseMiddleware
from ag2.middleware.base import AgentTurn, LLMCall

from agent_sdk import Usage
from agent_sdk.integration import agent_span, record_model_call, tracing_enabled

PROVIDER = "ag2"
"""``gen_ai.provider.name`` of the agent spans, and of chat spans whose client names no
provider (AG2's test clients; its OpenAI clients say ``openai``)."""

# The agent an agent-sdk sub-agent call is asking right now: its invoke_agent span is
# agent-sdk's, so this middleware on that agent adds only the chat spans.
_asked_as_tool: contextvars.ContextVar[Agent | None] = contextvars.ContextVar(
    "agent_sdk_ag2_asked_as_tool", default=None
)


class SpanMiddleware:
    """An AG2 middleware factory: ``invoke_agent {name}`` around each turn (``agent_spans``)
    and ``chat {model}`` per model call of ``agent``."""

    def __init__(self, agent: Agent, *, agent_spans: bool = True) -> None:
        self.agent = agent
        self.agent_spans = agent_spans

    def __call__(self, event: BaseEvent, context: Any) -> BaseMiddleware:
        return _Spans(event, context, owner=self)


class _Spans(BaseMiddleware):
    def __init__(self, event: BaseEvent, context: Any, *, owner: SpanMiddleware) -> None:
        super().__init__(event, context)
        self._owner = owner

    async def on_turn(self, call_next: AgentTurn, event: BaseEvent, context: Any) -> ModelResponse:
        agent = self._owner.agent
        if not self._owner.agent_spans or _asked_as_tool.get() is agent:
            return await call_next(event, context)
        token = _asked_as_tool.set(None)
        try:
            with agent_span(str(agent.name), provider=PROVIDER):
                return await call_next(event, context)
        finally:
            _asked_as_tool.reset(token)

    async def on_llm_call(
        self, call_next: LLMCall, events: Sequence[BaseEvent], context: Any
    ) -> ModelResponse:
        if not tracing_enabled():
            return await call_next(events, context)
        config = self._owner.agent.config
        model = str(_setting(config, "model") or "")
        server_url = _setting(config, "base_url")
        server_url = str(server_url) if server_url else None
        start = time.time_ns()
        try:
            response = await call_next(events, context)
        except Exception as exc:
            record_model_call(
                model or "unknown",
                provider=PROVIDER,
                start_ns=start,
                server_url=server_url,
                error_type=type(exc).__qualname__,
            )
            raise
        usage = response.usage
        record_model_call(
            model or response.model or "unknown",
            provider=response.provider or PROVIDER,
            start_ns=start,
            end_ns=time.time_ns(),
            usage=Usage(
                input_tokens=int(usage.prompt_tokens or 0),
                output_tokens=int(usage.completion_tokens or 0),
            ),
            response_model=response.model or model or None,
            response_id=response.response_id,
            finish_reasons=[response.finish_reason] if response.finish_reason else (),
            server_url=server_url,
        )
        return response


def _setting(config: Any, name: str) -> Any:
    """A config setting, or None: some configs raise instead (AG2's TestConfig.model)."""
    try:
        return getattr(config, name, None)
    except Exception:
        return None


def ag2_instrument(agent: Agent) -> Agent:
    """Trace ``agent`` the way agent-sdk traces the agents it runs: adds (once) an AG2
    middleware that wraps each of its turns in an ``invoke_agent {name}`` span and each
    model call in a ``chat {model}`` span (tokens, response model, finish reason), with the
    run id and path of the agent-sdk run it is in. Returns ``agent``. Use it on your own
    top-level agents; the agents run by ``ag2_agent_tool`` get their spans already. An
    agent that carries AG2's ``TelemetryMiddleware`` is left as it is."""
    if not has_spans(agent):
        agent.add_middleware(SpanMiddleware(agent))
    return agent


def has_spans(agent: Agent) -> bool:
    """Whether ``agent`` already traces its turns: our middleware or AG2's telemetry."""
    kinds: tuple[type, ...] = (SpanMiddleware,)
    try:
        from ag2.middleware import TelemetryMiddleware

        kinds += (TelemetryMiddleware,)
    except ImportError:  # OpenTelemetry SDK missing: AG2's telemetry cannot be in use
        pass
    return any(isinstance(m.middleware, kinds) for m in agent.middleware)


__all__ = ["PROVIDER", "SpanMiddleware", "ag2_instrument", "has_spans"]
