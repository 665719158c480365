"""pydantic-ai's own spans (``invoke_agent``, ``chat``, ``execute_tool``) in agent-sdk's
trace: one tree, no duplicate tool spans, content capture by agent-sdk's opt-in.

``AgentSdkInstrumentation`` is pydantic-ai's ``Instrumentation`` capability, wrapped (the
same id: given to a run, it replaces an agent's own), with three changes:

- its spans go to agent-sdk's tracer (``use_tracer_provider`` or the global provider), or to
  a ``tracer_provider`` given to it; a run that starts while agent-sdk would record nothing
  (``tracing_enabled()``) runs without it (``for_run`` hands pydantic-ai an empty group):
  pydantic-ai copies the ``RunContext`` for every capability at every hook, so a present
  capability costs a run even when its hooks do nothing;
- a call of one of our tools gets no pydantic-ai ``execute_tool`` span: the executor makes it
  (with the run id, path, outcome and error), so there is one span per call; a sub-agent run
  by an agent tool gets no pydantic-ai ``invoke_agent`` span: agent-sdk's is its agent span
  (``child=True``); the top agent's carries ``gen_ai.provider.name`` and its tokens;
- message content is recorded only when agent-sdk captures content
  (``agent_sdk.tracing.capture_content`` or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``);
  pydantic-ai records it by default.

Every sub-agent an agent tool runs gets one (``child=True``); ``pydantic_ai_instrument()``
is the one for the agents you run yourself.

``TracedAgent`` (``pydantic_ai_instrument(agent)``): an agent you run, traced with the trace
skeleton alone. pydantic-ai copies the ``RunContext`` for every capability of a run at every
hook (about nine copies per tool call) whatever the capability does there, so it makes its
spans without one: an ``invoke_agent`` span around each run (``Agent.iter``, which ``run``,
``run_sync`` and the streamed runs go through) and a ``chat`` span per model request from a
model wrapper (``ChatSpans``) given to the run as its model; our tools' ``execute_tool`` spans
are the executor's. What it leaves out (the capability has them): spans of pydantic-ai's own
tools (export them with ``pydantic_ai_tool`` to trace them), message content (never
recorded, whatever the content opt-in), pydantic-ai's attributes beyond the skeleton's. A
run that agent-sdk records nothing of is the wrapped agent's own.
"""

from __future__ import annotations

import contextvars
import copy
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from pydantic_ai import RunContext
from pydantic_ai.agent import AbstractAgent, WrapperAgent
from pydantic_ai.capabilities import (
    AbstractCapability,
    CombinedCapability,
    Instrumentation,
    WrapperCapability,
)
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models import ModelRequestParameters, StreamedResponse
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from agent_sdk import Usage
from agent_sdk.integration import (
    ModelCall,
    agent_span,
    content_captured,
    get_tracer,
    model_call,
    tracing_enabled,
)
from agent_sdk.integration import semconv as sc
from agent_sdk_pydantic_ai._tools import TOOL_MARK

PROVIDER = "pydantic_ai"
"""``gen_ai.provider.name`` of agent spans (pydantic-ai sets none on its own)."""


class _AgentSdkTracer(trace.Tracer):
    """pydantic-ai's tracer: agent-sdk's, looked up per span (it follows
    ``use_tracer_provider``)."""

    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        return get_tracer().start_span(*args, **kwargs)

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        return get_tracer().start_as_current_span(*args, **kwargs)


_TRACER = _AgentSdkTracer()
_settings_lock = threading.Lock()
_default_settings: dict[bool, InstrumentationSettings] = {}


def _settings(provider: trace.TracerProvider | None, content: bool) -> InstrumentationSettings:
    made = InstrumentationSettings(
        tracer_provider=provider,
        include_content=content,
        include_binary_content=content,
        include_model_request_parameters=content,
    )
    if provider is None:
        made.tracer = _TRACER
    return made


def default_settings(content: bool) -> InstrumentationSettings:
    """The settings of agent-sdk's tracer, with or without content (made once each)."""
    found = _default_settings.get(content)
    if found is None:
        with _settings_lock:
            found = _default_settings.setdefault(content, _settings(None, content))
    return found


def _instrumentation() -> Instrumentation:
    return Instrumentation(settings=default_settings(False))


