"""The eight distributions (core, six plugins, the template) build as sdist and wheel from a
copy of their directory, pass ``twine check --strict`` (what PyPI renders), and carry their
license, changelog and complete metadata."""

import email.parser
import shutil
import subprocess
import sys
import tarfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from e2e_helpers import ROOT

DISTRIBUTIONS = [
    ROOT / "core",
    *sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml")),
    ROOT / "contrib" / "plugin-template",
]
PROJECT_URLS = {"Homepage", "Documentation", "Source", "Issues", "Changelog"}


def build(source: Path, work: Path) -> list[Path]:
    """sdist and wheel of ``source``, built from a clean copy (no build/ or egg-info)."""
    copy = work / source.name
    shutil.copytree(
        source, copy, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__")
    )
    out = work / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(copy)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{source.name}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return sorted(out.iterdir())


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    root = tmp_path_factory.mktemp("dists")
    with ThreadPoolExecutor(max_workers=2) as pool:
        built = list(
            pool.map(
                lambda d: build(d, root / d.relative_to(ROOT).as_posix().replace("/", "-")),
                DISTRIBUTIONS,
            )
        )
    return dict(zip([d.name for d in DISTRIBUTIONS], built, strict=True))


def test_every_distribution_builds_an_sdist_and_a_wheel(dists):
    assert len(dists) == 8
    for name, files in dists.items():
        kinds = sorted(f.suffix for f in files)
        assert kinds == [".gz", ".whl"], f"{name}: {files}"


def test_twine_check_strict_passes(dists):
    files = [str(f) for built in dists.values() for f in built]
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *files],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == len(files) == 2 * len(dists), checked.stdout


@pytest.mark.parametrize("name", [d.name for d in DISTRIBUTIONS])
def test_sdist_has_license_changelog_and_readme(dists, name):
    [sdist] = [f for f in dists[name] if f.name.endswith(".tar.gz")]
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
        for required in ("LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", "PKG-INFO"):
            assert required in members, f"{sdist.name} lacks {required}"
            assert members[required].isfile(), f"{required} must be a file, not a link"
        changelog = tar.extractfile(members["CHANGELOG.md"]).read().decode()  # type: ignore[union-attr]
        license_text = tar.extractfile(members["LICENSE"]).read().decode()  # type: ignore[union-attr]
    assert changelog.startswith("# Changelog") and len(changelog) > 100
    assert "Apache License" in license_text and "Version 2.0" in license_text


@pytest.mark.parametrize("name", [d.name for d in DISTRIBUTIONS])
def test_wheel_metadata_is_complete(dists, name):
    [wheel] = [f for f in dists[name] if f.suffix == ".whl"]
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        [meta_name] = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.parser.Parser().parsestr(zf.read(meta_name).decode())
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta["Requires-Python"], "Requires-Python"
    urls = {value.split(",")[0].strip() for value in meta.get_all("Project-URL") or []}
    assert urls >= PROJECT_URLS, urls
    classifiers = set(meta.get_all("Classifier") or [])
    assert "Typing :: Typed" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert meta["Description-Content-Type"] == "text/markdown"
    assert len(meta.get_payload()) > 500, "a real long description"
