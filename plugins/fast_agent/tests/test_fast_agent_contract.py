"""The contract kit through real fast-agent agents with a scripted model."""

import pytest

from agent_sdk.testing import Harness
from agent_sdk.testing.contract import ContractSuite
from agent_sdk_fast_agent.testing import FastAgentHarness


class TestFastAgentContract(ContractSuite):
    @pytest.fixture
    def harness(self) -> Harness:
        return FastAgentHarness()
