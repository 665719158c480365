"""The GenAI spans of the agents agent-sdk runs: ``invoke_agent`` for an orchestrated agent,
``chat {model}`` per model call, and none of fast-agent's per-run spans in their place.

fast-agent traces on the global tracer provider whether its own OTel is on or not: an app
span named after the ``FastAgent`` (for the whole ``fast.run()``) and an
``Agent: '<name>' generate`` span per ``generate``/``structured``/``structured_schema``,
with no GenAI attributes and the clone's name (``legal[1]``) in it. It has no model-call
span of its own (only the OpenAI/Google client instrumentations it installs when its OTel
is on, which give no fast-agent usage). So on the agents the plugin runs (orchestrated
agents and the clones of agent tools):

- fast-agent's per-run span is left out (the agent's tracer passes those through); the
  orchestrated agent gets agent-sdk's ``invoke_agent`` instead and a clone already has the
  one of its tool call (with the clone's name in ``agent_sdk.clone``);
- every model call of the agent's LLM is a ``chat {model}`` span with the tokens, model and
  stop reason fast-agent's usage tracking reports for it.

fast-agent's other spans (the app span, MCP tool calls, prompt templates, workflow agents)
are kept as they are.

``fast_agent_instrument(agent)`` is the opt-in for a top-level agent: its runs get that
span, and with it what makes them agent-sdk runs (a conversation id, a ``run_scope``, the
budget stop, the turn-level gate).
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from fast_agent.agents.tool_runner import ToolRunnerHooks
from fast_agent.llm.request_params import RequestParams
from opentelemetry import trace
from opentelemetry.trace import Span, Tracer

from agent_sdk import ConfigurationError, HierarchyLimits, Usage, current_run, run_scope
from agent_sdk.integration import (
    ModelCall,
    agent_span,
    current_context,
    model_call,
    tracing_enabled,
)

from ._approval import ToolGate, gated_run_tools
from ._arguments import strict_arguments
from ._context import (
    Conversation,
    RunControl,
    current_conversation,
    new_conversation_id,
    use_conversation,
)
from ._loop import display_scope, honour_cancellation, install_hooks, stop_check

_STATE = "_agent_sdk_fast_agent"

PROVIDER = "fast-agent"
"""``gen_ai.provider.name`` of the agent spans (the framework); chat spans name the model's
provider (``provider_name``)."""

_TRACED = "_agent_sdk_traced_model_calls"
_RUN_SPANS = ("' generate", "' structured", "' structured_schema")
_MODEL_CALLS = (
    "_apply_prompt_provider_specific",
    "_apply_prompt_provider_specific_structured",
    "_apply_prompt_provider_specific_structured_schema",
)

# fast-agent's provider (``Provider.value``) -> gen_ai.provider.name (GenAI semconv v0.1.0
# well-known values); anything else keeps fast-agent's name.
_PROVIDERS = {
    "openai": "openai",
    "responses": "openai",
    "codexresponses": "openai",
    "generic": "openai",  # fast-agent's OpenAI-compatible Chat Completions client
    "azure": "azure.ai.openai",
    "anthropic": "anthropic",
    "anthropic-vertex": "gcp.vertex_ai",
    "google": "gcp.gemini",
    "googleoai": "gcp.gemini",
    "bedrock": "aws.bedrock",
    "deepseek": "deepseek",
    "xai": "x_ai",
    "groq": "groq",
}

# fast-agent's stop reasons (``LlmStopReason``) as the finish reasons OpenAI-style APIs name.
_FINISH = {
    "endTurn": "stop",
    "stopSequence": "stop",
    "toolUse": "tool_calls",
    "maxTokens": "length",
    "safety": "content_filter",
}

# Stop reasons of a model call that did not complete (the span is an error of that type).
_FAILED = frozenset({"cancelled", "error"})

_in_model_call: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "agent_sdk_fast_agent_in_model_call", default=None
)
_in_agent_run: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "agent_sdk_fast_agent_in_agent_run", default=None
)


class _WithoutRunSpans(Tracer):
    """An agent's tracer without fast-agent's ``Agent: '<name>' generate`` spans (the span
    current at the call stays current); its other spans go to the agent's own tracer."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer

    def start_span(self, name: str, *args: Any, **kwargs: Any) -> Span:
        return self.tracer.start_span(name, *args, **kwargs)

    def start_as_current_span(  # type: ignore[override]
        self, name: str, *args: Any, **kwargs: Any
    ) -> AbstractContextManager[Span]:
        if name.endswith(_RUN_SPANS):
            return nullcontext(trace.get_current_span())
        return self.tracer.start_as_current_span(name, *args, **kwargs)


