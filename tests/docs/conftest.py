import sys
from pathlib import Path

# Lets the docs tests import their helpers under pytest's importlib import mode.
sys.path.insert(0, str(Path(__file__).parent))
