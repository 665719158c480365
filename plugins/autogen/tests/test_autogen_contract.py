"""The contract kit through a real AssistantAgent with AutoGen's replay model."""

from __future__ import annotations

import pytest

from agent_sdk.testing import Harness
from agent_sdk.testing.contract import ContractSuite
from agent_sdk_autogen.testing import AutogenHarness


class TestAutogenContract(ContractSuite):
    @pytest.fixture
    def harness(self) -> Harness:
        return AutogenHarness()
