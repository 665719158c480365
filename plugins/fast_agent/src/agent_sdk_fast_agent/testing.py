"""The contract-kit harness for fast-agent, and the scripted model it uses.

Everything runs through real fast-agent agents of a ``FastAgent`` app in library mode
(``parse_cli_args=False, quiet=True, isolated=True``, retries off, no config file) whose
model is :class:`ScriptedLLM`, registered in fast-agent's ``ModelFactory`` as
``fast-agent.agent-sdk-scripted``; or, with an ``Endpoint``, fast-agent's own OpenAI
providers over HTTP (``FastAgentHarness(endpoint)``: ``endpoint_model``). Works outside
pytest too (``agent-sdk demo``).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from fast_agent import FastAgent
from fast_agent.llm.internal.passthrough import PassthroughLLM
from fast_agent.llm.model_factory import ModelFactory
from fast_agent.llm.provider_types import Provider
from fast_agent.llm.usage_tracking import (
    CompletionTokenUsage,
    PromptTokenUsage,
    TurnUsage,
    UsageSchema,
)
from fast_agent.mcp.prompt import Prompt
from fast_agent.types.llm_stop_reason import LlmStopReason
from mcp import CallToolRequest
from mcp_types import CallToolRequestParams

from agent_sdk import IntegrationError, tool_error
from agent_sdk.integration import Harness, lazy_exports
from agent_sdk.scripted import ECHO, RunResult, ScriptedAgent, SeenResult, ToolCall, Turn

from ._context import conversation
from ._tracing import fast_agent_instrument

if TYPE_CHECKING:
    from agent_sdk.scripted import Api, Endpoint

SCRIPTED_MODEL = "fast-agent.agent-sdk-scripted"
ORCHESTRATOR = "orchestrator"
APP = "fast-agent"
"""The harness's ``FastAgent`` app: fast-agent names its span for the whole ``fast.run()``
after it (a framework extra, ``internal_spans``)."""
_SCRIPTED_PROMPT = "You are a scripted test agent."

_scripts: contextvars.ContextVar[Mapping[str, Sequence[Turn]] | None] = contextvars.ContextVar(
    "agent_sdk_fast_agent_scripts", default=None
)
_INSTANCE = re.compile(r"\[[^\]]*\]$")


def _text(message: Any) -> str:
    return "".join(
        getattr(b, "text", "")
        for b in (message.content or [])
        if getattr(b, "type", None) == "text"
    )


def _request(call: ToolCall) -> CallToolRequest:
    arguments: Any = call.arguments
    if isinstance(arguments, str):
        # Provider adapters parse the model's JSON text into the arguments dict (OpenAI's
        # uses pydantic's from_json). Text that is not a JSON object is passed on as it
        # came, as an adapter that does not parse would; the framework's own types would
        # refuse it, hence model_construct.
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            arguments = parsed
        else:
            params = CallToolRequestParams.model_construct(name=call.name, arguments=arguments)
            return CallToolRequest(method="tools/call", params=params)
    return CallToolRequest(
        method="tools/call", params=CallToolRequestParams(name=call.name, arguments=dict(arguments))
    )


class ScriptedLLM(PassthroughLLM):
    """A deterministic model: plays the :class:`Turn` script of its agent, from the first
    turn on for every instance (so every clone starts over), and reports usage (tokens =
    characters) like a provider would."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._agent_sdk_turn = 0

    async def _apply_prompt_provider_specific(
        self,
        multipart_messages: list[Any],
        request_params: Any = None,
        tools: Any = None,
        is_template: bool = False,
    ) -> Any:
        script = (_scripts.get() or {}).get(_INSTANCE.sub("", self.name or ""), ())
        index = self._agent_sdk_turn
        self._agent_sdk_turn += 1
        turn = script[index] if index < len(script) else Turn.say("")
        if turn.delay:
            await asyncio.sleep(turn.delay)
        sent = [m for m in multipart_messages if m.role != "system"]
        text = turn.text
        if text == ECHO:
            text = "\n".join(_text(m) for m in sent)
        calls = {c.id: _request(c) for c in turn.calls}
        self.usage_accumulator.add_turn(
            TurnUsage(
                provider=Provider.FAST_AGENT,
                usage_schema=UsageSchema.OPENAI_CHAT,
                model="agent-sdk-scripted",
                prompt=PromptTokenUsage(total=sum(len(_text(m)) for m in sent)),
                completion=CompletionTokenUsage(total=len(text or "")),
            )
        )
        return Prompt.assistant(
            *([text] if text else []),
            tool_calls=calls or None,
            stop_reason=LlmStopReason.TOOL_USE if calls else LlmStopReason.END_TURN,
        )


