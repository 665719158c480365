"""Names that moved in 0.2 keep working for one release and warn once, naming the new place.
Every one of them is an entry of the table in ``agent_sdk.deprecated``."""

import ast
import asyncio
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest

import agent_sdk
from agent_sdk import AutoApprove, CallContext, Executor, Registry, TokenAuthority, deprecated
from agent_sdk.deprecated import DEPRECATED

ROOT = Path(__file__).resolve().parents[2]
# The core and the template are installed with the core's tests; the plugins' entries
# need the plugins (the wheel job's Python 3.10 run has the core and the template only).
OURS = ("agent_sdk", "agent_sdk_minifw")


@pytest.mark.parametrize(
    ("module", "old", "new_module", "new"),
    [
        ("agent_sdk.hierarchy", "run_scope", "agent_sdk.run", "run_scope"),
        ("agent_sdk.hierarchy", "HierarchyLimits", "agent_sdk.run", "HierarchyLimits"),
        ("agent_sdk.hierarchy", "bind_call", "agent_sdk.run", "bind_call"),
        ("agent_sdk.hierarchy", "note_pending_approval", "agent_sdk.run", "note_pending_approval"),
        ("agent_sdk.hierarchy", "fan_out", "agent_sdk.agents", "fan_out"),
        ("agent_sdk.hierarchy", "agent_tool", "agent_sdk.agents", "agent_tool"),
        ("agent_sdk.hierarchy", "harshest", "agent_sdk.demo", "harshest"),
        ("agent_sdk", "harshest", "agent_sdk.demo", "harshest"),
        ("agent_sdk.tracing", "extract", "agent_sdk.tracing", "continue_run"),
        ("agent_sdk.plugins", "Integration", "agent_sdk.integration", "Integration"),
        ("agent_sdk.integration", "get_integration", "agent_sdk.plugins", "get_integration"),
        ("agent_sdk.integration", "Executor", "agent_sdk", "Executor"),
        ("agent_sdk.extraction", "Usage", "agent_sdk.response", "Usage"),
        ("agent_sdk.plugins", "lazy_exports", "agent_sdk.exports", "lazy_exports"),
        ("agent_sdk.executor", "decision_error", "agent_sdk.approval.gate", "decision_error"),
        ("agent_sdk.executor", "DecidedApproval", "agent_sdk.approval.gate", "DecidedApproval"),
    ],
)
def test_moved_names_warn_and_still_work(module, old, new_module, new):
    target = getattr(importlib.import_module(new_module), new)
    with pytest.warns(DeprecationWarning, match=new):
        assert getattr(importlib.import_module(module), old) is target


def test_a_moved_name_warns_once():
    import agent_sdk.hierarchy as old

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        old.PathCost  # noqa: B018
        old.PathCost  # noqa: B018
    assert len([w for w in seen if issubclass(w.category, DeprecationWarning)]) == 1


# -- the whole table ------------------------------------------------------------------------
def old_value(old: str) -> object:
    """What the old dotted name gives: the module at that path, or the module's attribute."""
    served = pkgutil.resolve_name(deprecated.replacement(old)[0])
    if isinstance(served, ModuleType):
        return importlib.import_module(old)
    module, _, name = old.rpartition(".")
    return getattr(importlib.import_module(module), name)


def same(value: object, new: object) -> bool:
    # A bound method is made anew on each access: equal, never identical.
    return value == new if inspect.ismethod(new) else value is new