@dataclass
class AgentSdkInstrumentation(WrapperCapability[Any], Instrumentation):
    """pydantic-ai's ``Instrumentation`` in agent-sdk's trace (see the module docstring).

    A transparent wrapper of an ``Instrumentation``, and one itself: across an agent's and a
    run's capabilities pydantic-ai compares what a wrapper holds (a plain subclass under the
    id would be refused as another class), so given to a run it replaces an agent's own
    ``Instrumentation()``; and as one, ``Agent.instrument_all()`` injects no second one."""

    wrapped: AbstractCapability[Any] = field(default_factory=_instrumentation)
    tracer_provider: trace.TracerProvider | None = field(default=None, kw_only=True)
    """Where pydantic-ai's spans go (default: agent-sdk's tracer)."""
    child: bool = field(default=False, kw_only=True)
    """A sub-agent run by an agent tool: agent-sdk's ``invoke_agent`` span is its agent span."""
    _own: dict[bool, InstrumentationSettings] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _live: bool = field(default=False, init=False, repr=False, compare=False)
    """The copy ``for_run`` made for a run that records: its hooks make spans, any other
    instance's hooks hand straight on."""

    def __post_init__(self) -> None:
        WrapperCapability.__post_init__(self)
        # Its own Instrumentation fields are never used for spans (the wrapped one's are);
        # they hold the same content-free settings, so nothing reading them records content.
        self.settings = default_settings(False)

    async def for_run(self, ctx: RunContext[Any]) -> Any:  # not always an Instrumentation
        if not self._recording():
            # Nothing will be recorded: the run goes without this capability (an empty group
            # leaves pydantic-ai's dispatch), unless it stands in for another Instrumentation
            # the agent has (that one would record instead): then it stays and hands on.
            return self if _replaces_another(self, ctx) else _NOTHING
        bound = await super().for_run(ctx)
        # The copy whose hooks make spans (a wrapped capability without per-run state gives
        # back this instance itself, which other runs share).
        live = bound if isinstance(bound, AgentSdkInstrumentation) and bound is not self else None
        if live is None:
            live = copy.copy(self)
        inner = live.wrapped
        if isinstance(inner, Instrumentation):
            content = content_captured()
            if self.tracer_provider is None:
                inner.settings = default_settings(content)
            else:
                own = self._own.get(content)
                if own is None:
                    own = self._own[content] = _settings(self.tracer_provider, content)
                inner.settings = own
        live._live = True
        return live

    def _recording(self) -> bool:
        return self.tracer_provider is not None or tracing_enabled()

    async def wrap_run(self, ctx: RunContext[Any], *, handler: Any) -> Any:
        if self.child or not self._live:
            return await handler()
        inner = self.wrapped

        async def tagged() -> Any:
            span = trace.get_current_span()
            span.set_attribute(sc.GEN_AI_PROVIDER_NAME, PROVIDER)
            result = await handler()
            usage = getattr(inner, "_run_usage", None)
            if usage is not None:  # what this run's own model calls used
                span.set_attribute(sc.GEN_AI_USAGE_INPUT_TOKENS, usage.input_tokens)
                span.set_attribute(sc.GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens)
            return result

        return await inner.wrap_run(ctx, handler=tagged)

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, handler: Any
    ) -> ModelResponse:
        if not self._live:
            return await handler(request_context)  # type: ignore[no-any-return]
        return await self.wrapped.wrap_model_request(
            ctx, request_context=request_context, handler=handler
        )

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
        handler: Any,
    ) -> Any:
        metadata = tool_def.metadata
        if not self._live or (metadata is not None and TOOL_MARK in metadata):
            return await handler(args)  # ours: the executor's execute_tool span is the one
        return await self.wrapped.wrap_tool_execute(
            ctx, call=call, tool_def=tool_def, args=args, handler=handler
        )

    async def on_tool_validate_error(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
        error: Any,
    ) -> Any:
        if not self._live:
            raise error  # what the base capability does: no span, the error stands
        return await self.wrapped.on_tool_validate_error(
            ctx, call=call, tool_def=tool_def, args=args, error=error
        )

    async def wrap_output_process(
        self, ctx: RunContext[Any], *, output_context: Any, output: Any, handler: Any
    ) -> Any:
        if not self._live:
            return await handler(output)
        return await self.wrapped.wrap_output_process(
            ctx, output_context=output_context, output=output, handler=handler
        )


def pydantic_ai_instrument(
    *, tracer_provider: trace.TracerProvider | None = None
) -> AgentSdkInstrumentation:
    """Trace the agents you run yourself the way agent-sdk traces the agents it runs: the
    capability to give them (``Agent(..., capabilities=[pydantic_ai_instrument()])`` or
    ``agent.run(..., capabilities=[...])``), in place of pydantic-ai's ``Instrumentation()``.
    Their ``invoke_agent``, ``chat`` and ``execute_tool`` spans join the run's tree (run id
    and path stamped by ``RunSpanProcessor``), our tools' calls keep the executor's span
    only, and content is recorded only when agent-sdk captures content."""
    return AgentSdkInstrumentation(tracer_provider=tracer_provider)


def child_capabilities() -> Sequence[AgentSdkInstrumentation]:
    """What every sub-agent run by an agent tool is traced with: nothing while agent-sdk
    records nothing (a capability costs a pydantic-ai run even when its hooks do nothing)."""
    return (_CHILD,) if tracing_enabled() else ()


