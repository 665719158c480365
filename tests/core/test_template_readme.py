"""The plugin template's README says what the template is, so it cannot drift from the code.

Every file it names is in the template (and every module of the package is named); every hook
it names is a hook spec the template's entry point implements (and every hook implemented is
named); every Python name it shows is real, and the keywords it shows a class taking are that
class's declared fields (so ``Integration(framework=...)``, the pre-0.2 spelling the
constructor still accepts, counts as gone); every glob it says a policy matches is in the
template's code; every contract check it names is in the kit, never as a range (a range goes
stale as soon as the kit grows); and the lines the docs include from it end at a section
boundary.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata as md
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import agent_sdk
import agent_sdk.hookspecs as hookspecs
import agent_sdk.integration as api
import agent_sdk.scripted as scripted
import agent_sdk.testing as kit
import agent_sdk.testing.contract as contract
import agent_sdk_minifw

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "contrib" / "plugin-template"
README = TEMPLATE / "README.md"
PACKAGE = Path(agent_sdk_minifw.__file__).parent
REPO_URL = re.compile(r"https://github\.com/agent-sdk/agent-sdk/(?:tree|blob)/main/([^)#\s]+)")
FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
CHECK_ID = re.compile(r"\bC(\d+)\b")
CHECK_RANGE = re.compile(r"\bC\d+\s*(?:-|–|—|to)\s*C\d+\b")
FILE_SUFFIXES = (".py", ".toml", ".md", ".in", ".typed", ".txt")


def template_modules() -> dict[str, ModuleType]:
    found = {"__init__": agent_sdk_minifw}
    for info in pkgutil.iter_modules([str(PACKAGE)]):
        found[info.name] = importlib.import_module(f"agent_sdk_minifw.{info.name}")
    return found


MODULES = template_modules()
[ENTRY_POINT] = [
    ep for ep in md.entry_points(group="agent_sdk") if ep.value.startswith("agent_sdk_minifw")
]
ENTRY_MODULE = importlib.import_module(ENTRY_POINT.value.split(":")[0])
[TEMPLATE_INTEGRATION] = ENTRY_MODULE.agent_sdk_integrations()
# Where a bare name in the README may live: the template's modules (and their names), its
# integration class, the plugin-author API, the core, the kit and the harness base.
NAMESPACES: list[Any] = [
    *MODULES.values(),
    type(TEMPLATE_INTEGRATION),
    api,
    agent_sdk,
    contract,
    scripted,
]


def prose(text: str) -> str:
    return FENCE.sub("", text)


def spans(text: str) -> list[str]:
    return CODE_SPAN.findall(prose(text))


def is_file(span: str) -> bool:
    return "/" in span or span.endswith(FILE_SUFFIXES)


def hook_specs() -> set[str]:
    return {n for n, f in vars(hookspecs).items() if hasattr(f, "agent_sdk_spec")}


def hooks_implemented() -> set[str]:
    return {n for n, f in vars(ENTRY_MODULE).items() if hasattr(f, "agent_sdk_impl")}


def kit_check_ids() -> set[int]:
    """The ids the kit has a test for (``test_c<N>_...`` in any module of agent_sdk.testing)."""
    ids: set[int] = set()
    for path in Path(kit.__file__).parent.rglob("*.py"):
        ids |= {int(n) for n in re.findall(r"def test_c(\d+)_", path.read_text())}
    return ids


def attribute(obj: Any, name: str) -> Any:
    """``getattr``, except that a module's deprecated aliases (its ``__getattr__``) do not
    count: a module has what it defines or imports and what its ``__all__`` exports."""
    if isinstance(obj, ModuleType):
        if name in vars(obj) or name in getattr(obj, "__all__", ()):
            return getattr(obj, name)
        if obj is agent_sdk_minifw and name in MODULES:
            return MODULES[name]
        raise AttributeError(name)
    return getattr(obj, name)


def resolve(dotted: str) -> Any:
    """The object ``a.b.c`` names, looked up in NAMESPACES; LookupError if there is none."""
    head, *rest = dotted.split(".")
    for space in NAMESPACES:
        try:
            obj = space if head == getattr(space, "__name__", None) else attribute(space, head)
            for part in rest:
                obj = attribute(obj, part)
        except AttributeError:
            continue
        return obj
    raise LookupError(dotted)


def accepted_keywords(obj: Any) -> set[str]:
    """A class's declared fields (annotations along its MRO), else a callable's parameters."""
    if inspect.isclass(obj):
        fields = {n for c in obj.__mro__ for n in vars(c).get("__annotations__", {})}
        if fields:
            return fields
    return set(inspect.signature(obj).parameters)


def template_keywords() -> set[str]:
    """Keywords of the template's public functions."""
    funcs = [getattr(agent_sdk_minifw, n) for n in agent_sdk_minifw.__all__]
    return {p for f in funcs if callable(f) and not isinstance(f, type) for p in _parameters(f)}