def check_entry(old: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An old name served in its place: using it warns once, naming the replacement, and
    gives the new object (or the shim kept for it)."""
    served, use = deprecated.replacement(old)
    new = pkgutil.resolve_name(served)
    monkeypatch.setattr(deprecated, "_warned", set())
    if isinstance(new, ModuleType):  # a thin module at the old path: import it afresh
        monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning) as seen:
        value = old_value(old)
    assert same(value, new), f"{old} gives {value!r}, not {served}"
    [warning] = [w for w in seen if issubclass(w.category, DeprecationWarning)]
    assert re.match(
        rf"{re.escape(old)} is deprecated .*; use {re.escape(use)}$", str(warning.message)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once: the second use is silent
        assert same(old_value(old), new)


SERVED = [old for old in DEPRECATED if deprecated.replacement(old)[0] is not None]
SHIMS = [old for old in DEPRECATED if old not in SERVED]


@pytest.mark.parametrize("old", [o for o in SERVED if o.partition(".")[0] in OURS])
def test_every_old_core_name_works_and_warns_once(old, monkeypatch):
    check_entry(old, monkeypatch)


@pytest.mark.parametrize("old", [o for o in SERVED if o.partition(".")[0] not in OURS])
def test_every_old_plugin_name_works_and_warns_once(old, monkeypatch):
    check_entry(old, monkeypatch)


# -- methods, fields and classes kept under their old name, warning when used ---------------
async def _gate_call(method: str) -> None:
    registry = Registry()

    @registry.tool()
    def add(a: int) -> int:
        return a

    gate = Executor(registry).gate(AutoApprove())
    ctx = CallContext(run_id="r", call_id="c")
    if method == "admit":
        await gate.admit(registry.get("add"), {"a": 1}, ctx)
    else:
        await gate.check("add", {"a": 1}, ctx)


def _integration() -> agent_sdk.Integration:
    return agent_sdk.Integration("oldfw", requires=agent_sdk.Requirement("pluggy", ">=1"))


USES = {
    "agent_sdk.CallContext.approval": lambda: CallContext(run_id="r").approval,
    "agent_sdk.Integration.check": lambda: _integration().check(symbols=False),
    "agent_sdk.Requirement.check": lambda: agent_sdk.Requirement("pluggy", ">=1").check(
        "oldfw", "agent-sdk-oldfw", symbols=False
    ),
    "agent_sdk.ApprovalGate.admit": lambda: asyncio.run(_gate_call("admit")),
    "agent_sdk.ApprovalGate.check": lambda: asyncio.run(_gate_call("check")),
    "agent_sdk.DecidedApproval": lambda: agent_sdk.DecidedApproval(Executor().gate(AutoApprove())),
}


def test_every_shim_is_used_below():
    assert sorted(USES) == sorted(SHIMS)


@pytest.mark.parametrize("old", SHIMS)
def test_every_old_method_field_or_class_warns_once_when_used(old, monkeypatch):
    use = deprecated.replacement(old)[1]
    pkgutil.resolve_name(use)  # the replacement exists
    monkeypatch.setattr(deprecated, "_warned", set())
    with pytest.warns(DeprecationWarning) as seen:
        USES[old]()
    messages = [str(w.message) for w in seen if issubclass(w.category, DeprecationWarning)]
    assert messages == [f"{old} is deprecated and will be removed in the next release; use {use}"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        USES[old]()


def test_a_shim_keeps_working():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ctx = CallContext(run_id="r", approval="tok")  # type: ignore[call-arg]
        assert ctx.approval == ctx.token == "tok"
        assert _integration().check(symbols=False) == _integration().check_framework(symbols=False)


def test_the_table_covers_the_core_and_every_plugin():
    roots = {old.partition(".")[0] for old in DEPRECATED}
    assert roots == {
        "agent_sdk",
        "agent_sdk_ag2",
        "agent_sdk_autogen",
        "agent_sdk_fast_agent",
        "agent_sdk_minifw",
        "agent_sdk_openai_agents",
    }


def test_an_old_module_path_is_the_new_module(monkeypatch):
    monkeypatch.setattr(deprecated, "_warned", set())
    monkeypatch.delitem(sys.modules, "agent_sdk.genai_spans", raising=False)
    with pytest.warns(DeprecationWarning, match="use agent_sdk.tracing.genai$"):
        from agent_sdk.genai_spans import agent_span
    import agent_sdk.genai_spans as old
    import agent_sdk.tracing.genai as new

    assert old is new and agent_span is new.agent_span


def test_the_warning_points_at_the_code_that_uses_the_old_name(tmp_path):
    # In a plain interpreter: under pytest the core's modules load through its assertion
    # rewriter, one more frame between the thin module and the import statement.
    script = tmp_path / "user_code.py"
    script.write_text("import agent_sdk.semconv\nimport agent_sdk.hierarchy as h\nh.run_scope\n")
    proc = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", str(script)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"{script}:1: DeprecationWarning: agent_sdk.semconv is deprecated" in proc.stderr
    assert f"{script}:3: DeprecationWarning: agent_sdk.hierarchy.run_scope is" in proc.stderr


def deprecated_imports(path) -> list[str]:
    """``file:line: name`` for each import statement of ``path`` naming a deprecated name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        found += [f"{path.name}:{node.lineno}: {name}" for name in names if name in DEPRECATED]
    return found


OUR_CODE = [
    *ROOT.glob("core/src/agent_sdk/**/*.py"),
    *ROOT.glob("plugins/*/src/**/*.py"),
    *ROOT.glob("contrib/plugin-template/src/**/*.py"),
    *ROOT.glob("contrib/examples/*.py"),
    *ROOT.glob("benchmarks/*.py"),
]


def test_our_own_code_uses_no_deprecated_name():
    assert len(OUR_CODE) > 80
    found = [hit for path in OUR_CODE for hit in deprecated_imports(path)]
    assert found == []


def test_the_walk_sees_a_deprecated_import(tmp_path):
    old = tmp_path / "old.py"
    old.write_text(
        "import agent_sdk.semconv\n"
        "from agent_sdk.hierarchy import run_scope\n"
        "from agent_sdk.integration import Executor, Integration\n"
    )
    assert deprecated_imports(old) == [
        "old.py:1: agent_sdk.semconv",
        "old.py:2: agent_sdk.hierarchy.run_scope",
        "old.py:3: agent_sdk.integration.Executor",
    ]


def test_unknown_names_still_raise_attribute_error():
    with pytest.raises(AttributeError):
        agent_sdk.no_such_name  # noqa: B018


def test_a_gate_built_by_the_executor_mints_tokens_it_accepts():
    """The bug behind the one-gate rule: a gate with the process-wide authority and an
    executor with its own authority refused every approved call."""
    registry = Registry()
    ran = []

    @registry.tool(confirm=True)
    async def pay(amount: int) -> str:
        ran.append(amount)
        return "paid"

    executor = Executor(registry, authority=TokenAuthority())  # no port of its own
    ctx = CallContext(run_id="r", call_id="c1")
    outcome = asyncio.run(
        executor.run_spec(
            registry.get("pay"), {"amount": 3}, ctx, gate=executor.gate(AutoApprove())
        )
    )
    assert outcome.text == "paid" and ran == [3]
    assert executor.authority.outstanding() == 0
