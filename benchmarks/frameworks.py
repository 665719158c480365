"""One driver per framework: the same scripted model and agent loop for a native tool and
for our exported tool, reused across runs (state is reset outside the timed region).

The scripted models are the plugins' own (``agent_sdk_<name>.testing``), which wrap each
framework's test double: AG2 ``TestConfig``, AutoGen ``ReplayChatCompletionClient``, an
``agents.Model`` subclass, fast-agent's ``PassthroughLLM``. The entry points timed are the
ones of ``research/native_baselines.md``: ``Agent.ask`` (ag2), ``AssistantAgent.run``
(autogen), ``Runner.run`` (openai-agents), ``agent.generate`` (fast-agent).

Usage::

    driver = DRIVERS["ag2"]()
    runner = driver.runner([tool], turns)   # declare everything first (fast-agent)
    async with driver.session():
        runner.reset(); await runner.run()
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_sdk import ToolSpec
from agent_sdk.extraction import ReturnMode
from agent_sdk.scripted import ScriptedAgent, ToolCall, Turn

Handler = Callable[..., Awaitable[Any]]
_names = itertools.count(1)


class Runner:
    """One orchestrator agent with its tools and script, run many times."""

    def __init__(
        self, run: Callable[[], Awaitable[Any]], reset: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        self._run = run
        self._reset = reset

    async def reset(self) -> None:
        if self._reset is not None:
            await self._reset()

    async def run(self) -> Any:
        return await self._run()


@dataclass
class NativeAgentTool:
    tool: Any  # what goes in the orchestrator's tools
    name: str  # the tool name the orchestrator's model calls
    argument: str  # the name of the request argument

    def call(self, request: str, call_id: str) -> ToolCall:
        return ToolCall(self.name, {self.argument: request}, id=call_id)


class Driver:
    name: str = ""
    distributions: tuple[str, ...] = ()
    harness_name: str = ""

    def native_tool(self, fn: Handler, *, name: str, description: str) -> Any:
        raise NotImplementedError

    def our_tool(self, spec: ToolSpec) -> Any:
        from agent_sdk import get_integration

        return (
            get_integration(self.harness_name)
            .load_harness()
            .export_tool(spec, executor=self.executor())
        )

    def executor(self) -> Any:
        from agent_sdk import Executor

        return Executor()

    def agent_tool(self, agent: ScriptedAgent, *, return_mode: ReturnMode = "last") -> Any:
        raise NotImplementedError

    def native_agent_tool(self, agent: ScriptedAgent) -> NativeAgentTool:
        """The framework's own way to call a sub-agent from a tool, without agent-sdk: what
        a user would write instead of our agent tool (a fresh child run per call)."""
        raise NotImplementedError

    def runner(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instrumented: bool = False
    ) -> Runner:
        """An orchestrator with ``tools`` playing ``turns``. ``instrumented``: set up as a
        user of agent-sdk does to get its spans (the top agent's ``invoke_agent`` and a
        ``chat`` span per model call) on runs while agent-sdk records spans
        (``tracing_enabled()``); otherwise, and on runs while nothing records, the
        framework's agent as it comes (a user who does not trace does not instrument)."""
        raise NotImplementedError

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        yield


# -- ag2 -----------------------------------------------------------------------------------
class AG2Driver(Driver):
    name = harness_name = "ag2"
    distributions = ("ag2",)

    def __init__(self) -> None:
        from agent_sdk_ag2.testing import AG2Harness

        self.harness = AG2Harness()

    def native_tool(self, fn: Handler, *, name: str, description: str) -> Any:
        from ag2 import tool

        return tool(fn, name=name, description=description)

    def our_tool(self, spec: ToolSpec) -> Any:
        return self.harness.export_tool(spec, executor=self.executor())

    def agent_tool(self, agent: ScriptedAgent, *, return_mode: ReturnMode = "last") -> Any:
        return self.harness.export_agent_tool(agent, return_mode=return_mode)

    def native_agent_tool(self, agent: ScriptedAgent) -> NativeAgentTool:
        from ag2 import Agent, tool

        from agent_sdk_ag2.testing import ScriptedConfig

        child = Agent(agent.name, agent.description, config=ScriptedConfig(agent.turns))

        async def ask_child(request: str) -> str:
            return (await child.ask(request)).body or ""

        native = tool(ask_child, name=agent.name, description=agent.description)
        return NativeAgentTool(native, agent.name, "request")

    def runner(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instrumented: bool = False
    ) -> Runner:
        from ag2 import Agent

        from agent_sdk.integration import tracing_enabled
        from agent_sdk_ag2 import ag2_instrument
        from agent_sdk_ag2.testing import ScriptedConfig

        # ScriptedConfig.create() makes a fresh client per ask(): the script restarts.
        name = f"orchestrator{next(_names)}"
        plain = Agent(name, config=ScriptedConfig(turns), tools=list(tools))
        traced = ag2_instrument(Agent(name, config=ScriptedConfig(turns), tools=list(tools)))

        async def run() -> Any:
            # A user who does not trace does not instrument (as the other drivers).
            agent = traced if instrumented and tracing_enabled() else plain
            return (await agent.ask("start")).body

        return Runner(run)


