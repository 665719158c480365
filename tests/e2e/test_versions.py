"""One version everywhere: the eight distributions are released together, so each states the
core's version (pyproject, any ``__version__``, the newest changelog heading), every plugin
and the template pin the core's minor series, and the core's extras pin the plugins'."""

import ast
import re
from pathlib import Path

import pytest
import tomllib
from e2e_helpers import ROOT
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

CORE = ROOT / "core"
TEMPLATE = ROOT / "contrib" / "plugin-template"
PLUGINS = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
DISTRIBUTIONS = [CORE, *PLUGINS, TEMPLATE]


def project(source: Path) -> dict:
    return tomllib.loads((source / "pyproject.toml").read_text())["project"]


VERSION = Version(project(CORE)["version"])
SERIES = SpecifierSet(f">={VERSION.major}.{VERSION.minor},<{VERSION.major}.{VERSION.minor + 1}")


def stated_versions(source: Path) -> dict[str, str]:
    """Every module-level ``__version__ = "..."`` in the distribution's packages."""
    found = {}
    for path in sorted((source / "src").glob("*/*.py")):
        for node in ast.parse(path.read_text()).body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)
                and isinstance(node.value, ast.Constant)
            ):
                found[str(path.relative_to(ROOT))] = node.value.value
    return found


def changelog(source: Path) -> Path:
    # The core's CHANGELOG.md (shipped in its sdist) points at docs/changelog.md.
    return ROOT / "docs" / "changelog.md" if source == CORE else source / "CHANGELOG.md"


def test_there_are_eight_distributions():
    assert len(DISTRIBUTIONS) == 8 and all((d / "pyproject.toml").is_file() for d in DISTRIBUTIONS)


@pytest.mark.parametrize("source", DISTRIBUTIONS, ids=lambda p: p.name)
def test_every_distribution_states_the_cores_version(source):
    assert Version(project(source)["version"]) == VERSION
    stated = stated_versions(source)
    assert all(Version(v) == VERSION for v in stated.values()), stated


def test_the_core_and_every_plugin_have_a_version_attribute():
    for source in [CORE, *PLUGINS]:
        assert stated_versions(source), f"{source.name}: no __version__"


@pytest.mark.parametrize("source", [*PLUGINS, TEMPLATE], ids=lambda p: p.name)
def test_plugins_pin_the_cores_minor_series(source):
    pins = [Requirement(d) for d in project(source)["dependencies"]]
    [core] = [r for r in pins if r.name == "agent-sdk"]
    assert core.specifier == SERIES, f"{source.name} pins agent-sdk{core.specifier}"
    assert VERSION in core.specifier


def test_the_cores_extras_pin_the_plugins_minor_series():
    names = {project(p)["name"] for p in PLUGINS}
    extras = project(CORE)["optional-dependencies"]
    pins = [Requirement(d) for deps in extras.values() for d in deps]
    plugin_pins = {r.name: r.specifier for r in pins if r.name in names}
    assert plugin_pins == dict.fromkeys(names, SERIES)


@pytest.mark.parametrize("source", DISTRIBUTIONS, ids=lambda p: p.name)
def test_the_newest_changelog_heading_is_the_version(source):
    headings = re.findall(r"^## (\S+)", changelog(source).read_text(), flags=re.M)
    assert headings and Version(headings[0]) == VERSION, headings[:2]