_CHILD = AgentSdkInstrumentation(child=True)
_NOTHING: CombinedCapability[Any] = CombinedCapability([])
"""What ``for_run`` hands pydantic-ai for a run that records nothing: a plain group, merged
into the run's capabilities, so no capability is left to dispatch to."""


def _replaces_another(instrument: AgentSdkInstrumentation, ctx: RunContext[Any]) -> bool:
    """Whether the agent of the run has an ``Instrumentation`` other than ``instrument``,
    which ``instrument`` (given to the run) replaces while it takes part."""
    agent = ctx.agent
    if agent is None:
        return False
    found: list[AbstractCapability[Any]] = []
    agent.root_capability.apply(found.append)
    return any(isinstance(c, Instrumentation) and c is not instrument for c in found)


# -- pydantic_ai_instrument(agent): the skeleton's spans without a capability -------------
class _Tokens:
    """What the model calls of one traced run used (the ``invoke_agent`` span's tokens)."""

    __slots__ = ("input_tokens", "output_tokens")

    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0


# What the model calls of the traced run now going on used (its sub-agents' runs are theirs):
# the invoke_agent span's tokens. None outside a traced run: ChatSpans then only hands on.
_own_usage: contextvars.ContextVar[_Tokens | None] = contextvars.ContextVar(
    "agent_sdk_pydantic_ai_own_usage", default=None
)


def _noted(call: ModelCall, response: ModelResponse, own: _Tokens) -> None:
    usage = response.usage
    input_tokens, output_tokens = usage.input_tokens, usage.output_tokens  # read once each
    call.usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    call.response_model = response.model_name
    call.response_id = response.provider_response_id
    if response.finish_reason is not None:
        call.finish_reasons = (response.finish_reason,)
    own.input_tokens += input_tokens
    own.output_tokens += output_tokens


class ChatSpans(WrapperModel):
    """A model whose requests inside a traced run each get a ``chat {model}`` span (model,
    provider, server, tokens, response model and id, finish reason; no content)."""

    def _call(self) -> AbstractContextManager[ModelCall]:
        wrapped = self.wrapped
        return model_call(wrapped.model_name, provider=wrapped.system, server_url=wrapped.base_url)

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        own = _own_usage.get()
        if own is None:
            return await self.wrapped.request(messages, model_settings, model_request_parameters)
        with self._call() as call:
            response = await self.wrapped.request(
                messages, model_settings, model_request_parameters
            )
            _noted(call, response, own)
            return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: Any = None,
    ) -> AsyncIterator[StreamedResponse]:
        own = _own_usage.get()
        if own is None:
            async with self.wrapped.request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as stream:
                yield stream
            return
        with self._call() as call:
            async with self.wrapped.request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as stream:
                yield stream
            _noted(call, stream.get(), own)


def _chat_spans(model: Any) -> Any:
    if model is None or isinstance(model, ChatSpans):
        return model  # none: pydantic-ai's own error for an agent without a model
    return ChatSpans(model)


def _overriding_model(agent: Any) -> Any:
    """The model an ``Agent.override(model=...)`` in force gives every run of ``agent`` (it
    wins over the one a run is given), if any: it gets the chat spans for the run."""
    option = getattr(agent, "_override_model", None)
    chosen = option.get() if isinstance(option, contextvars.ContextVar) else None
    return getattr(chosen, "value", None)


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
        used = _Tokens()
        with agent_span(self.wrapped.name or "agent", provider=PROVIDER) as span:
            token = _own_usage.set(used)
            try:
                overriding = _overriding_model(self.wrapped)
                with (
                    self.wrapped.override(model=_chat_spans(overriding))
                    if overriding is not None
                    else nullcontext()
                ):
                    chosen = _chat_spans(model if model is not None else self.wrapped.model)
                    async with self.wrapped.iter(user_prompt, model=chosen, **options) as run:
                        yield run
            finally:
                _own_usage.reset(token)
                span.set_attribute(sc.GEN_AI_USAGE_INPUT_TOKENS, used.input_tokens)
                span.set_attribute(sc.GEN_AI_USAGE_OUTPUT_TOKENS, used.output_tokens)


def unwrapped(agent: AbstractAgent[Any, Any]) -> AbstractAgent[Any, Any]:
    """The agent a ``TracedAgent`` wraps (a sub-agent gets agent-sdk's spans), else ``agent``."""
    while isinstance(agent, TracedAgent):
        agent = agent.wrapped
    return agent


def traced(agent: AbstractAgent[Any, Any]) -> TracedAgent:
    return agent if isinstance(agent, TracedAgent) else TracedAgent(agent)


__all__ = [
    "PROVIDER",
    "AgentSdkInstrumentation",
    "ChatSpans",
    "TracedAgent",
    "child_capabilities",
    "default_settings",
    "pydantic_ai_instrument",
    "traced",
    "unwrapped",
]