# -- autogen -------------------------------------------------------------------------------
class AutogenDriver(Driver):
    name = harness_name = "autogen"
    distributions = ("autogen-agentchat", "autogen-core", "autogen-ext")

    def __init__(self) -> None:
        from agent_sdk_autogen.testing import AutogenHarness

        self.harness = AutogenHarness()

    def native_tool(self, fn: Handler, *, name: str, description: str) -> Any:
        from autogen_core.tools import FunctionTool

        return FunctionTool(fn, description=description, name=name)

    def our_tool(self, spec: ToolSpec) -> Any:
        return self.harness.export_tool(spec, executor=self.executor())

    def agent_tool(self, agent: ScriptedAgent, *, return_mode: ReturnMode = "last") -> Any:
        return self.harness.export_agent_tool(agent, return_mode=return_mode)

    def native_agent_tool(self, agent: ScriptedAgent) -> NativeAgentTool:
        # AutoGen's AgentTool wraps one agent instance, which parallel calls would share
        # (history, model client); a fresh child per call is the FunctionTool a user writes.
        from autogen_core.tools import FunctionTool

        from agent_sdk_autogen.testing import scripted_agent

        async def ask_child(request: str) -> str:
            child = scripted_agent(agent.name, agent.turns, description=agent.description)
            result = await child.run(task=request)
            return str(result.messages[-1].content)

        native = FunctionTool(ask_child, description=agent.description, name=agent.name)
        return NativeAgentTool(native, agent.name, "request")

    def runner(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instrumented: bool = False
    ) -> Runner:
        from autogen_core import CancellationToken

        from agent_sdk.integration import tracing_enabled
        from agent_sdk_autogen import autogen_instrument
        from agent_sdk_autogen.testing import scripted_agent

        name = f"orchestrator{next(_names)}"
        plain = scripted_agent(name, turns, tools=tools)
        traced = autogen_instrument(scripted_agent(name, turns, tools=tools))

        def pick() -> Any:
            # A user who does not trace does not instrument (as the other drivers).
            return traced if instrumented and tracing_enabled() else plain

        async def run() -> Any:
            result = await pick().run(task="start")
            return result.messages[-1].content

        async def reset() -> None:
            agent = pick()
            await agent.on_reset(CancellationToken())
            agent._model_client.reset()

        return Runner(run, reset)


