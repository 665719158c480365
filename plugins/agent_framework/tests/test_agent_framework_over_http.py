"""Over HTTP: the contract kit with every agent on MAF's own OpenAIChatCompletionClient or
OpenAIChatClient (Responses) over an AsyncOpenAI pointed at the scripted server, plain and
streamed."""

from __future__ import annotations

from agent_sdk.testing.over_http import HttpContractSuite
from agent_sdk_agent_framework.testing import AgentFrameworkHarness


class TestAgentFrameworkContractOverHttp(HttpContractSuite):
    harness_class = AgentFrameworkHarness
