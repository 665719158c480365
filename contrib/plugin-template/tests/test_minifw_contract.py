"""The plugin passes the contract kit, through minifw's own agent loop."""

import pytest
from agent_sdk_minifw.testing import MiniHarness

from agent_sdk.testing.contract import ContractSuite


class TestMinifwContract(ContractSuite):
    @pytest.fixture
    def harness(self):
        return MiniHarness()