# -- openai-agents -------------------------------------------------------------------------
class OpenAIAgentsDriver(Driver):
    name = harness_name = "openai-agents"
    distributions = ("openai-agents",)

    MODE_ENV = "AGENT_SDK_BENCH_OPENAI_AGENTS_MODE"
    """``mirror`` (default) or ``lean``: the plugin's tracing mode the ``ours`` variants are
    instrumented with (``openai_agents_instrument(mode=...)``)."""

    def __init__(self) -> None:
        import os

        from agents import set_tracing_disabled

        from agent_sdk_openai_agents.testing import OpenAIAgentsHarness

        set_tracing_disabled(True)
        self.harness = OpenAIAgentsHarness()
        self._bridge: Any = None
        self.mode = os.environ.get(self.MODE_ENV, "mirror")
        if self.mode not in ("mirror", "lean"):
            raise ValueError(f"{self.MODE_ENV}={self.mode!r}: 'mirror' or 'lean'")

    def _instrument(self) -> None:
        from agents import set_tracing_disabled

        from agent_sdk_openai_agents import openai_agents_instrument

        if self._bridge is None:
            if self.mode == "lean":
                # Our spans without the SDK's trace (its tracing off on every run).
                self._bridge = openai_agents_instrument(mode="lean")
                return
            # Exclusive: the bridge alone (nothing exported to OpenAI).
            self._bridge = openai_agents_instrument(exclusive=True)
            set_tracing_disabled(False)

    def native_tool(self, fn: Handler, *, name: str, description: str) -> Any:
        from agents import function_tool

        return function_tool(fn, name_override=name, description_override=description)

    def our_tool(self, spec: ToolSpec) -> Any:
        return self.harness.export_tool(spec, executor=self.executor())

    def agent_tool(self, agent: ScriptedAgent, *, return_mode: ReturnMode = "last") -> Any:
        return self.harness.export_agent_tool(agent, return_mode=return_mode)

    def native_agent_tool(self, agent: ScriptedAgent) -> NativeAgentTool:
        from agents import Agent

        from agent_sdk_openai_agents.testing import ScriptedModel

        child = Agent(
            name=agent.name,
            instructions=f"You are {agent.name}.",
            model=ScriptedModel(agent.turns, name=agent.name),
        )
        native = child.as_tool(tool_name=agent.name, tool_description=agent.description)
        return NativeAgentTool(native, agent.name, "input")

    def runner(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instrumented: bool = False
    ) -> Runner:
        from agents import Agent, RunConfig
        from agents import Runner as SDKRunner
        from agents.run import AgentRunner

        from agent_sdk.integration import tracing_enabled
        from agent_sdk_openai_agents.testing import ScriptedModel

        model = ScriptedModel(turns, name="orchestrator")
        agent = Agent(
            name=f"orchestrator{next(_names)}",
            instructions="You orchestrate.",
            model=model,
            tools=list(tools),
        )
        # Our spans of the top agent and its model calls are the SDK's own, bridged
        # (openai_agents_instrument(), once per process): an instrumented run has the SDK trace it while
        # agent-sdk's spans are recorded (the mode "noop" is a user with tracing off). In the
        # lean mode (MODE_ENV=lean) they are agent-sdk's own and the SDK traces nothing.
        traced, untraced = RunConfig(), RunConfig(tracing_disabled=True)
        if instrumented:
            self._instrument()
        lean = self.mode == "lean"
        # The lean mode wraps the SDK's default runner for every run of the process: an agent
        # that is not instrumented (native, floor) runs on a plain AgentRunner, as it would
        # in a program without the lean mode.
        run_agent = AgentRunner().run if lean and not instrumented else SDKRunner.run

        async def run() -> Any:
            config = traced if instrumented and not lean and tracing_enabled() else untraced
            result = await run_agent(agent, "start", run_config=config, max_turns=len(turns) + 2)
            return result.final_output

        async def reset() -> None:
            model.calls.clear()

        return Runner(run, reset)


# -- fast-agent ----------------------------------------------------------------------------
@dataclass
class _NativeChild:
    internal: str  # the child agent's name in the FastAgent app


