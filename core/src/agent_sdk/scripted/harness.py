"""The scripted harness: what a plugin provides so the contract kit (and ``agent-sdk
demo``) can drive its framework's real agent loop with a model that plays a script, and
what such a run reports.

An integration's harness (``Integration.harness``) exports tools, builds scripted child
agents as tools and runs an orchestrator whose model plays ``Turn``s.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from agent_sdk.approval.ports import ApprovalPort
from agent_sdk.errors import IntegrationError
from agent_sdk.executor import Executor
from agent_sdk.extraction import ReturnMode
from agent_sdk.scripted.turns import Turn
from agent_sdk.spec import ToolSpec

if TYPE_CHECKING:
    from agent_sdk.scripted.endpoint import Api, Endpoint


@dataclass
class ScriptedAgent:
    """A child agent for agent-as-tool checks: its model plays ``turns`` from the first one
    on every call; ``tools`` are native tools the child may call."""

    name: str
    turns: Sequence[Turn]
    description: str = "a scripted sub-agent"
    tools: Sequence[Any] = ()
    instructions: str = ""
    """The agent's system prompt (what a real model would follow instead of ``turns``)."""


@dataclass
class SeenResult:
    """A tool result as the model saw it. ``is_error`` is the framework's own error signal
    (None where the framework has none)."""

    call_id: str | None
    name: str | None
    text: str
    is_error: bool | None = None


@dataclass
class RunResult:
    results: list[SeenResult]
    final_text: str | None = None
    run_id: str | None = None
    """The framework's own conversation/stream/trace id of this run."""
    thread_id: str | None = None
    exceptions: list[BaseException] = field(default_factory=list)
    """Exceptions the framework kept for the host (e.g. on its error events)."""
    events: list[Any] = field(default_factory=list)

    def result(self, call_id: str) -> SeenResult:
        for r in self.results:
            if r.call_id == call_id:
                return r
        raise AssertionError(f"no result for call {call_id!r}; seen: {self.results}")