@contextmanager
def scripts(mapping: Mapping[str, Sequence[Turn]]) -> Iterator[None]:
    """Give agents (by name; clones ``name[n]`` share their template's) their scripts."""
    token = _scripts.set({**(_scripts.get() or {}), **{k: list(v) for k, v in mapping.items()}})
    try:
        yield
    finally:
        _scripts.reset(token)


def register_scripted_model() -> None:
    """Register :class:`ScriptedLLM` as ``fast-agent.agent-sdk-scripted`` (idempotent)."""
    ModelFactory.MODEL_SPECIFIC_CLASSES["agent-sdk-scripted"] = ScriptedLLM


def library_app(name: str) -> FastAgent:
    """A FastAgent app for library use: no argv parsing, no console output, no files, no
    config file, fast-agent's own OTel off, no LLM retries."""
    fast = FastAgent(name, parse_cli_args=False, quiet=True, isolated=True)
    fast._settings.llm_retries = 0
    return fast


def _endpoint_model(endpoint: Endpoint) -> str:
    """The model string of fast-agent's OpenAI provider for ``endpoint``'s API:
    ``generic.<model>`` (its OpenAI-compatible Chat Completions provider) or
    ``responses.<model>`` (its OpenAI Responses provider, over server-sent events)."""
    provider = "responses" if endpoint.api == "responses" else "generic"
    return f"{provider}.{endpoint.model}"


def _point_providers(fast: FastAgent, endpoint: Endpoint) -> None:
    """Point ``fast``'s OpenAI provider for ``endpoint``'s API at it (settings of this app
    only, no config file, nothing read from the environment).

    fast-agent streams every model call on both providers (Chat Completions with
    ``stream_options.include_usage``), whatever ``endpoint.stream`` says: it has no
    non-streaming client.
    """
    from fast_agent.config import GenericSettings, OpenAISettings

    settings = fast._settings
    if endpoint.api == "responses":
        # transport "sse": fast-agent would try a websocket first for OpenAI Responses.
        settings.responses = OpenAISettings(
            base_url=endpoint.base_url, api_key=endpoint.api_key, transport="sse"
        )
    else:
        settings.generic = GenericSettings(base_url=endpoint.base_url, api_key=endpoint.api_key)


def _use_endpoint(fast: FastAgent, endpoint: Endpoint) -> str:
    """What the deprecated ``use_endpoint(fast, endpoint)`` still does: point ``fast``'s
    providers at ``endpoint`` and return the model string its agents use."""
    _point_providers(fast, endpoint)
    return _endpoint_model(endpoint)


@dataclass
class _Child:
    internal: str
    agent: ScriptedAgent
    prompt: str


