"""Names that moved in 0.2 keep working for one release and warn once, naming the new place."""

import asyncio
import warnings

import pytest

import agent_sdk
from agent_sdk import AutoApprove, CallContext, Executor, Registry, TokenAuthority


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
        ("agent_sdk.plugins", "get_integration", "agent_sdk.integration", "get_integration"),
        ("agent_sdk.plugins", "lazy_exports", "agent_sdk.exports", "lazy_exports"),
        ("agent_sdk.executor", "decision_error", "agent_sdk.approval.gate", "decision_error"),
        ("agent_sdk.executor", "DecidedApproval", "agent_sdk.approval.gate", "DecidedApproval"),
    ],
)
def test_moved_names_warn_and_still_work(module, old, new_module, new):
    import importlib

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