class Harness(ABC):
    """What a plugin provides so the kit can drive its framework.

    Built with no endpoint, agents run on the framework's in-process scripted model. Built
    with an ``Endpoint`` (``Harness(endpoint)``, for the APIs in ``apis``), every agent runs
    on the framework's own OpenAI-compatible client against that endpoint, with
    ``system_prompt`` as its instructions: model calls, tool calls and results cross HTTP.
    """

    apis: ClassVar[tuple[Api, ...]] = ()
    """The OpenAI APIs (``"chat"``, ``"responses"``) the harness drives over HTTP through the
    framework's own client; () for in-process scripted models only."""
    endpoint: Endpoint | None = None

    integration: str
    """The integration name (as in ``get_integration``)."""
    parallel: bool = True
    """Several tool calls of one turn run concurrently."""
    error_flag: bool = True
    """The framework marks failed tool results with its own error signal."""
    text_with_calls: bool = True
    """The scripted model can send text and tool calls in one response."""
    raw_arguments: bool = True
    """The integration sees the model's raw argument text. False where the framework parses
    it first and answers malformed JSON itself (AutoGen 0.7): the kit then checks that the
    handler never runs and the model is told of an error, in the framework's words."""
    schema_adjustments: str = ""
    """The documented changes the framework makes to the neutral schema (C1)."""
    internal_spans: ClassVar[tuple[str, ...]] = ()
    """Name prefixes of framework spans that are internal extras (e.g. ``"create_agent "``):
    C13 leaves them out of the trace skeleton and lifts their children."""
    native_pause: bool = False
    """The framework pauses confirm calls for approval and resumes them later (the kit then
    runs C7 through that native path: ``pause``, ``paused_calls``, ``resume``)."""
    native_child_pause: bool = False
    """A confirm call inside an agent tool's child pauses the parent's run as the parent's
    own pending call, and approving it there resumes both (the kit then runs C15's native
    cases: ``pause`` with agent tools, ``paused_calls``, ``resume``; with ``serialize_paused``
    and ``restore_paused`` also across a restart)."""

    def __init__(self, endpoint: Endpoint | None = None) -> None:
        if endpoint is not None and endpoint.api not in self.apis:
            supported = ", ".join(self.apis) or "none"
            raise IntegrationError(
                f"{self.integration}: the harness cannot drive the {endpoint.api!r} API over "
                f"HTTP (supported: {supported})"
            )
        self.endpoint = endpoint
        self._openai_clients: dict[asyncio.AbstractEventLoop, tuple[Any, int]] = {}
        self._built_with: Any = None

    @asynccontextmanager
    async def openai_connection(self) -> AsyncIterator[Any]:
        """Over an endpoint: the ``AsyncOpenAI`` of the running event loop, shared by every
        run of that loop and closed when its last run ends (an httpx connection cannot
        outlive its loop, and the kit pauses and resumes runs in different loops). Yields
        None without an endpoint. A harness points its agents at the client it yields."""
        if self.endpoint is None:
            yield None
            return
        loop = asyncio.get_running_loop()
        found = self._openai_clients.get(loop)
        client = found[0] if found else self.endpoint.openai_client()
        self._openai_clients[loop] = (client, (found[1] if found else 0) + 1)
        try:
            yield client
        finally:
            _, users = self._openai_clients[loop]
            if users == 1:
                del self._openai_clients[loop]
                await client.close()
            else:
                self._openai_clients[loop] = (client, users - 1)

    def built_client(self) -> Any:
        """The ``AsyncOpenAI`` that agents are built with before a run gives them the client
        of its event loop (``openai_connection``): made once per harness, so that building
        an agent costs no client of its own (a new client costs tens of milliseconds of TLS
        set-up, drawn in a trace as empty time before each run)."""
        if self.endpoint is None:
            raise IntegrationError(f"{self.integration}: the harness has no endpoint")
        if self._built_with is None:
            self._built_with = self.endpoint.openai_client()
        return self._built_with

    def system_prompt(self, name: str, instructions: str = "", turns: Sequence[Turn] = ()) -> str:
        """The system prompt of an agent built over the endpoint: its instructions (or a
        line naming it), and with a scripted server of this process the key of its turns."""
        if self.endpoint is None:
            raise IntegrationError(f"{self.integration}: the harness has no endpoint")
        return self.endpoint.instructions(instructions or f"You are {name}.", turns)

    def export_tool(
        self, spec: ToolSpec, *, executor: Executor, approval: ApprovalPort | None = None
    ) -> Any:
        """The plugin's public export function (``<fw>_tool``: ``Integration.tool``)."""
        return self._integration().tool(spec, executor=executor, approval=approval)

    @abstractmethod
    def advertised(self, tool: Any) -> dict[str, Any]:
        """What the model is told about ``tool``: {"name", "description", "parameters"}."""

    def expected_schema(self, spec: ToolSpec) -> dict[str, Any]:
        """The neutral schema after the framework's documented adjustments."""
        return spec.json_schema()

    def export_agent_tool(
        self,
        agent: ScriptedAgent,
        *,
        return_mode: ReturnMode = "last",
        timeout: float | None = None,
        input_schema: Any = None,
    ) -> Any:
        """The plugin's agent tool (``<fw>_agent_tool``: ``Integration.agent_tool``) for
        ``native_agent(agent)``, named and described as ``agent`` is, with the harness's
        ``agent_tool_options``."""
        return self._integration().agent_tool(
            self.native_agent(agent),
            name=agent.name,
            description=agent.description,
            return_mode=return_mode,
            timeout=timeout,
            input_schema=input_schema,
            **self.agent_tool_options(),
        )

    def agent_tool_options(self) -> dict[str, Any]:
        """The framework's own options ``export_agent_tool`` passes (default: none)."""
        return {}

    def endpoint_model(self) -> Any:
        """The one place a harness wires its HTTP endpoint: what this framework's agents are
        built with to talk to ``self.endpoint`` through the framework's own OpenAI client
        (AG2: a ``ModelConfig``; AutoGen: a model client; openai-agents: a ``Model``;
        fast-agent: the model string, its app's providers pointed at the endpoint)."""
        raise NotImplementedError(f"{self.integration}: the harness drives no HTTP endpoint")

    def _integration(self) -> Any:
        from agent_sdk.plugins import get_integration

        return get_integration(self.integration)

    def native_agent(self, agent: ScriptedAgent) -> Any:
        """``agent`` built in the framework with a scripted model, as the plugin's
        ``<fw>_agent_tool`` takes it (an agent, or a function returning one), so C0 can
        check the core's name, history and option rules on ``Integration.agent_tool``; a
        tool made from it runs in ``run`` as one from ``export_agent_tool`` does."""
        raise NotImplementedError(
            f"{self.integration}: the harness builds no native agent (Harness.native_agent)"
        )

    @abstractmethod
    async def run(self, tools: Sequence[Any], turns: Sequence[Turn]) -> RunResult:
        """Run an orchestrator agent with ``tools`` whose scripted model plays ``turns``
        (tool calls use the given ids), then return what its model saw.

        A harness with ``apis`` also takes ``instructions=`` (keyword): the orchestrator's
        system prompt over the endpoint, what a real model follows instead of ``turns``."""

    async def pause(self, tools: Sequence[Any], turns: Sequence[Turn]) -> Any:
        """Run an orchestrator with ``tools`` whose scripted model plays ``turns`` until the
        framework pauses on confirm calls; return the paused state (opaque to the kit)."""
        raise NotImplementedError(f"{self.integration}: no native approval pause")

    def paused_calls(self, paused: Any) -> list[tuple[str, str, dict[str, Any]]]:
        """(call id, tool name, arguments) of each call ``paused`` waits on, in call order."""
        raise NotImplementedError(f"{self.integration}: no native approval pause")

    async def resume(
        self, paused: Any, *, edit: Mapping[str, Mapping[str, Any]] | None = None
    ) -> RunResult:
        """Approve every paused call in the framework and resume; return what the model saw.

        ``edit`` maps call ids to arguments that replace those of the paused call before it
        is approved (a tampered state). ``paused`` is not consumed: a second resume replays
        it."""
        raise NotImplementedError(f"{self.integration}: no native approval pause")

    def serialize_paused(self, paused: Any) -> str:
        """``paused`` as the text a host writes down to resume after a restart (the
        framework's own serialised state, and whatever else the resumed run needs, such as
        its run id)."""
        raise NotImplementedError(
            f"{self.integration}: the paused state is not serialised (Harness.serialize_paused)"
        )

    def restore_paused(self, text: str, tools: Sequence[Any], turns: Sequence[Turn]) -> Any:
        """The paused state ``serialize_paused`` wrote, for an orchestrator built anew from
        ``tools`` and ``turns`` (what ``pause`` was given, as new objects: a host after a
        restart). Called on a new harness, ``type(harness)(harness.endpoint)``; ``resume``
        takes what it returns, and each call returns a state of its own (resuming one does
        not consume the text)."""
        raise NotImplementedError(
            f"{self.integration}: no paused state is restored (Harness.restore_paused)"
        )

    def copy_tool(self, tool: Any) -> Any:
        """A copy as the framework makes on registration (C8)."""
        import copy

        return copy.deepcopy(tool)


__all__ = ["Harness", "RunResult", "ScriptedAgent", "SeenResult"]
