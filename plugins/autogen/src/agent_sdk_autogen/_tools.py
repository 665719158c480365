"""ToolSpec -> AutoGen 0.7 BaseTool, with every call going through the agent-sdk executor, and
the failed calls kept for the host (AutoGen keeps only their text)."""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from autogen_core import EVENT_LOGGER_NAME, CancellationToken
from autogen_core.logging import ToolCallEvent
from autogen_core.tools import BaseTool, ToolSchema
from pydantic import BaseModel, ConfigDict

from agent_sdk import Executor, HierarchyLimitError, ToolError, ToolSpec
from agent_sdk.integration import ApprovalGate, record_failure
from agent_sdk_autogen._context import bind_tool_call
from agent_sdk_autogen._run_control import stop_active_run

_event_logger = logging.getLogger(EVENT_LOGGER_NAME)


class AutogenToolError(Exception):
    """A failed tool call, as raised into AutoGen so that it sets ``is_error=True``.

    ``str(exc)`` is the JSON error the model sees; ``error`` is the ToolError and
    ``exception`` the original exception (also ``__cause__``). AutoGen keeps only the text:
    ``agent_sdk.tool_error(call_id)`` gives the ToolError of a call the host saw, and
    :func:`collect_tool_errors` these objects for every failed call of a block.
    """

    def __init__(
        self, text: str, *, error: ToolError, call_id: str | None, path: tuple[str, ...] = ()
    ) -> None:
        super().__init__(text)
        self.text = text
        self.error = error
        self.call_id = call_id
        self.path = path

    @property
    def tool(self) -> str | None:
        return self.error.tool

    @property
    def exception(self) -> BaseException:
        """The original exception where there is one, else the ToolError."""
        return self.error.cause or self.error


_errors: contextvars.ContextVar[list[AutogenToolError] | None] = contextvars.ContextVar(
    "agent_sdk_autogen_tool_errors", default=None
)


@contextmanager
def collect_tool_errors() -> Iterator[list[AutogenToolError]]:
    """Collect the failed tool calls of the runs started in this block, sub-agents and team
    members included (``path`` says where: AutoGen does not stream a child's events, so the
    host never sees those call ids; for a call it saw, ``agent_sdk.tool_error(call_id)``).

    AutoGen turns a tool's exception into ``FunctionExecutionResult(content=str(exc),
    is_error=True)`` and drops the exception; this list keeps it for the host.
    """
    errors: list[AutogenToolError] = []
    token = _errors.set(errors)
    try:
        yield errors
    finally:
        _errors.reset(token)


def record_tool_error(error: AutogenToolError) -> None:
    sink = _errors.get()
    if sink is not None:
        sink.append(error)


class _AnyArguments(BaseModel):
    """AutoGen wants an args model; the real contract is the spec's schema, checked by the
    executor (AutoGen itself never validates arguments against a hand-written schema)."""

    model_config = ConfigDict(extra="allow")


class RawArguments(Mapping[str, Any]):
    """Argument text AutoGen would not hand a tool as a JSON object (not JSON, or JSON that
    is not an object), passed to an :class:`AutogenTool` as it is (see ``_agent_loop``).

    A mapping (what a workbench passes on) with no items, true (the workbench replaces
    false arguments with ``{}``), holding the model's ``text``.
    """

    def __init__(self, text: str) -> None:
        self.text = text

    def __bool__(self) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"RawArguments({self.text!r})"