class FastAgentHarness(Harness):
    """Drives fast-agent for the contract kit. Each ``run`` builds a FastAgent app with the
    orchestrator and every child exported so far (agents exist only inside ``fast.run()``,
    so agent tools resolve their template lazily)."""

    apis: ClassVar[tuple[Api, ...]] = ("chat", "responses")
    integration = "fast-agent"
    parallel = True
    error_flag = True
    text_with_calls = True
    schema_adjustments = ""
    internal_spans: ClassVar[tuple[str, ...]] = (APP,)

    def __init__(self, endpoint: Endpoint | None = None) -> None:
        super().__init__(endpoint)
        register_scripted_model()
        self._children: list[_Child] = []
        self._app: Any = None

    def endpoint_model(self) -> str:
        """The model string the agents of a run use over the endpoint (``generic.<model>``
        or ``responses.<model>``); each run points its app's providers at the endpoint."""
        if self.endpoint is None:
            raise IntegrationError(f"{self.integration}: the harness has no endpoint")
        return _endpoint_model(self.endpoint)

    def advertised(self, tool: Any) -> dict[str, Any]:
        # What ToolAgent.add_tool hands the model: Tool(name, description, input_schema).
        return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}

    def native_agent(self, agent: ScriptedAgent) -> Callable[[], Any]:
        """A function returning the agent: it is declared in the app of the next ``run``
        and exists only inside it (``fast_agent_agent_tool`` then needs ``name=``)."""
        taken = {c.internal for c in self._children} | {ORCHESTRATOR}
        internal, n = agent.name, 1
        while internal in taken:
            n += 1
            internal = f"{agent.name}_{n}"
        prompt = (
            self.system_prompt(agent.name, agent.instructions, agent.turns)
            if self.endpoint is not None
            else _SCRIPTED_PROMPT
        )
        self._children.append(_Child(internal, agent, prompt))
        return lambda: self._app[internal]

    async def run(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instructions: str | None = None
    ) -> RunResult:
        fast = library_app(APP)
        model, prompt = SCRIPTED_MODEL, _SCRIPTED_PROMPT
        if self.endpoint is not None:
            _point_providers(fast, self.endpoint)
            model = self.endpoint_model()
            prompt = self.system_prompt(ORCHESTRATOR, instructions or "", turns)
        prompts = {ORCHESTRATOR: prompt, **{c.internal: c.prompt for c in self._children}}
        for name, instruction in prompts.items():
            fast.agent(name=name, instruction=instruction, model=model)(_declaration())
        table = {
            ORCHESTRATOR: list(turns),
            **{c.internal: list(c.agent.turns) for c in self._children},
        }
        try:
            with scripts(table):
                async with fast.run() as app:
                    self._app = app  # an AgentApp; agents are looked up by name
                    for child in self._children:
                        for tool in child.agent.tools:
                            template: Any = app[child.internal]
                            template.add_tool(tool)
                    orchestrator = fast_agent_instrument(app[ORCHESTRATOR], tools=tools)
                    with conversation() as conv:
                        reply = await orchestrator.generate("start")
                    return _result(orchestrator, reply, conv.id)
        finally:
            self._app = None


def _declaration() -> Any:
    async def agent() -> None:
        return None

    return agent


def _result(agent: Any, reply: Any, conversation_id: str) -> RunResult:
    turn = list(agent.last_turn_messages)
    names: dict[str, str] = {}
    results: list[SeenResult] = []
    for message in turn:
        for call_id, call in (message.tool_calls or {}).items():
            names[call_id] = call.params.name
        for call_id, result in (message.tool_results or {}).items():
            results.append(
                SeenResult(call_id, names.get(call_id), _text(result), bool(result.is_error))
            )
    # The executor keeps the error of every failed call (its cause: the handler's exception).
    errors = [e for r in results if r.is_error and (e := tool_error(r.call_id)) is not None]
    exceptions: list[BaseException] = [e.cause or e for e in errors]
    final = _text(reply) if reply.role == "assistant" else None
    return RunResult(
        results=results,
        final_text=final,
        run_id=conversation_id,
        thread_id=conversation_id,
        exceptions=exceptions,
        events=turn,
    )


__all__ = [
    "SCRIPTED_MODEL",
    "FastAgentHarness",
    "ScriptedLLM",
    "library_app",
    "register_scripted_model",
]

# The old use_endpoint(fast, endpoint) still works for one release and warns once
# (agent_sdk.deprecated).
__getattr__ = lazy_exports(__name__, {})
