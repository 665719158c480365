"""One bad plugin cannot break the others, through real entry points (dist-info on sys.path):
a hook that raises or answers nonsense is reported for that plugin, a name claimed twice is
an error naming both distributions, and policy answers other than True/False/None deny."""

import asyncio
import os
import subprocess
import sys
import textwrap
import types

import pytest

from agent_sdk import AutoApprove, Executor, IntegrationError, Registry, register_plugin
from agent_sdk.plugins import (
    failed_plugins,
    get_integration,
    integrations,
    name_clashes,
    reset_plugins,
    unregister_plugin,
)


def make_dist(root, name, version, module, source, entry_name):
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[agent_sdk]\n{entry_name} = {module}\n")


def integration_source(name):
    return f"""
from agent_sdk.integration import Integration, Requirement, hookimpl

class Toy(Integration):
    name = {name!r}
    distribution = "agent-sdk-{name}"
    requires = Requirement("pluggy", ">=1.0")

@hookimpl
def agent_sdk_integrations():
    return [Toy()]
"""


RAISES = """
from agent_sdk.integration import hookimpl

@hookimpl
def agent_sdk_integrations():
    raise RuntimeError("the raising plugin's own bug")
"""

NOT_A_LIST = """
from agent_sdk.integration import hookimpl

@hookimpl
def agent_sdk_integrations():
    return 5
"""

# Claims "goodfw", the name the good plugin declares: it must never shadow it silently.
SHADOW = integration_source("goodfw").replace('"agent-sdk-goodfw"', '"agent-sdk-shadow"')


@pytest.fixture
def site(tmp_path, monkeypatch):
    make_dist(
        tmp_path, "agent-sdk-goodfw", "1.0.0", "good_plugin", integration_source("goodfw"), "goodfw"
    )
    make_dist(
        tmp_path,
        "agent-sdk-otherfw",
        "1.0.0",
        "other_plugin",
        integration_source("otherfw"),
        "otherfw",
    )
    make_dist(tmp_path, "agent-sdk-raises", "2.0.0", "raises_plugin", RAISES, "raises")
    make_dist(tmp_path, "agent-sdk-notalist", "3.0.0", "notalist_plugin", NOT_A_LIST, "notalist")
    make_dist(tmp_path, "agent-sdk-shadow", "4.0.0", "shadow_plugin", SHADOW, "shadow")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("AGENT_SDK_PLUGINS", "goodfw,otherfw,raises,notalist,shadow")
    monkeypatch.delenv("AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    reset_plugins()
    yield tmp_path
    reset_plugins()


def test_a_raising_or_nonsense_hook_is_reported_and_the_others_work(site):
    assert [i.name for i in integrations()] == ["otherfw"]  # goodfw is claimed twice
    assert get_integration("otherfw").distribution == "agent-sdk-otherfw"
    failures = {f.distribution: f.error for f in failed_plugins()}
    assert "RuntimeError: the raising plugin's own bug" in failures["agent-sdk-raises"]
    assert "answered int" in failures["agent-sdk-notalist"]


def test_a_name_claimed_twice_is_an_error_naming_both(site):
    assert [c.distribution for c in name_clashes()["goodfw"]] == [
        "agent-sdk-goodfw",
        "agent-sdk-shadow",
    ]
    with pytest.raises(IntegrationError) as err:
        get_integration("goodfw")
    assert "agent-sdk-goodfw 1.0.0" in str(err.value) and "agent-sdk-shadow 4.0.0" in str(err.value)


def test_cli_names_every_culprit_and_lists_the_others(site):
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run(
        [sys.executable, "-m", "agent_sdk.cli", "plugins"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    lines = {line.split()[0]: line for line in out.stdout.splitlines()[2:]}
    assert lines["otherfw"].rstrip().endswith("ok")
    assert "RuntimeError: the raising plugin's own bug" in lines["raises"]
    assert "answered int" in lines["notalist"]
    assert "claimed by agent-sdk-goodfw 1.0.0 and agent-sdk-shadow 4.0.0" in lines["goodfw"]


# -- approval policies: only True allows ---------------------------------------------------
def policy(answer):
    """A plugin object whose approval policy answers ``answer`` (or raises it)."""
    from agent_sdk.hookspecs import hookimpl

    if answer == "async":

        async def agent_sdk_approval_policy(request):
            return False

    else:

        def agent_sdk_approval_policy(request):
            if isinstance(answer, Exception):
                raise answer
            return answer

    return types.SimpleNamespace(agent_sdk_approval_policy=hookimpl(agent_sdk_approval_policy))


@pytest.fixture
def confirm_executor():
    reset_plugins()
    registry = Registry()
    ran = []

    @registry.tool(confirm=True)
    async def pay(amount: int) -> str:
        ran.append(amount)
        return "paid"

    yield Executor(registry), ran
    reset_plugins()


@pytest.mark.parametrize(
    "answer", [0, 1, "allow", "deny", {"allow": False}, RuntimeError("policy bug")], ids=repr
)
def test_a_policy_answer_that_is_not_true_false_or_none_denies(confirm_executor, answer):
    executor, ran = confirm_executor
    plugin = policy(answer)
    register_plugin(plugin, name="odd-policy")
    try:
        # Even with a port that approves everything: the plugin's nonsense is a denial.
        outcome = asyncio.run(
            Executor(executor.registry, approval=AutoApprove()).run("pay", {"amount": 5})
        )
    finally:
        unregister_plugin(plugin)
    assert outcome.error is not None and outcome.error.kind.value == "approval-denied"
    assert ran == []
    assert any(f.entry_point == "odd-policy" for f in failed_plugins())


def test_an_async_policy_is_a_plugin_error_not_an_allow(confirm_executor):
    executor, ran = confirm_executor
    plugin = policy("async")
    register_plugin(plugin, name="async-policy")
    try:
        outcome = asyncio.run(executor.run("pay", {"amount": 5}))
    finally:
        unregister_plugin(plugin)
    assert outcome.error.kind.value == "approval-denied" and ran == []
    assert any("coroutine" in (f.error or "") for f in failed_plugins())


def test_true_allows_and_false_denies(confirm_executor):
    executor, ran = confirm_executor
    for answer, expected in ((True, "paid"), (False, None)):
        plugin = policy(answer)
        register_plugin(plugin, name=f"policy-{answer}")
        try:
            outcome = asyncio.run(executor.run("pay", {"amount": 5}))
        finally:
            unregister_plugin(plugin)
        assert (outcome.text if outcome.ok else None) == expected
    assert ran == [5]
