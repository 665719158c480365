"""ToolSpec -> ``pydantic_ai.Tool``, with every call going through the agent-sdk executor.

pydantic-ai validates the arguments of a ``Tool.from_schema`` tool with an "any" schema
(nothing is checked) and fails a run on anything but a JSON object. Our tools hand the
model's arguments to the executor exactly as they came instead (``RawArguments``): the
executor validates them (one validation, the spec's own rules) and answers malformed JSON
with a model-visible ``tool-args-invalid`` error.

A failed call returns our structured error as its result, in a ``ToolReturn`` whose
metadata (``ToolReturnPart.metadata[ERROR_METADATA_KEY]``, never sent to the model) marks it
failed. Not ``ToolFailed`` or ``ModelRetry``: pydantic-ai sends a failed or retried result
to OpenAI models wrapped as ``{"error": "<text>"}``, which turns the structured error into a
string, and a retry spends the tool's retry budget (the run fails once it is spent). A
failure never ends the run; only ``HierarchyLimitError`` and cancellation do.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic_ai import RunContext, Tool, ToolReturn

from agent_sdk import Executor, ToolSpec
from agent_sdk.integration import ApprovalGate
from agent_sdk_pydantic_ai._approval import pause
from agent_sdk_pydantic_ai._context import ToolCallState, bind_run_context, current_call

TOOL_MARK = "agent_sdk"
"""The key in a tool's ``ToolDefinition.metadata`` marking it as ours (run by the
executor, which makes its ``execute_tool`` span)."""

ERROR_METADATA_KEY = "agent_sdk"
"""The key of a failed call's entry in its ``ToolReturnPart.metadata``: ``{"is_error": True,
"kind", "message"}`` (JSON; the exception is kept for ``agent_sdk.tool_error(call_id)``)."""

RAW_KEY = "__agent_sdk_arguments__"
"""The one keyword our tool functions get when the model sent JSON text (as it was sent)."""


class RawArguments:
    """pydantic-ai's argument validator for our tools: it hands the model's arguments on as
    they came (JSON text under ``RAW_KEY``; a dict, as a scripted model or
    ``ToolApproved(override_args=...)`` gives it, as it is). The executor validates."""

    def validate_json(
        self,
        input: str | bytes | bytearray,
        *,
        allow_partial: bool | Literal["off", "on", "trailing-strings"] = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return {RAW_KEY: input}

    def validate_python(
        self,
        input: Any,
        *,
        allow_partial: bool | Literal["off", "on", "trailing-strings"] = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return input if isinstance(input, dict) else {RAW_KEY: input}


RAW_ARGUMENTS = RawArguments()


class ToolRuntime:
    """What one exported tool runs per call. Copies of its Tool (``copy.deepcopy`` too)
    share it: the same spec, executor and gate, whose tokens only that executor accepts."""

    __slots__ = ("executor", "gate", "spec")

    def __init__(self, spec: ToolSpec, executor: Executor, gate: ApprovalGate | None) -> None:
        self.spec = spec
        self.executor = executor
        self.gate = gate

    def __copy__(self) -> ToolRuntime:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ToolRuntime:
        return self

    async def __call__(self, ctx: RunContext[Any], **arguments: Any) -> str | ToolReturn:
        given: Any = arguments
        if RAW_KEY in arguments and len(arguments) == 1:
            given = arguments[RAW_KEY]
        call = ToolCallState(ctx)
        token = current_call.set(call)  # an agent tool runs its child in this run
        try:
            outcome = await self.executor.run_spec(
                self.spec, given, bind_run_context(ctx), gate=self.gate
            )
        finally:
            current_call.reset(token)
        if outcome.error is None:
            return outcome.text
        # Pending where the run can pause: pydantic-ai's own deferred call (ApprovalRequired).
        pause(ctx, outcome.error, child=call.paused_child)
        error = outcome.error
        marked = {"is_error": True, "kind": error.kind.value, "message": error.message}
        return ToolReturn(outcome.text, metadata={ERROR_METADATA_KEY: marked})


def build_tool(spec: ToolSpec, *, executor: Executor, gate: ApprovalGate | None) -> Tool[Any]:
    """The Tool for ``spec`` (``INTEGRATION.export_tool``): the model is told the spec's
    name, description and JSON schema as they are."""
    runtime = ToolRuntime(spec, executor, gate)
    tool: Tool[Any] = Tool.from_schema(
        runtime,
        name=spec.name,
        description=spec.description,
        json_schema=spec.json_schema(),
        takes_ctx=True,
    )
    tool.function_schema.validator = RAW_ARGUMENTS  # type: ignore[assignment]
    tool.function_schema.is_async = True  # a callable object: pydantic-ai cannot tell
    tool.metadata = {TOOL_MARK: spec.name}
    return tool


__all__ = [
    "ERROR_METADATA_KEY",
    "RAW_ARGUMENTS",
    "RAW_KEY",
    "TOOL_MARK",
    "RawArguments",
    "ToolRuntime",
    "build_tool",
]