def _parameters(function: Any) -> list[str]:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):  # not introspectable (an Integration instance, say)
        return []


def name_problems(span: str) -> list[str]:
    """What is wrong with a code span that shows Python (nothing for prose or commands)."""
    if re.fullmatch(r"[\w.]+:[\w.]+", span):  # module:attribute, as entry points say it
        module, attr = span.split(":")
        try:
            obj: Any = importlib.import_module(module)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            return [f"`{span}` names nothing"]
        return []
    # `f(a, ...)` in prose means "and the rest": read it as `f(a)`.
    source = re.sub(r"(\(|,\s*)\.\.\.(?=\s*\))", lambda m: m.group(1).strip(", "), span)
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError:
        try:
            [statement] = ast.parse(source).body
        except (SyntaxError, ValueError):
            if re.match(r"[\w.]+\(", span):
                return [f"`{span}` looks like a call but is not Python"]
            return []  # prose or a command
        if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
            keyword = statement.targets[0].id
            ok = keyword in template_keywords()
            return [] if ok else [f"`{span}`: no public template function takes {keyword}="]
        return []
    call = tree if isinstance(tree, ast.Call) else None
    target = call.func if call else tree
    if not isinstance(target, ast.Name | ast.Attribute):
        return []
    dotted = ast.unparse(target)
    if dotted.startswith("agent_sdk_") and not dotted.startswith("agent_sdk_minifw"):
        return []  # a hook: checked on its own
    try:
        obj = resolve(dotted)
    except LookupError:
        return [f"`{span}`: {dotted} is not a real name"]
    if call is None:
        return []
    wrong = {k.arg for k in call.keywords if k.arg} - accepted_keywords(obj)
    return [f"`{span}`: {dotted} has no {k}" for k in sorted(wrong)]


# -- the checks, each a function of the README's text, so they can be shown to fail ---------
def file_problems(text: str) -> list[str]:
    problems = []
    files = {str(p.relative_to(TEMPLATE)) for p in TEMPLATE.rglob("*") if p.is_file()}
    files = {f for f in files if ".egg-info" not in f and "__pycache__" not in f}
    for span in spans(text):
        if not is_file(span) or " " in span:
            continue
        path = span.strip("./")
        if "/" in path:
            found = path in files or any(f.startswith(path.rstrip("/") + "/") for f in files)
        else:
            found = any(f == path or f.endswith("/" + path) for f in files)
        if not found:
            problems.append(f"`{span}` is not a file of the template")
    for block in FENCE.findall(text):  # commands run from a checkout of the repository
        for token in re.findall(r"\.?/?contrib/[\w./-]+", block):
            if not (ROOT / token.strip("./")).exists():
                problems.append(f"{token} (in a command) does not exist")
    for target in REPO_URL.findall(text):
        if not (ROOT / target).exists():
            problems.append(f"the link to {target} points at nothing")
    named = set(spans(text))
    for module in MODULES:
        if not ({module, f"{module}.py"} & named):
            problems.append(f"the module {module}.py is not described")
    return problems


