"""An AG2 Agent as a sub-agent tool: a thin adapter over ``agent_sdk.agent_tool``.

The core does the guards (depth, recursion, budget, timeout, parallelism), extraction,
spans and pending-approval surfacing; this module only runs the child (on a ``ChildStream``:
AG2's per-subscriber setup done once per agent tool) and reads its stream into the neutral
``AgentResponse``.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import json
import weakref
from collections.abc import Callable, Iterable, Sequence
from types import FunctionType, MethodType
from typing import Any
from uuid import uuid4

from ag2 import Agent, MemoryStream
from ag2.annotations import ContextField
from ag2.events import (
    DataInput,
    ModelRequest,
    ModelResponse,
    TextInput,
    ToolResultsEvent,
    UsageEvent,
)
from ag2.utils import build_model

from agent_sdk import AgentResponse, ErrorKind, Message, ToolError, ToolSpec, Usage
from agent_sdk.integration import AgentToolSettings, CallContext
from agent_sdk_ag2._tracing import SpanMiddleware, _asked_as_tool, has_spans


def agent_spec(
    agent: Agent,
    settings: AgentToolSettings,
    *,
    provider: str,
) -> ToolSpec:
    """The spec of ``agent`` as a tool named ``name`` (already a valid tool name)."""
    name, history = settings.name, settings.history
    models = SubscriberModels()  # AG2's per-subscriber setup, shared by this tool's calls

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        prompt = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
        if history == "shared":
            conversation = _conversation_of(agent)
            held = _held.get()
            if conversation in held:  # waiting for our own turn would never end
                raise ToolError(
                    ErrorKind.RECURSION,
                    f"cannot call sub-agent '{name}': its conversation is already in this "
                    "call path (history='shared'). Answer with the data you have.",
                    tool=name,
                )
            async with conversation.turn():
                reset = _held.set(held | {conversation})
                try:
                    start = len(list(await conversation.stream.history.get_events()))
                    return await _ask(agent, prompt, conversation.stream, start=start)
                finally:
                    _held.reset(reset)
        # A fresh stream per call: the child starts with an empty history, and parallel
        # calls of the same agent never see each other's messages (they share only the
        # subscriber models, which hold no call's state: ``ChildStream``).
        return await _ask(agent, prompt, ChildStream(models))

    return settings.spec(
        invoke,
        provider=provider,
    )


async def _ask(agent: Agent, prompt: str, stream: MemoryStream, *, start: int = 0) -> AgentResponse:
    """Ask ``agent`` on ``stream``; the response is what the call adds after the stream's
    first ``start`` events. Its model calls get chat spans (``_tracing``) unless the agent
    traces itself; its invoke_agent span is agent-sdk's, around this call."""
    middleware = () if has_spans(agent) else (SpanMiddleware(agent, agent_spans=False),)
    asked = _asked_as_tool.set(agent)
    try:
        reply = await agent.ask(prompt, stream=stream, middleware=middleware)
    finally:
        _asked_as_tool.reset(asked)
    events = await stream.history.get_events()
    structured = None
    if getattr(agent, "_response_schema", None) is not None:
        structured = await reply.content()  # validated against the agent's schema
    return read_response(
        events, prompt=list(reply.context.prompt), structured=structured, start=start
    )


# -- the child's stream ------------------------------------------------------------------
# The stream a sub-agent call runs on: AG2's ``MemoryStream``, minus the setup AG2 repeats
# for every subscriber of every ``ask``.
#
# AG2 (1.2) turns every subscriber into a fast_depends ``CallModel`` when it subscribes
# (``MemoryStream.subscribe`` -> ``ag2.utils.build_model``): it reads the signature, walks
# the whole call stack for locals to resolve annotations with, and creates a pydantic model
# class. One ``ask`` subscribes about six functions (history storage, the model callback, the
# human-input hook, the tool executor, the unknown-tool answer, the wait for the model's
# response), each a closure made for that ask but with the same code, so a fresh child per
# call rebuilds the same models every time (~1 ms of CPU each, most of a child's own CPU).
#
# ``ChildStream`` takes its models from ``SubscriberModels``, one per agent tool: the first
# subscriber of a given function builds its model as AG2 does; the next subscriber of the
# same code (same module, the same annotation objects, no defaults, no attributes) gets a
# copy of that model bound to it; anything else is built as AG2 builds it. (A string
# annotation is resolved once, for the first subscriber; AG2's subscribers are closures of
# its own modules whose strings name those modules' globals.) A model holds nothing a call
# changes (fast_depends keeps each call's values in that call's own dicts; AG2 already runs
# one model for every concurrent event on a stream), and the cache keeps no subscriber, no
# stream and no call's state: only the models' shapes.
#
# The copies also run AG2's ``Context`` parameter (a ``ContextField``, a synchronous custom
# field, which fast_depends runs on a worker thread for every event) inline: the same
# assignment of the conversation context, without a thread hop per event and subscriber.

