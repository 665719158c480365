"""agent-sdk plugin template: minifw tools and agents-as-tools."""

from agent_sdk_minifw._integration import export_agent_tool as minifw_agent_tool
from agent_sdk_minifw._integration import export_tool as minifw_tool
from agent_sdk_minifw._plugin import INTEGRATION

__all__ = ["INTEGRATION", "minifw_agent_tool", "minifw_tool"]
