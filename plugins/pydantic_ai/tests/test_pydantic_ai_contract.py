"""The contract kit through Agent.run with a scripted FunctionModel."""

import pytest

from agent_sdk.testing import Harness
from agent_sdk.testing.contract import ContractSuite
from agent_sdk_pydantic_ai.testing import PydanticAIHarness


class TestPydanticAIContract(ContractSuite):
    @pytest.fixture
    def harness(self) -> Harness:
        return PydanticAIHarness()
