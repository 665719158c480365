"""The contract-kit harness for AutoGen 0.7, and a scripted model client.

Every run goes through a real ``AssistantAgent`` whose model is a
``ReplayChatCompletionClient`` (AutoGen's own test client) playing the kit's turns. Built with
an ``agent_sdk.scripted.Endpoint`` (``AutogenHarness(endpoint)``), every agent runs on
AutoGen's own ``OpenAIChatCompletionClient`` instead (``endpoint_model()``: the endpoint's
base URL, model and key; streamed with ``model_client_stream=True``), with the scripted
server's key in its system message (``Harness.system_prompt``). AutoGen 0.7 has no Responses
API client for ``AssistantAgent`` (``autogen_ext.agents.openai.OpenAIAgent`` uses that API
but runs no custom tools), so the harness drives Chat Completions only. Works outside pytest
(``agent-sdk demo`` loads :class:`AutogenHarness`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import TextMessage, ToolCallExecutionEvent
from autogen_core import CancellationToken, FunctionCall
from autogen_core.models import (
    CreateResult,
    LLMMessage,
    ModelFamily,
    ModelInfo,
    RequestUsage,
    SystemMessage,
)
from autogen_core.tools import Tool, ToolSchema
from autogen_ext.models.replay import ReplayChatCompletionClient

from agent_sdk import tool_error
from agent_sdk.integration import Harness, lazy_exports
from agent_sdk.scripted import ECHO, RunResult, ScriptedAgent, SeenResult, Turn
from agent_sdk_autogen._agent_loop import autogen_run
from agent_sdk_autogen._context import conversation_id as _conversation_id

if TYPE_CHECKING:
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    from agent_sdk.scripted import Api, Endpoint

FUNCTION_CALLING = ModelInfo(
    vision=False,
    function_calling=True,
    json_output=True,
    family=ModelFamily.UNKNOWN,
    structured_output=True,
)


def _to_completion(turn: Turn) -> str | CreateResult:
    if not turn.calls:
        return turn.text or ""
    calls = [
        FunctionCall(
            id=call.id,
            name=call.name,
            arguments=call.arguments
            if isinstance(call.arguments, str)
            else json.dumps(dict(call.arguments)),
        )
        for call in turn.calls
    ]
    return CreateResult(
        finish_reason="function_calls",
        content=calls,
        usage=RequestUsage(prompt_tokens=0, completion_tokens=0),
        cached=False,
        thought=turn.text,  # AutoGen's place for text sent along with tool calls
    )


def _text_of(message: LLMMessage) -> str:
    content: Any = message.content
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(getattr(part, "content", str(part)) for part in content)
    return str(content)


class ScriptedChatCompletionClient(ReplayChatCompletionClient):
    """ReplayChatCompletionClient playing kit :class:`Turn`s: several tool calls per turn,
    text with calls (as ``thought``), a delay before answering (linked to the cancellation
    token like a real client), and :data:`ECHO` turns."""

    model = "scripted"  # the model of its chat spans

    def __init__(self, turns: Sequence[Turn], *, model_info: ModelInfo | None = None) -> None:
        self.turns = list(turns)
        super().__init__(
            [_to_completion(t) for t in self.turns], model_info=model_info or FUNCTION_CALLING
        )

    def _tokenize(self, messages: Any) -> tuple[list[str], int]:
        # The replay client's count (words of string content only), without the warning it
        # logs for every message with other content: a scripted run printed it on the console.
        if isinstance(messages, str):
            items: list[Any] = [messages]
        elif hasattr(messages, "content"):
            items = [messages.content]
        else:
            items = [getattr(m, "content", None) for m in messages]
        words = [w for item in items if isinstance(item, str) for w in item.split()]
        return words, len(words)

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = (),
        cancellation_token: CancellationToken | None = None,
        **kwargs: Any,
    ) -> CreateResult:
        index = self._current_index
        if index < len(self.turns):
            turn = self.turns[index]
            if turn.delay:
                wait = asyncio.ensure_future(asyncio.sleep(turn.delay))
                if cancellation_token is not None:
                    cancellation_token.link_future(wait)
                await wait
            if turn.text == ECHO and not turn.calls:
                self.chat_completions[index] = "\n".join(
                    _text_of(m) for m in messages if not isinstance(m, SystemMessage)
                )
        return await super().create(
            messages, tools=list(tools), cancellation_token=cancellation_token, **kwargs
        )


def scripted_agent(
    name: str,
    turns: Sequence[Turn],
    *,
    tools: Sequence[Any] = (),
    description: str = "a scripted agent",
    **options: Any,
) -> AssistantAgent:
    """An AssistantAgent whose model plays ``turns``; it may use every turn (tool rounds)."""
    return AssistantAgent(
        name,
        ScriptedChatCompletionClient(turns),
        tools=list(tools) or None,
        description=description,
        system_message="You are a scripted test agent.",
        max_tool_iterations=max(1, len(turns)),
        **options,
    )


def _endpoint_client(
    endpoint: Endpoint, *, model_info: ModelInfo | None = None
) -> OpenAIChatCompletionClient:
    """AutoGen's own OpenAI client for ``endpoint`` (Chat Completions). Streaming is the
    agent's choice (``AssistantAgent(model_client_stream=endpoint.stream)``); usage on
    streams is asked for by the agents this plugin runs (``agent_sdk_autogen`` README).
    (``autogen-ext[openai]``, a dependency of this plugin)."""
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    http = endpoint.http_client()  # passed on to AsyncOpenAI
    return OpenAIChatCompletionClient(
        model=endpoint.model,
        base_url=endpoint.base_url,
        api_key=endpoint.api_key,
        model_info=model_info or FUNCTION_CALLING,
        **({"http_client": http} if http is not None else {}),
    )


class AutogenHarness(Harness):
    """Drives AutoGen 0.7 for the contract kit.

    The orchestrator is an AssistantAgent run through :func:`autogen_run`; the run id the
    kit sees is the conversation id of the run's CancellationToken. AutoGen keeps no tool
    exception: the harness asks the core for them (``tool_error(call_id)``).
    """

    apis: ClassVar[tuple[Api, ...]] = ("chat",)
    integration = "autogen"
    parallel = True  # AssistantAgent gathers the calls of one turn
    error_flag = True  # FunctionExecutionResult.is_error
    text_with_calls = True  # CreateResult.thought -> ThoughtEvent
    # AutoGen json.loads the arguments before any tool code runs; the agents this plugin
    # runs hand the model's text to its tools where that fails (_agent_loop).
    raw_arguments = True
    schema_adjustments = "none: AutoGen hands the tool's schema to the model client verbatim"
    # AutoGen's span for an AssistantAgent's constructor (the harness builds each agent
    # inside the run): not part of the GenAI skeleton.
    internal_spans = ("create_agent ",)

    def advertised(self, tool: Any) -> dict[str, Any]:
        schema: Mapping[str, Any] = tool.schema
        return {
            "name": schema["name"],
            "description": schema.get("description", ""),
            "parameters": schema.get("parameters", {}),
        }

    def endpoint_model(self) -> OpenAIChatCompletionClient:
        """AutoGen's own OpenAI client for the endpoint (Chat Completions); a new one per
        agent, as an application builds it."""
        if self.endpoint is None:
            return super().endpoint_model()  # type: ignore[no-any-return]
        return _endpoint_client(self.endpoint)

    def native_agent(self, agent: ScriptedAgent) -> Callable[[], AssistantAgent]:
        """A factory: a new agent and model client per call, so the kit's child plays its
        turns from the first one on every call (over HTTP: a conversation of its own)."""
        prompt = self._prompt(agent.name, agent.instructions, agent.turns)

        def build() -> AssistantAgent:
            return self._agent(
                agent.name,
                agent.turns,
                tools=agent.tools,
                description=agent.description,
                prompt=prompt,
            )

        return build

    def _prompt(self, name: str, instructions: str, turns: Sequence[Turn]) -> str | None:
        """The system message of an agent over the endpoint (None in process)."""
        if self.endpoint is None:
            return None
        return self.system_prompt(name, instructions, turns)

    def _agent(
        self,
        name: str,
        turns: Sequence[Turn],
        *,
        tools: Sequence[Any],
        prompt: str | None,
        description: str = "a scripted agent",
    ) -> AssistantAgent:
        if self.endpoint is None or prompt is None:
            return scripted_agent(name, turns, tools=tools, description=description)
        return AssistantAgent(
            name,
            self.endpoint_model(),
            tools=list(tools) or None,
            description=description,
            system_message=prompt,
            model_client_stream=self.endpoint.stream,
            # The scripted server plays exactly the turns; a real model may take more rounds
            # (the loop ends when it answers with text).
            max_tool_iterations=max(1 if self.endpoint.server else 10, len(turns)),
        )

    async def run(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instructions: str | None = None
    ) -> RunResult:
        prompt = self._prompt("orchestrator", instructions or "", turns)
        orchestrator = self._agent("orchestrator", turns, tools=tools, prompt=prompt)
        token = CancellationToken()
        result = await autogen_run(orchestrator, task="start", cancellation_token=token)
        seen: list[SeenResult] = []
        for message in result.messages:
            if isinstance(message, ToolCallExecutionEvent):
                seen.extend(
                    SeenResult(r.call_id, r.name, r.content, r.is_error) for r in message.content
                )
        last = result.messages[-1] if result.messages else None
        final = last.content if isinstance(last, TextMessage) else None
        conversation = _conversation_id(token)
        errors = [e for r in seen if r.is_error and (e := tool_error(r.call_id)) is not None]
        exceptions: list[BaseException] = [e.cause or e for e in errors]
        return RunResult(
            results=seen,
            final_text=final,
            run_id=conversation,
            thread_id=conversation,
            exceptions=exceptions,
            events=list(result.messages),
        )


__all__ = [
    "FUNCTION_CALLING",
    "AutogenHarness",
    "ScriptedChatCompletionClient",
    "scripted_agent",
]

# endpoint_client(endpoint) is AutogenHarness(endpoint).endpoint_model() now (it warns
# once: agent_sdk.deprecated).
__getattr__ = lazy_exports(__name__, {})