def without_run_spans(agent: Any) -> None:
    """Leave fast-agent's per-run span of ``agent`` out (idempotent)."""
    tracer = getattr(agent, "_tracer", None)
    if tracer is not None and not isinstance(tracer, _WithoutRunSpans):
        agent._tracer = _WithoutRunSpans(tracer)


@contextmanager
def agent_run_span(agent: Any) -> Iterator[None]:
    """agent-sdk's ``invoke_agent {name}`` around a top-level run of an orchestrated agent
    (once: a run calling another of its methods gets no second span)."""
    if _in_agent_run.get() is agent:
        yield
        return
    token = _in_agent_run.set(agent)
    try:
        with agent_span(agent.name, provider=PROVIDER):
            yield
    finally:
        _in_agent_run.reset(token)


def provider_name(llm: Any) -> str:
    """``gen_ai.provider.name`` of an LLM's model calls."""
    value = str(getattr(getattr(llm, "provider", None), "value", "") or PROVIDER)
    return _PROVIDERS.get(value, value)


def trace_model_calls(llm: Any) -> None:
    """A ``chat {model}`` span around every model call of ``llm`` (idempotent; the LLM of
    an agent can be replaced, so call it per run)."""
    if llm is None or llm.__dict__.get(_TRACED):
        return
    for method in _MODEL_CALLS:
        original = getattr(llm, method, None)
        if original is not None:
            setattr(llm, method, _traced(llm, original))
    llm.__dict__[_TRACED] = True


def _traced(llm: Any, original: Callable[..., Awaitable[Any]]) -> Any:
    @functools.wraps(original)
    async def call(*args: Any, **kwargs: Any) -> Any:
        # The structured variants call the plain one on some providers: one span, outermost.
        if _in_model_call.get() is llm or not tracing_enabled():
            return await original(*args, **kwargs)
        token = _in_model_call.set(llm)
        try:
            accumulator = getattr(llm, "usage_accumulator", None)
            first = len(getattr(accumulator, "turns", None) or [])
            with model_call(
                _model(llm, args, kwargs), provider=provider_name(llm), server_url=_server(llm)
            ) as report:
                result = await original(*args, **kwargs)
                _fill(report, accumulator, first, result)
            return result
        finally:
            _in_model_call.reset(token)

    return call


