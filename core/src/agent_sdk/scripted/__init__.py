"""Scripted models: run a framework's real agent loop with a model that plays a script. A
runtime package (``agent-sdk demo`` uses it, as do users' own tests); the contract kit
(``agent_sdk.testing``) builds on it.

- ``turns``: the script (``Turn``, ``ToolCall``, ``ECHO``);
- ``harness``: what a plugin provides so the kit can drive its framework (``Harness``) and
  what a run reports (``RunResult``, ``SeenResult``, ``ScriptedAgent``);
- ``endpoint``: where a framework's OpenAI client sends its model calls (``Endpoint``);
- ``server``: a scripted OpenAI-compatible server over real HTTP (``ScriptedServer``),
  refusing what a real endpoint refuses (``openai_rules``).
"""

from typing import TYPE_CHECKING

from agent_sdk.exports import lazy_exports
from agent_sdk.scripted.endpoint import Api, Endpoint
from agent_sdk.scripted.harness import Harness, RunResult, ScriptedAgent, SeenResult
from agent_sdk.scripted.turns import ECHO, ToolCall, Turn

if TYPE_CHECKING:
    from agent_sdk.scripted.server import Recorded, ScriptedServer, SentResult

__all__ = [
    "ECHO",
    "Api",
    "Endpoint",
    "Harness",
    "Recorded",
    "RunResult",
    "ScriptedAgent",
    "ScriptedServer",
    "SeenResult",
    "SentResult",
    "ToolCall",
    "Turn",
]

# The server (http.server, threads) is imported on first use.
__getattr__ = lazy_exports(
    __name__,
    dict.fromkeys(("Recorded", "ScriptedServer", "SentResult"), "agent_sdk.scripted.server"),
    submodules=True,
)
