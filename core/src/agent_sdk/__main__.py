"""``python -m agent_sdk``: the ``agent-sdk`` command."""

import sys

from agent_sdk.cli import main

sys.exit(main())
