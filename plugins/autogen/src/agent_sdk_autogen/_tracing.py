"""GenAI spans AutoGen 0.7.5 does not emit: one ``chat {model}`` span per model call, and
``gen_ai.provider.name`` (with the run's tokens) on AutoGen's own ``invoke_agent`` span.

AutoGen opens ``invoke_agent {name}`` (and ``create_agent {name}``, from the agent's
constructor) on the global tracer provider for ``run()`` / ``run_stream()`` and for each turn
of a team member, but no span for a model call. The agents this plugin runs
(``autogen_run``, agent tools, ``autogen_instrument``) call their model client through
:func:`traced`, a view whose ``create`` / ``create_stream`` record the call with the usage,
finish reason and duration from AutoGen's ``CreateResult``. Sub-agents run by an agent tool
get their ``invoke_agent`` span from agent-sdk (they are driven below ``run()``, so AutoGen
opens none); a top-level agent keeps AutoGen's, which :func:`adopt_agent_span` completes.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Mapping
from typing import Any, cast

from autogen_core.models import ChatCompletionClient, CreateResult, RequestUsage
from opentelemetry import trace

from agent_sdk import Usage
from agent_sdk.integration import ModelCall, model_call, record_model_call
from agent_sdk.integration import semconv as sc

AGENT_PROVIDER = "autogen"
"""``gen_ai.provider.name`` of agent spans, and of model calls to a client of no known
provider (as agent-sdk's own ``invoke_agent`` spans of AutoGen sub-agents)."""

# Model clients of autogen-ext, by class name (the first match along the MRO): no import.
_PROVIDERS: Mapping[str, str] = {
    "AzureOpenAIChatCompletionClient": "azure.ai.openai",
    "BaseOpenAIChatCompletionClient": "openai",
    "AnthropicBedrockChatCompletionClient": "aws.bedrock",
    "BaseAnthropicChatCompletionClient": "anthropic",
    "AzureAIChatCompletionClient": "azure.ai.inference",
    "OllamaChatCompletionClient": "ollama",
}

# AutoGen's name for what OpenAI (and the conventions' examples) call "tool_calls".
_FINISH_REASONS: Mapping[str, str] = {"function_calls": "tool_calls"}


def provider_of(client: Any) -> str:
    for cls in type(client).__mro__:
        found = _PROVIDERS.get(cls.__name__)
        if found is not None:
            return found
    return AGENT_PROVIDER


def model_of(client: Any) -> str:
    """The model a client calls: its create args' ``model`` (every autogen-ext client), a
    ``model`` attribute, else the model family or the class name."""
    create_args = getattr(client, "_create_args", None)
    if isinstance(create_args, Mapping) and create_args.get("model"):
        return str(create_args["model"])
    model = getattr(client, "model", None)
    if isinstance(model, str) and model:
        return model
    try:
        family = str(client.model_info.get("family") or "")
    except Exception:  # a client without model_info: its class names it
        family = ""
    return family if family and family != "unknown" else type(client).__name__


def _server_url(client: Any) -> str | None:
    base_url = getattr(getattr(client, "_client", None), "base_url", None)
    return str(base_url) if base_url is not None else None


def _fill(call: ModelCall, result: CreateResult) -> None:
    usage: RequestUsage | None = result.usage
    if usage is not None:
        call.usage = Usage(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens)
    reason = str(result.finish_reason)
    call.finish_reasons = (_FINISH_REASONS.get(reason, reason),)


def traced(
    client: ChatCompletionClient, *, origin: ChatCompletionClient | None = None
) -> ChatCompletionClient:
    """A view of ``client`` recording a ``chat {model}`` span per call; ``origin`` is the
    agent's own client when ``client`` is already a view of it (model and provider are
    read from it)."""
    if isinstance(client, _Traced):
        return client
    return cast(ChatCompletionClient, _Traced(client, origin if origin is not None else client))


class _Traced:
    """``create`` and ``create_stream`` of a model client, each call a chat span; the rest
    (usage totals, model info, close) is the client's own."""

    def __init__(self, client: ChatCompletionClient, origin: ChatCompletionClient) -> None:
        self._client = client
        self._model = model_of(origin)
        self._provider = provider_of(origin)
        self._server_url = _server_url(origin)

    async def create(self, *args: Any, **kwargs: Any) -> CreateResult:
        with model_call(self._model, provider=self._provider, server_url=self._server_url) as call:
            result = await self._client.create(*args, **kwargs)
            _fill(call, result)
        return result

    def create_stream(self, *args: Any, **kwargs: Any) -> AsyncGenerator[str | CreateResult, None]:
        return self._stream(self._client.create_stream(*args, **kwargs))

    async def _stream(
        self, chunks: AsyncGenerator[str | CreateResult, None]
    ) -> AsyncGenerator[str | CreateResult, None]:
        # Recorded after the fact: a span made current here would be current in the consumer
        # too (an async generator runs in its caller's context) between chunks.
        start = time.time_ns()
        done = False
        try:
            async for chunk in chunks:
                if isinstance(chunk, CreateResult) and not done:
                    done = True
                    call = ModelCall()
                    _fill(call, chunk)
                    self._record(start, call)
                yield chunk
        except BaseException as exc:
            if not done:
                self._record(start, ModelCall(), error_type=type(exc).__name__)
            raise

    def _record(self, start: int, call: ModelCall, *, error_type: str | None = None) -> None:
        record_model_call(
            self._model,
            provider=self._provider,
            start_ns=start,
            usage=call.usage,
            finish_reasons=call.finish_reasons,
            server_url=self._server_url,
            error_type=error_type,
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def adopt_agent_span(agent_name: str) -> trace.Span | None:
    """AutoGen's own ``invoke_agent {agent_name}`` span when it is the current span (a
    top-level ``run()``/``run_stream()`` or a team member's turn), given the
    ``gen_ai.provider.name`` AutoGen leaves out; None for any other span (agent-sdk's own
    ``invoke_agent`` of a sub-agent has it already)."""
    span = trace.get_current_span()
    if (
        not span.is_recording()
        or getattr(span, "name", None) != f"{sc.OP_INVOKE_AGENT} {agent_name}"
    ):
        return None
    attributes: Mapping[str, Any] = getattr(span, "attributes", None) or {}
    if sc.GEN_AI_PROVIDER_NAME in attributes:
        return None
    span.set_attribute(sc.GEN_AI_PROVIDER_NAME, AGENT_PROVIDER)
    return span


def set_usage(span: trace.Span, usage: Usage) -> None:
    """The tokens of an adopted agent span's model calls (recommended on ``invoke_agent``)."""
    span.set_attribute(sc.GEN_AI_USAGE_INPUT_TOKENS, usage.input_tokens)
    span.set_attribute(sc.GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens)
    span.set_attribute(sc.MODEL_CALLS, usage.model_calls)


__all__ = ["AGENT_PROVIDER", "adopt_agent_span", "model_of", "provider_of", "set_usage", "traced"]
