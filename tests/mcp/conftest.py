import sys
from pathlib import Path

HERE = Path(__file__).parent
if str(HERE) not in sys.path:  # the served module, imported in process and served from here
    sys.path.insert(0, str(HERE))
