import sys
from pathlib import Path

# Lets the e2e tests import e2e_helpers under pytest's importlib import mode.
sys.path.insert(0, str(Path(__file__).parent))
