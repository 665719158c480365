"""The contract kit: the checks every integration passes (CONTRACT.md).

A plugin provides a small :class:`Harness` for its framework (export a tool, build a
scripted child agent as a tool, run an agent with a scripted model) and subclasses
:class:`agent_sdk.testing.contract.ContractSuite`::

    from agent_sdk.testing.contract import ContractSuite

    class TestMyFramework(ContractSuite):
        @pytest.fixture
        def harness(self):
            return MyHarness()

Every check runs through the framework's real agent loop with the scripted model. The
scripted types live in the runtime module ``agent_sdk.scripted``; they are re-exported here.
The kit is also a pytest plugin (entry point ``pytest11``): the fixtures ``spans`` and
``only_plugins`` are available in any test once agent-sdk is installed.
"""

from agent_sdk.scripted import (
    ECHO,
    Harness,
    RunResult,
    ScriptedAgent,
    SeenResult,
    ToolCall,
    Turn,
)

__all__ = ["ECHO", "Harness", "RunResult", "ScriptedAgent", "SeenResult", "ToolCall", "Turn"]
