"""ToolSpec -> fast-agent function tool, run through the agent-sdk executor."""

from __future__ import annotations

from typing import Any

from fast_agent.tools.invocation_context import get_local_tool_invocation_context
from fastmcp.tools import FunctionTool, ToolResult
from mcp_types import TextContent

from agent_sdk import Executor, HierarchyLimitError, ToolSpec
from agent_sdk.integration import ApprovalGate, record_failure

from ._arguments import sent_arguments
from ._context import bind_tool_call, current_conversation


def text_result(text: str, *, is_error: bool = False) -> ToolResult:
    return ToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


class ToolBinding:
    """What a native tool runs: the spec, the executor and the approval gate it was given.

    Shared, never copied: copies of the native tool (``copy.deepcopy``) keep the same spec,
    executor and gate, so tokens minted by the gate stay valid for the executor.
    """

    def __init__(self, spec: ToolSpec, executor: Executor, gate: ApprovalGate | None) -> None:
        self.spec = spec
        self.executor = executor
        self.gate = gate

    def __deepcopy__(self, memo: dict[int, Any]) -> ToolBinding:
        return self

    def __copy__(self) -> ToolBinding:
        return self

    async def __call__(self, arguments: Any) -> ToolResult:
        invocation = get_local_tool_invocation_context()
        # Raw text that was not a JSON object (kept by strict_arguments) is validated as
        # the model sent it: tool-args-invalid, never a run on a repaired value.
        sent = sent_arguments(arguments)
        return await self.run(
            arguments if sent is None else sent, invocation.tool_use_id if invocation else None
        )

    async def run(self, arguments: Any, tool_use_id: str | None) -> ToolResult:
        """Run one call; ``arguments`` is whatever the model sent (validated here). The
        executor keeps the error of a failed call for ``tool_error(tool_use_id)``."""
        ctx = bind_tool_call(tool_use_id)
        try:
            outcome = await self.executor.run_spec(self.spec, arguments, ctx, gate=self.gate)
        except HierarchyLimitError as exc:
            # fast-agent turns every tool exception into an is_error result and carries on;
            # the budget error must stop the run instead. Record it on the run: the next
            # model call of every agent in the run raises it (see _loop.stop_check).
            conv = current_conversation()
            if conv is not None:
                conv.control.record_stop(exc)
            record_failure(tool_use_id, exc)
            return text_result(exc.to_model_text(), is_error=True)
        return text_result(outcome.text, is_error=not outcome.ok)


class AgentSDKTool(FunctionTool):
    """A fast-agent function tool whose calls run through the agent-sdk executor.

    The model sees the spec's neutral JSON schema (``parameters``); the arguments reach the
    executor unvalidated by fastmcp, so the spec's validation is the one that counts (a plain
    fastmcp tool with a replaced ``parameters`` would still validate against the Python
    signature). Add it to an agent with ``agent.add_tool(tool)`` or ``fast_agent_instrument(agent,
    tools=[...])``.
    """

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        binding: ToolBinding = self.fn  # type: ignore[assignment]
        return await binding(arguments)

    @property
    def binding(self) -> ToolBinding:
        return self.fn  # type: ignore[return-value]

    @property
    def spec(self) -> ToolSpec:
        return self.binding.spec

    @property
    def executor(self) -> Executor:
        return self.binding.executor


def build_tool(spec: ToolSpec, executor: Executor, gate: ApprovalGate | None) -> AgentSDKTool:
    return AgentSDKTool(
        name=spec.name,
        description=spec.description,
        parameters=spec.json_schema(),
        fn=ToolBinding(spec, executor, gate),
        output_schema=None,
    )
