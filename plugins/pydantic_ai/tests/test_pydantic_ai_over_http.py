"""Over HTTP: the contract kit with every agent on pydantic-ai's own OpenAIChatModel or
OpenAIResponsesModel (an AsyncOpenAI client pointed at the scripted server), plain and
streamed."""

from __future__ import annotations

from agent_sdk.testing.over_http import HttpContractSuite
from agent_sdk_pydantic_ai.testing import PydanticAIHarness


class TestPydanticAIContractOverHttp(HttpContractSuite):
    harness_class = PydanticAIHarness
