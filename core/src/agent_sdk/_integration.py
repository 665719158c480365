"""The base class of every framework integration, and the framework requirement it
declares. Plugin authors import both from ``agent_sdk.integration``.

A plugin declares one :class:`Integration` subclass instance that carries its behaviour:
export a spec as a native tool, run an agent as a tool, bind a framework call to a
``CallContext``, framework-native approval, the scripted harness, and its framework
requirement as data. The base class does everything that is the same in every framework
(the requirement check, turning a function into a spec, the executor and its approval
gate, tool names, history modes), so every public ``<fw>_tool`` has the same shape::

    class MyIntegration(Integration):
        name = "myfw"
        distribution = "agent-sdk-myfw"
        requires = Requirement("myfw", ">=1.0,<2", symbols=("myfw:Tool",))

        def export_tool(self, spec, *, executor, gate, **options):
            ...  # a native tool whose calls run executor.run_spec(spec, args, ctx, gate=gate)

See docs/plugins.md for the whole guide.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from pydantic import BaseModel
from typing_extensions import TypeVar

from agent_sdk.agents import AgentToolSettings, HistoryMode, check_history
from agent_sdk.approval.gate import ApprovalGate
from agent_sdk.approval.ports import ApprovalPort
from agent_sdk.context import CallContext
from agent_sdk.deprecated import warn
from agent_sdk.errors import ConfigurationError, IntegrationError
from agent_sdk.executor import Executor
from agent_sdk.extraction import ReturnMode, check_return_mode
from agent_sdk.names import check_tool_name, tool_name_from
from agent_sdk.plugin_manager import plugin_manager
from agent_sdk.spec import Registry, ToolSpec


@dataclass(frozen=True)
class Requirement:
    """The framework an integration needs, as data: its distribution, the version range the
    integration was tested with, and the symbols it reads (``"module:Name"`` or
    ``"module:Class.member"``), checked once before first use."""

    distribution: str
    versions: str
    symbols: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        try:
            SpecifierSet(self.versions)
        except InvalidSpecifier as exc:
            raise ConfigurationError(
                f"requirement {self.distribution}: {self.versions!r} is not a version range"
            ) from exc

    def installed(self) -> str | None:
        try:
            return md.version(self.distribution)
        except md.PackageNotFoundError:
            return None

    def check_installed(self, integration: str, plugin: str, *, symbols: bool = True) -> str:
        """The installed version if it is in range and has the symbols, or IntegrationError
        saying what to install. With ``symbols=False`` only the version is checked (nothing
        is imported)."""
        found = self.installed()
        install = f"pip install '{self.distribution}{self.versions}'"
        if found is None:
            raise IntegrationError(
                f"integration {integration!r} needs {self.distribution} {self.versions}, which "
                f"is not installed: {install}"
            )
        try:
            ok = Version(found) in SpecifierSet(self.versions, prereleases=True)
        except InvalidVersion:
            ok = False
        if not ok:
            raise IntegrationError(
                f"integration {integration!r} supports {self.distribution} {self.versions}, but "
                f"{self.distribution} {found} is installed: {install} or upgrade {plugin}"
            )
        missing = [s for s in self.symbols if not _has_symbol(s)] if symbols else []
        if missing:
            raise IntegrationError(
                f"integration {integration!r} cannot work with {self.distribution} {found}: it "
                f"lacks {', '.join(missing)}. Install a tested release: {install}"
            )
        return found

    def check(self, integration: str, plugin: str, *, symbols: bool = True) -> str:
        """Deprecated: ``check_installed``."""
        warn("agent_sdk.Requirement.check")
        return self.check_installed(integration, plugin, symbols=symbols)


def _has_symbol(symbol: str) -> bool:
    module_name, _, attrs = symbol.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError:
        return False
    for attr in attrs.split(".") if attrs else ():
        if not hasattr(target, attr):
            # A dataclass or pydantic field without a class-level default is still there.
            declared = {**(getattr(target, "__dataclass_fields__", None) or {})}
            declared.update(getattr(target, "model_fields", None) or {})
            return attr in declared
        target = getattr(target, attr)
    return True


# Defaults (PEP 696): a bare ``Integration`` annotation means any tool and agent type.
ToolT = TypeVar("ToolT", default=Any)
AgentT = TypeVar("AgentT", default=Any)


class Integration(Generic[ToolT, AgentT]):
    """A framework integration: declare one instance in a plugin's ``agent_sdk_integrations``.

    Generic in the framework's native tool type and agent type
    (``class MyIntegration(Integration["myfw.Tool", "myfw.Agent"])``), so its public methods
    are typed with them. Subclasses set the class attributes and override the methods their
    framework supports: ``export_tool`` (required), ``agent_spec`` and ``agent_name``
    (agents as tools), ``bind_context``, ``native_approval``. The public methods (``tool``,
    ``tools``, ``agent_tool``, ``agent_tool_spec``, ``bind_approval``) are the same for every
    framework, written once here: a plugin's ``<fw>_tool``, ``<fw>_tools``, ``<fw>_agent_tool``
    and ``<fw>_agent_tool_spec`` ARE them (``myfw_tool = INTEGRATION.tool``), and the
    contract kit's C0 checks their shape.
    """

    name: ClassVar[str] = ""
    distribution: ClassVar[str] = ""
    """The plugin's own distribution (``agent-sdk-myfw``)."""
    requires: ClassVar[Requirement | None] = None
    aliases: ClassVar[tuple[str, ...]] = ()
    harness: ClassVar[str | None] = None
    """``module:Class`` of the scripted harness (the contract kit and ``agent-sdk demo``)."""
    history_modes: ClassVar[tuple[HistoryMode, ...]] = ("fresh",)
    """The history modes ``agent_tool`` accepts here (the core's words, see HistoryMode)."""
    provider: ClassVar[str] = ""
    """``gen_ai.provider.name`` of this framework's agent spans (default: the name)."""
    tool_options: ClassVar[tuple[str, ...]] = ()
    """The framework's own keywords ``tool``/``tools`` take (e.g. AG2's ``middleware``);
    any other is refused, naming it."""
    agent_tool_options: ClassVar[tuple[str, ...]] = ()
    """Likewise for ``agent_tool`` (e.g. openai-agents' ``max_turns``)."""
    option_hints: ClassVar[Mapping[str, str]] = {}
    """What to do instead of an option this framework does not take (``{"middleware": "use
    approval= ..."}``), added to the refusal."""

    def __init__(
        self,
        name: str | None = None,
        *,
        distribution: str | None = None,
        requires: Requirement | None = None,
        framework: str | None = None,
        supported: str | None = None,
        aliases: Iterable[str] | None = None,
        harness: str | None = None,
        native_approval: Any = None,
    ) -> None:
        # Keywords override the class attributes; ``framework``/``supported`` and
        # ``native_approval(port)`` are the pre-0.2 spelling (a plain Integration record).
        cls = type(self)
        self.name = name or cls.name  # type: ignore[misc]
        self.distribution = distribution or cls.distribution  # type: ignore[misc]
        if requires is None and framework is not None:
            requires = Requirement(framework, supported or "")
        self.requires = requires or cls.requires  # type: ignore[misc]
        self.aliases = tuple(aliases) if aliases is not None else cls.aliases  # type: ignore[misc]
        self.harness = harness or cls.harness  # type: ignore[misc]
        self.provider = cls.provider or self.name  # type: ignore[misc]
        self._legacy_native_approval = native_approval
        if framework is not None or native_approval is not None:
            self.tool_options = ("middleware",)  # type: ignore[misc]  # the 0.1 record form's
        self._checked: str | None = None
        if not self.name:
            raise ConfigurationError(f"{cls.__name__} needs a name")
        if self.requires is None:
            raise ConfigurationError(f"integration {self.name!r} needs requires=Requirement(...)")

    def __repr__(self) -> str:
        return f"<Integration {self.name!r} ({self.distribution or '?'})>"

    # -- what the framework requirement says -------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def framework(self) -> str:
        assert self.requires is not None
        return self.requires.distribution

    @property
    def supported(self) -> str:
        assert self.requires is not None
        return self.requires.versions

    def framework_version(self) -> str | None:
        assert self.requires is not None
        return self.requires.installed()

    @property
    def public_prefix(self) -> str:
        """The prefix of the plugin's public functions (``openai_agents`` of
        ``openai_agents_tool``)."""
        return self.name.replace("-", "_")

    def check_framework(self, *, symbols: bool = True) -> str:
        """The framework version found, or IntegrationError saying what to do. The symbols
        (which imports the framework) are checked once, before first use; ``symbols=False``
        checks the version only."""
        assert self.requires is not None
        if self._checked is not None:
            return self._checked
        found = self.requires.check_installed(
            self.name, self.distribution or self.name, symbols=symbols
        )
        if symbols:
            self._checked = found
        return found

    def check(self, *, symbols: bool = True) -> str:
        """Deprecated: ``check_framework``."""
        warn("agent_sdk.Integration.check")
        return self.check_framework(symbols=symbols)

    def _refuse_other_options(
        self, declared: tuple[str, ...], what: str, options: Mapping[str, Any]
    ) -> None:
        unknown = sorted(k for k in options if k not in declared)
        if unknown:
            hints = [self.option_hints[k] for k in unknown if k in self.option_hints]
            why = f" ({'; '.join(hints)})" if hints else ""
            raise ConfigurationError(
                f"{self.public_prefix}_{what}: unknown option(s) {', '.join(unknown)}{why}"
            )

    # -- the public shape: the same in every framework ---------------------------------------
    def tool(
        self,
        spec_or_function: ToolSpec | Callable[..., Any],
        *,
        executor: Executor | None = None,
        approval: ApprovalPort | None = None,
        **options: Any,
    ) -> ToolT:
        """``spec_or_function`` as this framework's native tool, every call run by
        ``executor`` (default: a new Executor, whose own port decides confirm calls).
        ``approval`` is a port asked once per confirm call before it runs; an approved call
        carries a one-use token the executor accepts. ``options`` are the framework's own
        (``tool_options``; see the integration's docstring)."""
        self.check_framework()
        self._refuse_other_options(self.tool_options, "tool", options)
        spec = ToolSpec.coerce(spec_or_function)
        executor = executor if executor is not None else Executor()
        if not isinstance(executor, Executor):
            raise ConfigurationError(f"executor must be an agent_sdk Executor, got {executor!r}")
        gate = executor.gate(approval) if approval is not None else None
        return self.export_tool(spec, executor=executor, gate=gate, **options)  # type: ignore[no-any-return]

    def tools(
        self,
        registry: Registry | Iterable[ToolSpec],
        *,
        executor: Executor | None = None,
        approval: ApprovalPort | None = None,
        **options: Any,
    ) -> list[ToolT]:
        """Every spec of ``registry`` as a native tool, sharing one executor (default:
        ``Executor(registry)``) and one approval gate."""
        specs = list(registry)
        if executor is None:
            executor = Executor(registry) if isinstance(registry, Registry) else Executor()
        return [self.tool(s, executor=executor, approval=approval, **options) for s in specs]

    def agent_tool(
        self,
        agent: AgentT,
        *,
        name: str | None = None,
        description: str | None = None,
        return_mode: ReturnMode = "last",
        history: str = "fresh",
        executor: Executor | None = None,
        timeout: float | None = None,
        input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
        approval: ApprovalPort | None = None,
        **options: Any,
    ) -> ToolT:
        """``agent`` as a native tool that runs it as a sub-agent under the run's guards.

        ``name`` must be a valid tool name; without it the agent's own name is made one
        (case kept, other characters become '_'). ``history`` is one of this integration's
        ``history_modes`` ("fresh": a new child with no history per call; "fork": a copy
        holding the agent's history at call time; "shared": the agent itself, a call at a
        time). ``return_mode`` is "last", "all", "json" or a function of the
        ``AgentResponse``; ``timeout`` bounds one call (seconds); ``input_schema`` replaces
        the single ``request`` argument. ``options`` are the framework's own
        (``agent_tool_options``; see the integration's docstring). The tool wraps
        ``agent_tool_spec(agent, ...)``."""
        spec = self.agent_tool_spec(
            agent,
            name=name,
            description=description,
            return_mode=return_mode,
            history=history,
            timeout=timeout,
            input_schema=input_schema,
            **options,
        )
        return self.tool(spec, executor=executor, approval=approval)

    def agent_tool_spec(
        self,
        agent: AgentT,
        *,
        name: str | None = None,
        description: str | None = None,
        return_mode: ReturnMode = "last",
        history: str = "fresh",
        timeout: float | None = None,
        input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
        **options: Any,
    ) -> ToolSpec:
        """The ToolSpec ``agent_tool`` wraps as a native tool: each call runs ``agent`` as a
        sub-agent under the run's guards, with ``agent_tool``'s keywords and meaning. Serve
        it (``agent_sdk.mcp.mcp_server``), put it in a ``Registry``, or run it with
        ``Executor.run_spec``."""
        self.check_framework()
        self._refuse_other_options(self.agent_tool_options, "agent_tool", options)
        mode = check_history(history, supported=self.history_modes, integration=self.name)
        made: list[Any] = []  # the template, built only if a name or description is read

        def template() -> Any:
            if not made:
                made.append(self.agent_template(agent))
            return made[0]

        if name is not None:
            tool_name = check_tool_name(name, what="agent tool name")
        else:
            tool_name = tool_name_from(self.agent_name(template()))
        settings = AgentToolSettings(
            name=tool_name,
            description=description or self.agent_description(template(), tool_name),
            return_mode=check_return_mode(return_mode),
            history=mode,
            timeout=timeout,
            input_schema=input_schema,
        )
        return self.agent_spec(agent, settings, **options)

    def bind_approval(self, port: ApprovalPort, *, executor: Executor | None = None) -> Any:
        """The framework-native approval object deciding by ``port`` (for tools agent-sdk
        does not run itself), or None where the framework has none."""
        if self._legacy_native_approval is not None:
            return self._legacy_native_approval(port)
        return self.native_approval((executor or Executor()).gate(port))

    def load_harness(self, endpoint: Any = None) -> Any:
        """A new instance of the integration's scripted harness; with an
        ``agent_sdk.scripted.Endpoint``, one whose agents use the framework's own OpenAI
        client against it."""
        if not self.harness:
            raise IntegrationError(f"integration {self.name!r} ships no scripted harness")
        module, _, attr = self.harness.partition(":")
        harness_class = getattr(importlib.import_module(module), attr)
        return harness_class() if endpoint is None else harness_class(endpoint)

    # -- what a framework overrides -----------------------------------------------------------
    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        gate: ApprovalGate | None = None,
        **options: Any,
    ) -> Any:
        """The native tool for ``spec``: each call binds its context and runs
        ``executor.run_spec(spec, arguments, ctx, gate=...)``; a failed outcome sets the
        framework's own error signal. ``gate`` (or None) decides confirm calls first.

        The base implementation serves plugins written before 0.2 (an Integration record
        plus the deprecated ``agent_sdk_export_tool`` hook)."""
        executor = executor if executor is not None else Executor()
        port = options.pop("approval", None)
        if gate is None and port is not None:
            gate = executor.gate(port)
        self.check_framework()
        answer = plugin_manager().hook.agent_sdk_export_tool(
            integration=self.name,
            spec=spec,
            executor=executor,
            approval=gate.port if gate is not None else None,
            middleware=tuple(options.pop("middleware", ())),
        )
        if answer is None:
            raise IntegrationError(f"integration {self.name!r} does not export tools")
        return answer

    def agent_template(self, agent: Any) -> Any:
        """What ``agent_name`` and ``agent_description`` read when ``agent_tool`` was given
        no name or description: the agent itself, or (where ``<fw>_agent_tool`` takes a
        factory) the agent one builds, once per ``agent_tool`` call."""
        return agent

    def agent_name(self, agent: Any) -> str:
        """The framework agent's own name (the default tool name)."""
        name = getattr(agent, "name", None)
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"{self.name}: the agent has no name; pass name=...")
        return name

    def agent_description(self, agent: Any, name: str) -> str:
        """The default description of an agent tool."""
        text = getattr(agent, "description", None)
        return text if isinstance(text, str) and text.strip() else f"Ask the {name} agent."

    def agent_spec(self, agent: Any, settings: AgentToolSettings, **options: Any) -> ToolSpec:
        """A ToolSpec running ``agent`` as a sub-agent: normally
        ``settings.spec(invoke, provider=...)`` with an ``invoke`` that runs a child per call
        as ``settings.history`` says. ``options`` are the framework's own."""
        raise IntegrationError(f"integration {self.name!r} does not run agents as tools")

    def bind_context(self, event: Any) -> CallContext:
        """The CallContext of a framework event (normally through ``bind_call``)."""
        ctx = plugin_manager().hook.agent_sdk_bind_context(integration=self.name, event=event)
        if ctx is None:
            raise IntegrationError(
                f"integration {self.name!r} cannot bind a context from {type(event).__name__}"
            )
        return ctx  # type: ignore[no-any-return]

    def native_approval(self, gate: ApprovalGate) -> Any:
        """The framework's own approval object deciding through ``gate`` (``gate.check``
        for tools without a ToolSpec), or None where the framework has no such hook."""
        return None


def no_other_options(where: str, options: Mapping[str, Any]) -> None:
    """ConfigurationError naming the options ``where`` (a public function) does not take."""
    if options:
        raise ConfigurationError(f"{where}: unknown option(s) {', '.join(sorted(options))}")
