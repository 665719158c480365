import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def plugin_dirs() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))


def entry_point_name(plugin_dir: Path) -> str:
    meta = tomllib.loads((plugin_dir / "pyproject.toml").read_text())
    (name,) = meta["project"]["entry-points"]["agent_sdk"]
    return str(name)


PYTHON = sys.executable
