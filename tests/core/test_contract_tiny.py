"""The contract kit passes on a correct integration of a tiny framework."""

import pytest
from tiny import TinyHarness

from agent_sdk.testing import Harness
from agent_sdk.testing.contract import ContractSuite


class TestTinyContract(ContractSuite):
    @pytest.fixture
    def harness(self) -> Harness:
        return TinyHarness()
