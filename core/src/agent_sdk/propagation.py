"""Deprecated: moved to ``agent_sdk.tracing.propagation`` (warns once)."""

import sys

from agent_sdk.deprecated import moved_module

sys.modules[__name__] = moved_module(__name__)
