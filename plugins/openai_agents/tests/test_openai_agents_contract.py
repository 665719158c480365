"""The contract kit through Runner.run with a scripted Model."""

import pytest

from agent_sdk.testing import Harness
from agent_sdk.testing.contract import ContractSuite
from agent_sdk_openai_agents.testing import OpenAIAgentsHarness


class TestOpenAIAgentsContract(ContractSuite):
    @pytest.fixture
    def harness(self) -> Harness:
        return OpenAIAgentsHarness()