_MAX_SHAPES = 4
"""Distinct shapes (annotation objects) kept per code object; a function made with new
annotation objects on every call stops being cached past that."""


class _InlineContextField(ContextField):
    """AG2's ``ContextField`` as a coroutine: fast_depends awaits it on the event loop
    instead of running the synchronous original on a worker thread."""

    async def use(self, /, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return ContextField.use(self, **kwargs)


def _inline(field: Any) -> Any:
    if type(field) is not ContextField or field.field:
        return field
    inline = _InlineContextField(cast=field.cast, required=field.required)
    inline.param_name = field.param_name
    return inline


class _Shape:
    """What a model is built from besides the function object: its module's globals, its
    annotation objects and type parameters (checked by identity)."""

    __slots__ = ("annotations", "globals", "template", "type_params")

    def __init__(self, fn: FunctionType, template: Any) -> None:
        self.globals = fn.__globals__
        self.annotations = tuple(fn.__annotations__.items())
        self.type_params = getattr(fn, "__type_params__", ())
        self.template = template

    def fits(self, fn: FunctionType) -> bool:
        annotations = fn.__annotations__
        return (
            fn.__globals__ is self.globals
            and getattr(fn, "__type_params__", ()) == self.type_params
            and len(annotations) == len(self.annotations)
            and all(annotations.get(name, _MISSING) is value for name, value in self.annotations)
        )


_MISSING = object()


def _cacheable(func: Callable[..., Any]) -> FunctionType | None:
    """The plain coroutine function behind ``func`` (itself or a bound method's), if its
    model can be shared: no defaults (they could be ``Depends``), no attributes (a
    ``__wrapped__`` or fast_depends marker changes what is built)."""
    fn = func.__func__ if isinstance(func, MethodType) else func
    if (
        type(fn) is not FunctionType
        or fn.__dict__
        or fn.__defaults__ is not None
        or fn.__kwdefaults__ is not None
        or not fn.__code__.co_flags & _COROUTINE
    ):
        return None
    return fn


_COROUTINE = 0x0080  # inspect.CO_COROUTINE


class SubscriberModels:
    """The fast_depends models of the subscribers AG2 puts on a stream, built once per
    function code and shape and copied for each later subscriber (see above)."""

    def __init__(self) -> None:
        self._shapes: dict[Any, list[_Shape]] = {}

    def model(self, func: Callable[..., Any], *, sync_to_thread: bool) -> Any:
        fn = _cacheable(func)
        if fn is None:
            return build_model(func, sync_to_thread=sync_to_thread, serialize_result=False)
        key = (fn.__code__, isinstance(func, MethodType))
        shapes = self._shapes.setdefault(key, [])
        for shape in shapes:
            if shape.fits(fn):
                return _bind(shape.template, func)
        model = build_model(func, sync_to_thread=sync_to_thread, serialize_result=False)
        if model.dependencies or model.extra_dependencies or len(shapes) >= _MAX_SHAPES:
            return model
        template = _bind(model, None)
        template.custom_fields = {k: _inline(f) for k, f in model.custom_fields.items()}
        shapes.append(_Shape(fn, template))
        return _bind(template, func)


def _bind(model: Any, call: Any) -> Any:
    """A copy of ``model`` (a fast_depends ``CallModel``) that calls ``call``."""
    cls = type(model)
    slots = getattr(cls, "__slots__", None)
    if slots is None:  # not the slotted class of fast_depends 3
        clone = copy.copy(model)
    else:
        clone = object.__new__(cls)
        for name in slots:
            setattr(clone, name, getattr(model, name))
    clone.call = call
    return clone


class ChildStream(MemoryStream):
    """A ``MemoryStream`` whose subscribers' models come from ``models`` (shared by every
    stream of one agent tool; nothing else is)."""

    __slots__ = ("_models",)

    def __init__(self, models: SubscriberModels) -> None:
        self._models = models
        super().__init__()

    def subscribe(
        self,
        func: Callable[..., Any] | None = None,
        *,
        interrupt: bool = False,
        sync_to_thread: bool = True,
        condition: Any = None,
    ) -> Any:
        if func is None:
            return lambda f: self.subscribe(
                f, interrupt=interrupt, sync_to_thread=sync_to_thread, condition=condition
            )
        sub_id = uuid4()
        model = self._models.model(func, sync_to_thread=sync_to_thread)
        if interrupt:
            self._interrupters[sub_id] = (condition, model)
        else:
            self._subscribers[sub_id] = (condition, model)
        return sub_id


class _Conversation:
    """An AG2 agent's own conversation (history "shared"): one stream every call of the
    agent continues, one call at a time (so each call reads back only what it added)."""

    def __init__(self) -> None:
        self.stream = ChildStream(SubscriberModels())
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    def turn(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = asyncio.Lock()
        return lock


# An AG2 Agent keeps no history (it lives on the stream ``ask`` is given): the shared
# conversation is kept here, per agent, for as long as the agent lives.
_conversations: weakref.WeakKeyDictionary[Agent, _Conversation] = weakref.WeakKeyDictionary()


# The shared conversations the running call path is inside of.
_held: contextvars.ContextVar[frozenset[_Conversation]] = contextvars.ContextVar(
    "agent_sdk_ag2_held", default=frozenset()
)


def _conversation_of(agent: Agent) -> _Conversation:
    conversation = _conversations.get(agent)
    if conversation is None:
        conversation = _conversations[agent] = _Conversation()
    return conversation


def read_response(
    events: Iterable[Any], *, prompt: Sequence[str] = (), structured: Any = None, start: int = 0
) -> AgentResponse:
    """A finished AG2 stream as an AgentResponse (of the events from ``start`` on: the
    earlier ones are history the call continued).

    Messages: the requests (user), every model response (assistant; text may be None for
    a tool-calls-only response) and every tool result (tool). Usage: one model call per
    model response the model produced (responses AG2 forces for final tool results are
    not model calls), tokens from the stream's ``UsageEvent``s, and ``input_chars`` as the
    characters of the system prompt plus the conversation sent before each model call (AG2
    sends the whole history every time).
    """
    events = list(events)
    messages: list[Message] = []
    usage = Usage()
    system_chars = sum(len(p) for p in prompt if isinstance(p, str))
    conversation_chars = sum(_sent_chars(e) for e in events[:start])
    for event in events[start:]:
        if isinstance(event, ModelRequest):
            messages.append(Message("user", _parts_text(event.parts)))
        elif isinstance(event, ModelResponse):
            if not event.response_force:
                usage.model_calls += 1
                usage.input_chars += system_chars + conversation_chars
            messages.append(Message("assistant", event.content))
        elif isinstance(event, ToolResultsEvent):
            messages.extend(Message("tool", _parts_text(r.result.parts)) for r in event.results)
        elif isinstance(event, UsageEvent) and event.usage:
            usage.input_tokens += int(event.usage.prompt_tokens or 0)
            usage.output_tokens += int(event.usage.completion_tokens or 0)
        conversation_chars += _sent_chars(event)
    return AgentResponse(messages=messages, structured=structured, usage=usage, raw=events[start:])


def _sent_chars(event: Any) -> int:
    """The characters ``event`` adds to what AG2 sends the model on later calls."""
    if isinstance(event, ModelRequest):
        return len(_parts_text(event.parts))
    if isinstance(event, ModelResponse):
        return len(event.content or "") + sum(
            len(c.name) + len(c.arguments or "") for c in event.tool_calls.calls
        )
    if isinstance(event, ToolResultsEvent):
        return sum(len(_parts_text(r.result.parts)) for r in event.results)
    return 0


def _parts_text(parts: Iterable[Any]) -> str:
    return "\n".join(_part_text(p) for p in parts)


def _part_text(part: Any) -> str:
    if isinstance(part, TextInput):
        return part.content
    if isinstance(part, DataInput):
        try:
            return json.dumps(part.data, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(part.data)
    return ""