def _model(llm: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    params = kwargs.get("request_params")
    if params is None:
        params = next((a for a in args if isinstance(a, RequestParams)), None)
    model = getattr(params, "model", None) or getattr(llm, "model_name", None)
    return str(model or "unknown")


def _server(llm: Any) -> str | None:
    base_url = getattr(llm, "_base_url", None)
    try:
        url = base_url() if callable(base_url) else None
    except Exception:
        return None
    return url if isinstance(url, str) else None


def _fill(report: ModelCall, accumulator: Any, first: int, result: Any) -> None:
    # Only this call's turns (the accumulator keeps every turn of the agent's life).
    turns = (getattr(accumulator, "turns", None) or [])[first:]
    if turns:
        report.usage = Usage(
            input_tokens=sum(getattr(t.prompt, "total", 0) or 0 for t in turns),
            output_tokens=sum(getattr(t.completion, "total", 0) or 0 for t in turns),
        )
        report.response_model = getattr(turns[-1], "model", None) or None
    message = result[-1] if isinstance(result, tuple) and result else result
    reason = getattr(message, "stop_reason", None)
    if reason is not None:
        value = str(getattr(reason, "value", reason))
        report.finish_reasons = (_FINISH.get(value, value),)
        if value in _FAILED:
            # fast-agent answers a cancelled or failed call with a reply instead of raising
            report.error_type = value


# -- the opt-in for top-level agents -------------------------------------------------------
@dataclass
class _AgentState:
    limits: HierarchyLimits | None
    gate: ToolGate | None
    display: bool


def fast_agent_instrument(
    agent: Any,
    *,
    tools: Iterable[Any] = (),
    limits: HierarchyLimits | None = None,
    gate: ToolGate | None = None,
    display: bool = False,
) -> Any:
    """Make a fast-agent agent a well-behaved agent-sdk orchestrator; returns the agent.
    (Called ``orchestrate`` and, before that, ``instrument``; both still work and warn.)

    - adds ``tools`` (``fast_agent_tool``/``fast_agent_agent_tool`` results) to the agent;
    - every top-level ``generate``/``send``/``structured[_schema]`` is one conversation with a
      minted id (fast-agent has none), carried to every tool call and clone; without an active
      ``run_scope`` it also opens one (root span, guards with ``limits``, cost report);
    - a spent model-call budget stops the run: no agent of it calls its model again and
      ``HierarchyLimitError`` leaves ``generate`` (fast-agent would turn it into a tool
      result and go on);
    - ``gate`` (``INTEGRATION.bind_approval(port)``) approves fast-agent's own tools;
    - arguments are the model's own: where fast-agent's OpenAI providers would complete
      truncated JSON or fail the turn on text that is not a JSON object, the call gets
      ``tool-args-invalid`` and the turn goes on (see ``_arguments``);
    - fast-agent's console display stays off unless ``display=True``.

    Safe to call again (updates the options, adds more tools). Hooks are merged with the
    agent's own ``tool_runner_hooks``, never replacing them.
    """
    if gate is not None and not isinstance(gate, ToolGate):
        raise ConfigurationError("gate must be a ToolGate (INTEGRATION.bind_approval(port))")
    if limits is not None and not isinstance(limits, HierarchyLimits):
        raise ConfigurationError("limits must be agent_sdk.HierarchyLimits")
    state: _AgentState | None = agent.__dict__.get(_STATE)
    if state is None:
        if not install_hooks(agent, ToolRunnerHooks(before_llm_call=stop_check)):
            raise ConfigurationError(
                f"{type(agent).__name__} has no tool loop hooks; instrument a fast-agent "
                "tool-calling agent (McpAgent, ToolAgent, AgentsAsToolsAgent)"
            )
        state = _AgentState(limits, gate, display)
        agent.__dict__[_STATE] = state
        without_run_spans(agent)
        _wrap_runs(agent, state)
        agent.run_tools = gated_run_tools(agent, agent.run_tools, lambda: state.gate)
    else:
        state.limits = limits if limits is not None else state.limits
        state.gate = gate if gate is not None else state.gate
        state.display = display
    for tool in tools:
        agent.add_tool(tool)
    return agent


def _wrap_runs(agent: Any, state: _AgentState) -> None:
    for method in ("generate", "structured", "structured_schema"):
        original = getattr(agent, method, None)
        if original is not None:
            setattr(agent, method, _run_wrapper(agent, original, state))


def _run_wrapper(agent: Any, original: Callable[..., Awaitable[Any]], state: _AgentState) -> Any:
    @functools.wraps(original)
    async def run(*args: Any, **kwargs: Any) -> Any:
        llm = getattr(agent, "llm", None)  # the LLM may have been replaced
        strict_arguments(llm)
        trace_model_calls(llm)
        conv = current_conversation()
        with ExitStack() as stack:
            if conv is None:
                conv = Conversation(new_conversation_id(), agent.name, RunControl())
                stack.enter_context(use_conversation(conv))
            stack.enter_context(display_scope(state.display))
            if current_run() is None and current_context() is None:
                stack.enter_context(run_scope(conv.id, limits=state.limits, name=agent.name))
            stack.enter_context(agent_run_span(agent))
            result = await original(*args, **kwargs)
            honour_cancellation(result)
            if conv.control.stop is not None:
                raise conv.control.stop
            return result

    return run


__all__ = [
    "PROVIDER",
    "agent_run_span",
    "fast_agent_instrument",
    "provider_name",
    "trace_model_calls",
    "without_run_spans",
]
