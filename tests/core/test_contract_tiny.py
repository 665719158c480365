"""The contract kit passes on a correct integration of a tiny framework."""

import pytest
from agent_sdk.testing import Harness
from agent_sdk.testing.contract import ContractSuite
from tiny import TinyHarness


class TestTinyContract(ContractSuite):
    @pytest.fixture
    def harness(self) -> Harness:
        return TinyHarness()
