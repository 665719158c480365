"""The contract kit through a real AG2 Agent driven by ag2.testing.TestConfig."""

import pytest

from agent_sdk.testing import Harness
from agent_sdk.testing.contract import ContractSuite
from agent_sdk_ag2.testing import AG2Harness


class TestAG2Contract(ContractSuite):
    @pytest.fixture
    def harness(self) -> Harness:
        return AG2Harness()
