"""``import agent_sdk`` loads only what a plain import needs; every public name still
imports from ``agent_sdk`` and loads its module on first use (docs/performance.md, section 7).

Behaviour, not timing: each case is a fresh interpreter that reports which modules it loaded.
"""

import importlib
import json
import subprocess
import sys

import pytest

import agent_sdk

# Never loaded by a plain ``import agent_sdk``.
DEFERRED = (
    "pluggy",
    "importlib.metadata",
    "sqlite3",
    "packaging",
    "concurrent.futures",
    "asyncio",
    "pydantic",
    "opentelemetry",
    "agent_sdk.plugin_manager",
    "agent_sdk.plugins",
    "agent_sdk.integration",
    "agent_sdk.hookspecs",
    "agent_sdk.tracing",
    "agent_sdk.approval.store",
    "agent_sdk.agents",
    "agent_sdk.executor",
)
# Not loaded by running a tool through the executor either: the core runtime does without
# plugin discovery, the SQLite store, tracing setup and the OpenTelemetry SDK; of the tracing
# package it needs the spans only. (Not importlib.metadata: pydantic loads it to look for
# its own plugins when it builds the first validator.)
NOT_FOR_A_CALL = (
    "pluggy",
    "sqlite3",
    "packaging",
    "opentelemetry.sdk",
    "agent_sdk.plugin_manager",
    "agent_sdk.plugins",
    "agent_sdk.integration",
    "agent_sdk.hookspecs",
    "agent_sdk.tracing.configure",
    "agent_sdk.tracing.propagation",
    "agent_sdk.tracing.trace_file",
    "agent_sdk.tracing.run_processor",
    "agent_sdk.approval.store",
)


def loaded_after(code: str, watch: tuple[str, ...]) -> list[str]:
    """The modules of ``watch`` (or their submodules) loaded after running ``code``."""
    probe = (
        f"{code}\n"
        "import json, sys\n"
        f"watch = {list(watch)!r}\n"
        "print(json.dumps(sorted(w for w in watch if any(m == w or m.startswith(w + '.') "
        "for m in sys.modules))))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(proc.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_a_plain_import_loads_none_of_the_deferred_modules():
    assert loaded_after("import agent_sdk", DEFERRED) == []


def test_the_probe_sees_a_deferred_module_when_it_is_loaded():
    """The check can fail: importing plugin discovery shows up."""
    loaded = loaded_after("import agent_sdk, agent_sdk.plugins", DEFERRED)
    assert {"pluggy", "importlib.metadata", "agent_sdk.plugins"} <= set(loaded)


def test_a_tool_call_loads_no_plugin_discovery_store_or_tracing_setup():
    code = """
import asyncio
from agent_sdk import Executor, Registry

registry = Registry()

@registry.tool()
def add(a: int, b: int) -> int:
    "Add two numbers."
    return a + b

assert asyncio.run(Executor(registry).run("add", {"a": 1, "b": 2})).text == "3"
"""
    assert loaded_after(code, NOT_FOR_A_CALL) == []


def test_a_confirm_call_loads_the_plugin_manager_but_no_discovery_for_the_policies():
    code = """
import asyncio
from agent_sdk import AutoApprove, Executor, Registry

registry = Registry()

@registry.tool(confirm=True)
def add(a: int, b: int) -> int:
    "Add two numbers."
    return a + b

executor = Executor(registry, approval=AutoApprove())
assert asyncio.run(executor.run("add", {"a": 1, "b": 2})).text == "3"
"""
    watch = ("agent_sdk.plugin_manager", "agent_sdk.plugins", "pluggy")
    assert loaded_after(code, watch) == ["agent_sdk.plugin_manager", "pluggy"]


@pytest.mark.parametrize("name", [n for n in agent_sdk.__all__ if n != "__version__"])
def test_every_public_name_imports_from_agent_sdk(name):
    value = getattr(agent_sdk, name)
    assert name in dir(agent_sdk)
    home = importlib.import_module(agent_sdk._LAZY[name]) if name in agent_sdk._LAZY else None
    if home is not None:
        assert getattr(home, name) is value
    # once resolved, the name is a plain attribute of the package
    assert agent_sdk.__dict__[name] is value


def test_submodules_are_attributes_after_a_plain_import():
    code = (
        "import agent_sdk\n"
        "assert callable(agent_sdk.tracing.configure_tracing)\n"
        "assert agent_sdk.approval.SQLiteApprovalStore is agent_sdk.approval.store.SQLiteApprovalStore\n"
    )
    assert loaded_after(code, ("agent_sdk.tracing",)) == ["agent_sdk.tracing"]


def test_a_missing_name_is_still_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="no_such_module"):
        agent_sdk.no_such_module  # noqa: B018