class FastAgentDriver(Driver):
    """Agents exist only inside ``fast.run()``: declare runners and agent tools first, then
    open ``session()``; one app serves every runner of the worker."""

    name = harness_name = "fast-agent"
    distributions = ("fast-agent-mcp",)

    def __init__(self) -> None:
        from agent_sdk_fast_agent.testing import register_scripted_model

        register_scripted_model()
        self._agents: dict[str, Sequence[Turn]] = {}
        self._child_tools: dict[str, Sequence[Any]] = {}
        self._children_of: dict[str, list[str]] = {}  # orchestrator -> native child agents
        self._setups: list[Callable[[Any], None]] = []
        self.app: Any = None

    def native_tool(self, fn: Handler, *, name: str, description: str) -> Any:
        from fast_agent.tools.function_tool_loader import build_default_function_tool

        return build_default_function_tool(fn, name=name, description=description)

    def our_tool(self, spec: ToolSpec) -> Any:
        from agent_sdk_fast_agent import fast_agent_tool

        return fast_agent_tool(spec, executor=self.executor())

    def agent_tool(self, agent: ScriptedAgent, *, return_mode: ReturnMode = "last") -> Any:
        from agent_sdk_fast_agent import fast_agent_agent_tool

        internal = f"{agent.name}_{next(_names)}"
        self._agents[internal] = list(agent.turns)
        self._child_tools[internal] = list(agent.tools)
        return fast_agent_agent_tool(
            lambda: self.app[internal],
            name=agent.name,
            description=agent.description,
            return_mode=return_mode,
        )

    def native_agent_tool(self, agent: ScriptedAgent) -> NativeAgentTool:
        # fast-agent's own Agents-as-Tools: the orchestrator is declared with agents=[child]
        # and calls it as the tool agent__<child>; each call runs a detached clone.
        internal = f"{agent.name}_{next(_names)}"
        self._agents[internal] = list(agent.turns)
        return NativeAgentTool(_NativeChild(internal), f"agent__{internal}", "message")

    def runner(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instrumented: bool = False
    ) -> Runner:
        from agent_sdk.integration import tracing_enabled
        from agent_sdk_fast_agent import fast_agent_instrument

        internal = f"orchestrator_{next(_names)}"
        # Two agents of one declaration: the instrumented one runs while agent-sdk records
        # spans, the plain one otherwise (a user who does not trace does not instrument).
        names = (internal, f"{internal}_traced") if instrumented else (internal,)
        children = [t.internal for t in tools if isinstance(t, _NativeChild)]
        for declared in names:
            self._agents[declared] = list(turns)
            if children:
                self._children_of[declared] = children
        tools = [t for t in tools if not isinstance(t, _NativeChild)]
        holder: dict[str, Any] = {}

        def setup(app: Any) -> None:
            holder["plain"] = holder["traced"] = app[internal]
            for tool in tools:
                holder["plain"].add_tool(tool)
            if instrumented:
                holder["traced"] = fast_agent_instrument(app[names[1]], tools=tools)

        self._setups.append(setup)

        def pick() -> Any:
            return holder["traced"] if instrumented and tracing_enabled() else holder["plain"]

        async def run() -> Any:
            reply = await pick().generate("start")
            return reply.last_text()

        async def reset() -> None:
            agent = pick()
            agent.clear()
            agent.llm._agent_sdk_turn = 0

        return Runner(run, reset)

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        from fast_agent.ui.display_suppression import suppress_interactive_display

        from agent_sdk_fast_agent.testing import SCRIPTED_MODEL, library_app, scripts

        fast = library_app("agent-sdk-bench")
        for name in self._agents:

            async def declaration() -> None:
                return None

            children = {"agents": self._children_of[name]} if name in self._children_of else {}
            fast.agent(
                name=name,
                instruction="You are a scripted agent.",
                model=SCRIPTED_MODEL,
                **children,
            )(declaration)
        # quiet=True still prints a summary line for parallel tool calls (native_baselines
        # caveat 3): suppressed for every variant alike.
        with scripts(self._agents), suppress_interactive_display():
            async with fast.run() as app:
                self.app = app
                for name, child_tools in self._child_tools.items():
                    for tool in child_tools:
                        app[name].add_tool(tool)
                for setup in self._setups:
                    setup(app)
                try:
                    yield
                finally:
                    self.app = None


# -- agent-framework -----------------------------------------------------------------------
class AgentFrameworkDriver(Driver):
    """Microsoft Agent Framework: ``Agent.run`` on the plugin's ``ScriptedChatClient``. MAF's
    own instrumentation is on by default (no-op spans without an SDK provider, yet ~40 % of
    its loop's cost, research/agent_framework.md section 9): it is turned off here for native
    and ours alike, as the other frameworks' own tracing is."""

    name = harness_name = "agent-framework"
    distributions = ("agent-framework-core",)

    def __init__(self) -> None:
        from agent_framework.observability import disable_instrumentation

        from agent_sdk_agent_framework.testing import AgentFrameworkHarness

        disable_instrumentation()  # a benchmark process is an application: this is ours
        self.harness = AgentFrameworkHarness()
        self.clients: list[Any] = []

    def _client(self, turns: Sequence[Turn], name: str) -> Any:
        from agent_sdk_agent_framework.testing import ScriptedChatClient

        client = ScriptedChatClient(turns, name=name)
        self.clients.append(client)
        return client

    def _child(self, agent: ScriptedAgent) -> Any:
        """The child agent, built alike for native and ours (as the harness builds it)."""
        from agent_framework import Agent

        return Agent(
            client=self._client(agent.turns, agent.name),
            name=agent.name,
            description=agent.description,
            instructions=f"You are {agent.name}.",
        )

    async def _reset(self) -> None:
        # The scripted clients record what every call was sent; kept across runs, that
        # record grows the heap every collection of the oldest generation walks.
        for client in self.clients:
            client.calls.clear()

    def native_tool(self, fn: Handler, *, name: str, description: str) -> Any:
        from agent_framework import FunctionTool

        return FunctionTool(name=name, description=description, func=fn)

    def our_tool(self, spec: ToolSpec) -> Any:
        return self.harness.export_tool(spec, executor=self.executor())

    def agent_tool(self, agent: ScriptedAgent, *, return_mode: ReturnMode = "last") -> Any:
        from agent_sdk_agent_framework import agent_framework_agent_tool

        return agent_framework_agent_tool(
            self._child(agent),
            name=agent.name,
            description=agent.description,
            return_mode=return_mode,
        )

    def native_agent_tool(self, agent: ScriptedAgent) -> NativeAgentTool:
        native = self._child(agent).as_tool(name=agent.name, description=agent.description)
        return NativeAgentTool(native, agent.name, "task")

    def runner(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instrumented: bool = False
    ) -> Runner:
        from agent_framework import Agent

        from agent_sdk.integration import tracing_enabled
        from agent_sdk_agent_framework import agent_framework_instrument

        name = f"orchestrator{next(_names)}"
        plain, traced = (
            Agent(client=self._client(turns, "orchestrator"), name=name, tools=list(tools))
            for _ in range(2)
        )
        agent_framework_instrument(traced)

        async def run() -> Any:
            # A user who does not trace does not instrument (as the other drivers).
            agent = traced if instrumented and tracing_enabled() else plain
            # No session: every run is a fresh conversation (the client replays the script).
            return (await agent.run("start")).text

        return Runner(run, self._reset)


