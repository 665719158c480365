"""The user's own top agent in agent-sdk's run: ``agent_framework_instrument``.

MAF traces itself (on by default, on the global tracer provider, scope ``agent_framework``):
``invoke_agent {name}`` per run, ``chat {model}`` per model call with its tokens, and
``execute_tool`` inside ``FunctionTool.invoke``. Our tools override ``invoke``, so their
``execute_tool`` span is the executor's; the children of our agent tools run without MAF's
``invoke_agent`` span (the core's stands for it); MAF's chat spans are the skeleton's ``chat``
spans, and ``RunSpanProcessor`` (``configure_tracing`` adds it) stamps run id and path on
them. So agent-sdk's spans and MAF's make one tree with nothing twice. What the framework
does not do for a top agent, ``agent_framework_instrument`` adds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agent_framework import (
    Agent,
    AgentContext,
    AgentMiddleware,
    ChatContext,
    ChatMiddleware,
    MiddlewareFailure,
)

from agent_sdk import ConfigurationError, HierarchyLimitError, RunState, Usage, current_run
from agent_sdk.integration import current_context, new_id
from agent_sdk_agent_framework._context import run_conversation


class RunIdentity(AgentMiddleware):
    """Gives a run without an ``AgentSession`` one conversation id, so all its tool calls
    share a run id (MAF has none; a session's id is the conversation otherwise)."""

    async def process(
        self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        if context.session is not None or run_conversation.get() is not None:
            await call_next()
            return
        token = run_conversation.set(new_id("run"))
        try:
            await call_next()
        finally:
            run_conversation.reset(token)


class RunModelCalls(AgentMiddleware):
    """Charges the top agent's own model calls to the agent-sdk run it is in (its cost
    report) and refuses one once the run's model-call budget is spent: the run ends with
    ``HierarchyLimitError`` (MAF would otherwise go on). Inside a sub-agent it does nothing:
    the agent tool charges the child.

    It decides once per run: only a run inside an agent-sdk run (not a sub-agent's) gets
    the chat middleware that meters each model call, as run-level middleware. For every
    chat middleware MAF builds a context and copies and reconciles the messages on every
    model call (~25 µs each): a run outside agent-sdk's run has nothing to charge."""

    async def process(
        self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        if _charged_run() is not None:
            # MAF forwards these to the chat client, with the run's chat middleware in them.
            kwargs = context.client_kwargs
            found = kwargs.get("middleware")
            if found is None:
                given = []
            elif isinstance(found, Sequence) and not isinstance(found, (str, bytes)):
                given = list(found)
            else:  # one middleware (or a bundle), as MAF reads a bare source
                given = [found]
            kwargs["middleware"] = [*given, _METER]
        await call_next()


def _charged_run() -> RunState | None:
    """The agent-sdk run a top agent's model calls are charged to, if any."""
    run = current_run()
    ctx = current_context()
    return None if run is None or (ctx is not None and ctx.path) else run


class ModelCallMeter(ChatMiddleware):
    """One model call of a top agent: refused once the run's budget is spent, else charged
    (a call, then its tokens)."""

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        run = _charged_run()
        if run is None:
            await call_next()
            return
        if run.remaining == 0:
            error = HierarchyLimitError(
                f"the run's budget of {run.limits.max_model_calls} model calls is spent "
                f"({run.spent} used); the agent's next model call was not made"
            )
            raise MiddlewareFailure(str(error)) from error
        run.record_usage((), Usage(model_calls=1))
        await call_next()
        details = getattr(context.result, "usage_details", None) or {}
        tokens = Usage(
            input_tokens=int(details.get("input_token_count") or 0),
            output_tokens=int(details.get("output_token_count") or 0),
        )
        if tokens.input_tokens or tokens.output_tokens:
            run.record_usage((), tokens)


_METER = ModelCallMeter()  # one object: the client's cached chat pipeline matches it


def instrument(agent: Any) -> Any:
    """``agent_framework_instrument``: add our two middlewares to ``agent`` once."""
    if not isinstance(agent, Agent):
        raise ConfigurationError(
            f"agent_framework_instrument needs an agent_framework.Agent, got {type(agent).__name__}"
        )
    middleware = list(agent.middleware or [])
    for kind in (RunIdentity, RunModelCalls):
        if not any(isinstance(m, kind) for m in middleware):
            middleware.append(kind())
    agent.middleware = middleware
    return agent


__all__ = ["ModelCallMeter", "RunIdentity", "RunModelCalls", "instrument"]