class AutogenTool(BaseTool[_AnyArguments, BaseModel]):
    """A ToolSpec as an AutoGen tool.

    The model is told the spec's neutral schema verbatim. ``run_json`` (the only method that
    sees AutoGen's call id) runs the call through the executor, with the approval gate when
    one is given. A failed call raises :class:`AutogenToolError`, whose text is the JSON
    error: AutoGen sets ``is_error=True`` and model adapters forward only the text.
    """

    component_type = "tool"
    component_provider_override = "agent_sdk_autogen.AutogenTool"

    def __init__(self, spec: ToolSpec, *, executor: Executor, gate: ApprovalGate | None) -> None:
        super().__init__(_AnyArguments, str, spec.name, spec.description)  # type: ignore[arg-type]
        self._spec = spec
        self._executor = executor
        self._gate = gate

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    @property
    def executor(self) -> Executor:
        return self._executor

    @property
    def schema(self) -> ToolSchema:
        # A fresh copy on every read: AutoGen reads it for each model call and tool call,
        # and a model client must not be able to change what the next one sees.
        return {
            "name": self._spec.name,
            "description": self._spec.description,
            "parameters": self._spec.json_schema(),  # type: ignore[typeddict-item]
        }

    def return_value_as_string(self, value: Any) -> str:
        return value if isinstance(value, str) else str(value)

    async def run(self, args: _AnyArguments, cancellation_token: CancellationToken) -> Any:
        raise TypeError(
            f"tool {self.name!r} runs through run_json(args, cancellation_token, call_id), "
            "which binds the call id and validates against the spec"
        )

    async def run_json(
        self,
        args: Mapping[str, Any],
        cancellation_token: CancellationToken,
        call_id: str | None = None,
    ) -> Any:
        # Not calling BaseTool.run_json on purpose: it would open AutoGen's own
        # `execute_tool` span next to the executor's (one call, two spans).
        ctx = bind_tool_call(call_id, cancellation_token)
        # The model's text where AutoGen could not give an object (an agent this plugin
        # runs, see _agent_loop); else whatever AutoGen's json.loads gave: anything but an
        # object must be reported as such, not re-read as JSON text.
        arguments: Any
        if isinstance(args, RawArguments):
            arguments = args.text
        elif isinstance(args, Mapping):
            arguments = dict(args)
        else:
            arguments = json.dumps(args)
        try:
            outcome = await self._executor.run_spec(self._spec, arguments, ctx, gate=self._gate)
        except HierarchyLimitError as exc:
            failure = AutogenToolError(
                exc.to_model_text(), error=exc, call_id=call_id, path=ctx.path
            )
            record_failure(call_id, exc)
            record_tool_error(failure)
            # The budget is spent: end the run. Without a linked run (autogen_run, or a
            # sub-agent run by this SDK) AutoGen cannot be stopped from a tool without
            # hanging, so the model gets the error and every further agent call is refused.
            stop_active_run(exc)
            raise failure from exc
        if outcome.error is not None:
            failure = AutogenToolError(
                outcome.text, error=outcome.error, call_id=call_id, path=ctx.path
            )
            record_tool_error(failure)
            raise failure from (outcome.error.cause or outcome.error)
        if _event_logger.isEnabledFor(logging.INFO) and not self.spec.confirm:
            # BaseTool.run_json logs this on success; keep AutoGen's event log complete, but
            # never for confirm tools: their arguments and results may be sensitive.
            _event_logger.info(
                ToolCallEvent(tool_name=self.name, arguments=_loggable(args), result=outcome.text)
            )
        return outcome.text

    def _to_config(self) -> BaseModel:
        raise NotImplementedError(
            f"tool {self.name!r} cannot be dumped as an AutoGen component: it holds a Python "
            "handler, an executor and an approval port. Build it in code with autogen_tool()."
        )

    def __copy__(self) -> AutogenTool:
        clone = AutogenTool.__new__(AutogenTool)
        clone.__dict__.update(self.__dict__)
        return clone

    def __deepcopy__(self, memo: dict[int, Any]) -> AutogenTool:
        # A copy shares the spec, the executor and the gate (and so the gate's tokens):
        # deep-copying them would split one tool into several with separate state.
        return self.__copy__()


def _loggable(args: Any) -> dict[str, Any]:
    if isinstance(args, RawArguments):
        return {"arguments": args.text}
    return dict(args) if isinstance(args, Mapping) else {"arguments": args}
