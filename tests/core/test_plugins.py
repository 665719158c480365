"""Plugin discovery through real entry points (dist-info directories on sys.path)."""

import os
import subprocess
import sys
import textwrap

import pytest

import agent_sdk
from agent_sdk import AgentResponse, Integration, IntegrationError, hookimpl
from agent_sdk.extraction import check_return_mode, extract
from agent_sdk.plugins import (
    failed_plugins,
    get_integration,
    integrations,
    loaded_plugins,
    register_plugin,
    reset_plugins,
    unregister_plugin,
)


def make_dist(root, name, version, module, source, entry_name):
    """An installed distribution: a module plus a dist-info with an entry point."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[agent_sdk]\n{entry_name} = {module}\n")


GOOD = """
from agent_sdk import Integration, hookimpl
INTEGRATION = Integration(name="toyfw", distribution="agent-sdk-toyfw", framework="pluggy", supported=">=1.0")
OLD = Integration(name="oldfw", distribution="agent-sdk-oldfw", framework="pluggy", supported="<1.0")

@hookimpl
def agent_sdk_integrations():
    return [INTEGRATION, OLD]

@hookimpl
def agent_sdk_export_tool(integration, spec, executor, approval, middleware):
    if integration == "toyfw":
        return ("toy-tool", spec.name)

@hookimpl
def agent_sdk_output_modes():
    return {"shout": lambda r: r.assistant_texts()[-1].upper(), "last": lambda r: "hijacked"}
"""

BROKEN = """
import framework_that_is_not_installed
"""


@pytest.fixture
def site(tmp_path, monkeypatch):
    make_dist(tmp_path, "agent-sdk-toyfw", "1.2.3", "toy_plugin", GOOD, "toyfw")
    make_dist(tmp_path, "agent-sdk-broken", "9.9.9", "broken_plugin", BROKEN, "broken")
    monkeypatch.syspath_prepend(str(tmp_path))
    # Only these two: the framework plugins installed beside them are tested elsewhere.
    monkeypatch.setenv("AGENT_SDK_PLUGINS", "toyfw,broken")
    monkeypatch.delenv("AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    reset_plugins()
    yield tmp_path
    reset_plugins()


def test_entry_points_load_and_a_broken_plugin_is_reported_not_fatal(site):
    names = [i.name for i in integrations()]
    assert "toyfw" in names
    failure = next(f for f in failed_plugins() if f.entry_point == "broken")
    assert failure.distribution == "agent-sdk-broken" and failure.version == "9.9.9"
    assert (
        "ModuleNotFoundError" in failure.error
        and "framework_that_is_not_installed" in failure.error
    )
    assert any(p.entry_point == "toyfw" and p.version == "1.2.3" for p in loaded_plugins())


def test_get_integration_exports_through_the_hook(site):
    toy = get_integration("toyfw")
    spec = agent_sdk.ToolSpec(
        name="t", description="d", handler=lambda: 1, input_schema={"type": "object"}
    )
    assert toy.export_tool(spec) == ("toy-tool", "t")
    assert toy.bind_approval(agent_sdk.AutoApprove()) is None


def test_framework_outside_the_supported_range_is_refused(site):
    with pytest.raises(IntegrationError, match=r"supports pluggy <1.0, but pluggy .* is installed"):
        get_integration("oldfw")


def test_missing_integration_names_the_package_to_install(site):
    with pytest.raises(
        IntegrationError, match=r"no integration named 'ag2'.*pip install agent-sdk-ag2.*toyfw"
    ):
        get_integration("ag2")
    with pytest.raises(IntegrationError, match=r"broken.*failed to load.*ModuleNotFoundError"):
        get_integration("broken")


def test_plugins_add_output_modes_but_cannot_replace_builtins(site):
    response = AgentResponse(messages=[agent_sdk.Message("assistant", "careful")])
    assert check_return_mode("shout") == "shout"
    assert extract(response, "shout") == "CAREFUL"
    assert extract(response, "last") == "careful"


def test_env_limits_which_plugins_load(site, monkeypatch):
    monkeypatch.setenv("AGENT_SDK_PLUGINS", "toyfw")
    reset_plugins()
    assert failed_plugins() == [] and "toyfw" in [i.name for i in integrations()]
    monkeypatch.setenv("AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD", "1")
    reset_plugins()
    assert loaded_plugins() == [] and integrations() == []


def test_approval_policy_hook_any_deny_wins():
    registry = agent_sdk.Registry()

    @registry.tool(confirm=True, tags={"read-only"})
    async def look() -> str:
        return "seen"

    @registry.tool(confirm=True)
    async def wipe() -> str:
        return "wiped"

    class ReadOnlyAllowed:
        @hookimpl
        def agent_sdk_approval_policy(self, request):
            return True if request.tool == "look" else None

    class NoWipe:
        @hookimpl
        def agent_sdk_approval_policy(self, request):
            return False if request.tool == "wipe" else None

    allow, deny = ReadOnlyAllowed(), NoWipe()
    register_plugin(allow)
    register_plugin(deny)
    try:
        import asyncio

        port_calls = []

        class Port:
            async def request(self, tool, arguments, **kw):
                port_calls.append(tool)
                return agent_sdk.Decision.approve()

        ex = agent_sdk.Executor(registry, approval=Port())
        assert asyncio.run(ex.run("look", {})).text == "seen"
        denied = asyncio.run(ex.run("wipe", {}))
        assert (
            denied.error.kind is agent_sdk.ErrorKind.APPROVAL_DENIED
            and "policy" in denied.error.message
        )
        assert port_calls == [], "a policy answer means the port is not asked"
    finally:
        unregister_plugin(allow)
        unregister_plugin(deny)


def _cli(args, env_extra=None, pythonpath=None):
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([pythonpath, env.get("PYTHONPATH", "")])
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "agent_sdk.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_cli_plugins_with_no_plugins_prints_an_empty_table():
    out = _cli(["plugins"], {"AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split() == [
        "integration",
        "distribution",
        "version",
        "framework",
        "supported",
        "status",
    ]
    assert "no plugins installed" in out.stdout


def test_cli_plugins_names_a_broken_plugin_and_lists_the_others(site):
    out = _cli(["plugins"], pythonpath=str(site))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    toy = next(line for line in lines if line.startswith("toyfw"))
    assert "agent-sdk-toyfw" in toy and "1.2.3" in toy and toy.rstrip().endswith("ok")
    broken = next(line for line in lines if line.startswith("broken"))
    assert (
        "agent-sdk-broken" in broken
        and "9.9.9" in broken
        and "failed to load: ModuleNotFoundError" in broken
    )
    old = next(line for line in lines if line.startswith("oldfw"))
    assert "supports pluggy <1.0" in old


def test_cli_version():
    out = _cli(["--version"])
    assert out.returncode == 0 and out.stdout.strip() == f"agent-sdk {agent_sdk.__version__}"


def test_integration_validates_its_range():
    with pytest.raises(agent_sdk.ConfigurationError):
        Integration(name="x", distribution="x", framework="x", supported="not a range")
