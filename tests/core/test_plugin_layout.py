"""One plugin layout: every plugin here has the same module names for the same concepts, so
reading one teaches all. A module is absent only where the framework lacks the concept; a
module beyond them is a concept of that framework's own, named here with the reason."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "ag2": ROOT / "plugins/ag2/src/agent_sdk_ag2",
    "autogen": ROOT / "plugins/autogen/src/agent_sdk_autogen",
    "openai-agents": ROOT / "plugins/openai_agents/src/agent_sdk_openai_agents",
    "fast-agent": ROOT / "plugins/fast_agent/src/agent_sdk_fast_agent",
    "agent-framework": ROOT / "plugins/agent_framework/src/agent_sdk_agent_framework",
    "pydantic-ai": ROOT / "plugins/pydantic_ai/src/agent_sdk_pydantic_ai",
    "minifw": ROOT / "contrib/plugin-template/src/agent_sdk_minifw",
}
EVERY_PLUGIN = {"__init__", "_integration", "_tools", "_agents", "_context", "_tracing", "testing"}
NATIVE_APPROVAL = {
    "openai-agents",
    "fast-agent",
    "agent-framework",
    "pydantic-ai",
}  # the frameworks with an approval hook
EXTRAS = {
    ("autogen", "_agent_loop"): "AssistantAgent's tool loop adapted (raw arguments, usage)",
    ("autogen", "_run_control"): "ending an AutoGen run from a tool without its hang",
    ("openai-agents", "_schema"): "OpenAI strict schemas",
    ("fast-agent", "_loop"): "the tool loop every fast-agent agent of ours runs",
    ("fast-agent", "_arguments"): "fast-agent's lenient argument parsing undone",
    ("minifw", "framework"): "the template's own tiny framework",
}


@pytest.mark.parametrize("plugin", sorted(PACKAGES))
def test_every_plugin_has_the_one_layout(plugin: str) -> None:
    modules = {p.stem for p in PACKAGES[plugin].glob("*.py")}
    expected = EVERY_PLUGIN | ({"_approval"} if plugin in NATIVE_APPROVAL else set())
    assert expected <= modules, f"{plugin} lacks {sorted(expected - modules)}"
    extra = modules - expected
    unexplained = sorted(m for m in extra if (plugin, m) not in EXTRAS)
    assert not unexplained, f"{plugin}: modules outside the layout {unexplained}"
    for module in extra:
        tree = ast.parse((PACKAGES[plugin] / f"{module}.py").read_text())
        assert ast.get_docstring(tree), f"{plugin}.{module} must say what concept it holds"


@pytest.mark.parametrize("plugin", sorted(PACKAGES))
def test_the_public_functions_are_the_integrations_own_methods(plugin: str) -> None:
    """``<fw>_tool = INTEGRATION.tool`` and friends: the shape is written once, in the core."""
    tree = ast.parse((PACKAGES[plugin] / "__init__.py").read_text())
    prefix = plugin.replace("-", "_")
    bound = {
        target.id: ast.unparse(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for name, method in [
        ("tool", "tool"),
        ("tools", "tools"),
        ("agent_tool", "agent_tool"),
        ("agent_tool_spec", "agent_tool_spec"),
    ]:
        public = f"{prefix}_{name}"
        assert public not in defined, f"{public} is written out again in {plugin}"
        assert bound.get(public) == f"INTEGRATION.{method}", f"{public} in {plugin}"
