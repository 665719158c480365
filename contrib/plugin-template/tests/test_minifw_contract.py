"""The plugin passes the contract kit, through minifw's own agent loop."""

import pytest

from agent_sdk.testing.contract import ContractSuite
from agent_sdk_minifw.testing import MiniHarness


class TestMinifwContract(ContractSuite):
    @pytest.fixture
    def harness(self):
        return MiniHarness()