def hook_problems(text: str) -> list[str]:
    named = {
        m.group(0)
        for span in spans(text)
        for m in [re.match(r"agent_sdk_\w+", span)]
        if m and not m.group(0).startswith("agent_sdk_minifw")
    }
    problems = [f"`{h}` is not a hook spec" for h in sorted(named - hook_specs())]
    problems += [
        f"`{h}` is not implemented by the template"
        for h in sorted((named & hook_specs()) - hooks_implemented())
    ]
    problems += [f"the hook {h} is not described" for h in sorted(hooks_implemented() - named)]
    return problems


def python_problems(text: str) -> list[str]:
    problems = []
    code = "\n".join(p.read_text() for p in PACKAGE.rglob("*.py"))
    for span in spans(text):
        if is_file(span):
            continue
        glob = re.fullmatch(r"(\w*)\*(\w*)", span)
        if glob:  # a pattern a policy is said to match: the code must spell it
            part = glob.group(1) or glob.group(2)
            if not re.search(rf"[\"']{re.escape(part)}[\"']", code):
                problems.append(f"`{span}`: the template's code matches no such pattern")
            continue
        problems += name_problems(span)
    return problems


def check_id_problems(text: str) -> list[str]:
    problems = [f"{r!r}: name the kit's checks, not a range" for r in CHECK_RANGE.findall(text)]
    ids = kit_check_ids()
    problems += [
        f"C{n} is not a check of the kit" for n in CHECK_ID.findall(text) if int(n) not in ids
    ]
    return problems


def include_problems(text: str) -> list[str]:
    """Pages that include lines of the README (``--8<-- "...README.md:a:b"``) get whole
    sections: balanced fences, and blank lines (or the file's ends) around the range."""
    problems = []
    lines = text.splitlines()
    pattern = re.compile(r'--8<-- "contrib/plugin-template/README\.md:(\d+):(\d+)"')
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for first, last in pattern.findall(page.read_text()):
            a, b = int(first), int(last)
            chunk = lines[a - 1 : b]
            where = f"{page.relative_to(ROOT)} includes README lines {a}-{b}"
            if sum(line.startswith("```") for line in chunk) % 2:
                problems.append(f"{where}: a code block is cut")
            before = lines[a - 2] if a >= 2 else ""
            after = lines[b] if b < len(lines) else ""
            if (before.strip() and not before.startswith("#")) or after.strip():
                problems.append(f"{where}: it does not start and end at a blank line")
    return problems


CHECKS = [file_problems, hook_problems, python_problems, check_id_problems, include_problems]


def test_the_readme_names_the_template_as_it_is():
    text = README.read_text()
    problems = [p for check in CHECKS for p in check(text)]
    assert not problems, "contrib/plugin-template/README.md:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("check", "stale"),
    [
        (file_problems, "Keep `_plugin.py` light."),
        (hook_problems, "| `agent_sdk_export_tool` | tool export |"),
        (hook_problems, "| `agent_sdk_tool_middleware` | middleware |"),
        (python_problems, "`Integration(name=..., supported=...)`"),
        (python_problems, "point `Integration(framework=..., supported=...)` at it"),
        (python_problems, "`delete_*` tools are always denied"),
        (python_problems, "`Executor.run_everything` runs it"),
        (python_problems, "`agent_sdk_minifw.export_tool` (a deprecated alias)"),
        (check_id_problems, "the kit's checks C1-C12"),
        (check_id_problems, "check C99"),
    ],
)
def test_each_check_catches_what_the_old_readme_said(check, stale):
    text = README.read_text() + "\n" + stale + "\n"
    assert len(check(text)) > len(check(README.read_text())), stale