# -- pydantic-ai ---------------------------------------------------------------------------
class PydanticAIDriver(Driver):
    """pydantic-ai: ``Agent.run`` on the plugin's scripted ``FunctionModel``. Its own
    instrumentation is off by default (as the other frameworks' tracing is here); ours is
    the top agent traced with ``pydantic_ai_instrument(agent)`` in every mode (the
    skeleton's spans while agent-sdk records, no capability in the run; a run that records
    nothing is the wrapped agent's own, so the tracing-off rows pay one wrapper per run, as
    a user who leaves it on pays). The native
    delegate's child is the agent ours wraps (``native_agent``: the same instructions and
    description). Every run lifts pydantic-ai's default ``request_limit`` of 50: a
    delegate's requests count against the parent's (``usage=ctx.usage`` natively, merged
    by ours), so 1,000 children would stop the run."""

    name = harness_name = "pydantic-ai"
    distributions = ("pydantic-ai-slim",)

    def __init__(self) -> None:
        from agent_sdk_pydantic_ai.testing import PydanticAIHarness

        self.harness = PydanticAIHarness()

    def native_tool(self, fn: Handler, *, name: str, description: str) -> Any:
        from pydantic_ai import Tool

        return Tool(fn, name=name, description=description)

    def our_tool(self, spec: ToolSpec) -> Any:
        return self.harness.export_tool(spec, executor=self.executor())

    def agent_tool(self, agent: ScriptedAgent, *, return_mode: ReturnMode = "last") -> Any:
        return self.harness.export_agent_tool(agent, return_mode=return_mode)

    def native_agent_tool(self, agent: ScriptedAgent) -> NativeAgentTool:
        from pydantic_ai import RunContext, Tool, UsageLimits

        child = self.harness.native_agent(agent)
        unlimited = UsageLimits(request_limit=None)

        async def delegate(ctx: RunContext[Any], request: str) -> str:
            # pydantic-ai's documented delegation: a fresh child run, usage into the parent's.
            return (await child.run(request, usage=ctx.usage, usage_limits=unlimited)).output

        # This module's annotations are strings; pydantic-ai resolves them in its globals.
        delegate.__annotations__ = {"ctx": RunContext[Any], "request": str, "return": str}
        native = Tool(delegate, name=agent.name, description=agent.description)
        return NativeAgentTool(native, agent.name, "request")

    def runner(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instrumented: bool = False
    ) -> Runner:
        from pydantic_ai import Agent, UsageLimits
        from pydantic_ai.models.function import FunctionModel

        from agent_sdk_pydantic_ai import pydantic_ai_instrument
        from agent_sdk_pydantic_ai.testing import ScriptedFunction

        model = FunctionModel(ScriptedFunction(turns, name="orchestrator"))
        name = f"orchestrator{next(_names)}"
        plain = Agent(model, name=name, tools=list(tools))
        traced = pydantic_ai_instrument(plain)
        unlimited = UsageLimits(request_limit=None)

        async def run() -> Any:
            agent = traced if instrumented else plain
            return (await agent.run("start", usage_limits=unlimited)).output

        return Runner(run)


DRIVERS: dict[str, type[Driver]] = {
    "ag2": AG2Driver,
    "autogen": AutogenDriver,
    "openai-agents": OpenAIAgentsDriver,
    "fast-agent": FastAgentDriver,
    "agent-framework": AgentFrameworkDriver,
    "pydantic-ai": PydanticAIDriver,
}
PLUGIN_ENTRY_POINTS = {
    "ag2": "ag2",
    "autogen": "autogen",
    "openai-agents": "openai-agents",
    "fast-agent": "fast-agent",
    "agent-framework": "agent-framework",
    "pydantic-ai": "pydantic-ai",
}
