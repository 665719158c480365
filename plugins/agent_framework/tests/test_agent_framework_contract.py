"""The contract kit through Agent.run with the scripted chat client."""

import pytest

from agent_sdk.testing import Harness
from agent_sdk.testing.contract import ContractSuite
from agent_sdk_agent_framework.testing import AgentFrameworkHarness


class TestAgentFrameworkContract(ContractSuite):
    @pytest.fixture
    def harness(self) -> Harness:
        return AgentFrameworkHarness()
