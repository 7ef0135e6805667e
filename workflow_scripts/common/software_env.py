"""The software a rule's script runs on: the pinned versions of the third-party distributions it imports.

Snakemake's `software-env` rerun trigger fingerprints conda, container and env-module environments only, and
this workflow has none: every job runs in the one virtual environment pinned by requirements.txt. So each rule
that runs Python code passes `software_env(<its script>)` (rules/common.smk) as a parameter, and the `params`
rerun trigger reruns exactly the jobs whose packages changed:

    params:
        software_env=software_env("../workflow_scripts/jorge/train.py"),
    script:
        "../workflow_scripts/jorge/train.py"

The value is the sorted `name==version` pins of
  - every distribution a module imports, read statically (ast) from the script and, transitively, from every
    `workflow_scripts` module it imports or launches by name (`launch("workflow_scripts.disttrain.survey.worker")`);
    imports inside functions and `try` blocks count: they run too; and
  - every pinned distribution those require (installed metadata), because transformers' results depend on the
    tokenizers it runs, pandas' on numpy.
Versions come from the pins, not from what is installed, so a CUDA build of torch (`2.13.0+cu126`) on a GPU
node and the CPU build on the submitting node give the same value, and a changed pin reruns its users once.

    .venv/bin/python -m workflow_scripts.common.software_env workflow_scripts/jorge/train.py   # print one
"""

import ast
import re
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # .../workflow_scripts
PACKAGE = PACKAGE_ROOT.name
REQUIREMENTS = PACKAGE_ROOT.parent / "requirements.txt"
_MODULE_NAME = re.compile(rf"{PACKAGE}(\.[A-Za-z_][A-Za-z0-9_]*)+")


class SoftwareEnvError(ValueError):
    """A script imports something no pin covers, or requirements.txt holds a line that is not a pin."""


def read_pins(requirements: Path) -> dict[str, str]:
    """Canonical distribution name -> pinned version, from a requirements file of `name[extras]==version` lines."""
    if not Path(requirements).is_file():
        raise SoftwareEnvError(
            f"{requirements} is missing: the workflow's pinned packages, which every rule's software_env "
            "parameter is read from; run from a whole checkout (a copy of the workflow needs requirements.txt too)"
        )
    pins = {}
    for number, raw in enumerate(Path(requirements).read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        specifiers = list(requirement.specifier)
        if len(specifiers) != 1 or specifiers[0].operator != "==":
            raise SoftwareEnvError(
                f"{requirements}:{number}: '{line}' is not an exact pin; write it as name==version "
                "(every job's software fingerprint is read from the pins)"
            )
        pins[canonicalize_name(requirement.name)] = specifiers[0].version
    return pins


def _module_file(dotted: str) -> Path | None:
    """The file of a `workflow_scripts` module or package, or None if `dotted` names neither (an attribute)."""
    parts = dotted.split(".")[1:]
    base = PACKAGE_ROOT.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _package_of(path: Path) -> str:
    """Dotted package that holds `path` (for relative imports)."""
    relative = path.resolve().relative_to(PACKAGE_ROOT.parent)
    parts = list(relative.parent.parts)
    return ".".join(parts)


@cache
def _direct_imports(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(top-level names of outside modules, dotted `workflow_scripts` modules) that the file at `path` imports."""
    tree = ast.parse(path.read_text(), filename=str(path))
    inside_package = path.resolve().is_relative_to(PACKAGE_ROOT)
    outside, ours = set(), set()

    def note(dotted: str, names: list[str]) -> None:
        if dotted.split(".")[0] != PACKAGE:
            outside.add(dotted.split(".")[0])
            return
        parts = dotted.split(".")
        for end in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ first
            if _module_file(".".join(parts[:end])):
                ours.add(".".join(parts[:end]))
        for name in names:  # `from workflow_scripts.common import io` imports the module io
            if _module_file(f"{dotted}.{name}"):
                ours.add(f"{dotted}.{name}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _MODULE_NAME.fullmatch(node.value):
            note(node.value, [])  # a worker module run by name (torchrun, `python -m`): its imports run too
        elif isinstance(node, ast.Import):
            for alias in node.names:
                note(alias.name, [])
        elif isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names]
            if node.level == 0:
                note(node.module, names)
            elif inside_package:
                package = _package_of(path).split(".")
                base = ".".join(package[: len(package) - node.level + 1])
                note(f"{base}.{node.module}" if node.module else base, names)
    return frozenset(outside), frozenset(ours)


def imported_modules(script: Path) -> set[str]:
    """Top-level names of the outside modules that `script` imports, directly or through workflow_scripts."""
    seen_files, outside = set(), set()
    pending = [Path(script).resolve()]
    while pending:
        path = pending.pop()
        if path in seen_files:
            continue
        seen_files.add(path)
        direct_outside, ours = _direct_imports(path)
        outside |= direct_outside
        pending.extend(_module_file(dotted) for dotted in ours)
    return {name for name in outside if name not in sys.stdlib_module_names and name != "__future__"}


@cache
def _distributions_by_module() -> dict[str, tuple[str, ...]]:
    return {module: tuple(dists) for module, dists in metadata.packages_distributions().items()}


def distributions_of(module: str) -> set[str]:
    """Canonical names of the installed distributions that provide top-level module `module`."""
    return {canonicalize_name(name) for name in _distributions_by_module().get(module, ())}


@cache
def _pinned_requirements_of(distribution: str, pinned: frozenset[str]) -> frozenset[str]:
    """The pinned distributions that `distribution` (installed) requires, extras left out."""
    found = set()
    for line in metadata.requires(distribution) or []:
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(requirement.name)
        if name in pinned:
            found.add(name)
    return frozenset(found)


def pinned_distributions(script: Path, pins: dict[str, str]) -> set[str]:
    """The pinned distributions that `script` runs: those it imports and, transitively, the pinned ones they need."""
    pinned = frozenset(pins)
    wanted = set()
    for module in sorted(imported_modules(script)):
        providers = distributions_of(module) & pinned
        if not providers:
            installed = sorted(distributions_of(module)) or ["none installed"]
            raise SoftwareEnvError(
                f"{script} imports '{module}' (distribution: {', '.join(installed)}), which requirements.txt "
                "does not pin; add 'name==version' for it to requirements.txt"
            )
        wanted |= providers
    pending = list(wanted)
    while pending:
        for needed in _pinned_requirements_of(pending.pop(), pinned) - wanted:
            wanted.add(needed)
            pending.append(needed)
    return wanted


def software_fingerprint(script: str | Path, requirements: str | Path = REQUIREMENTS) -> str:
    """`name==version` of every pinned distribution `script` runs, sorted and space-separated."""
    pins = read_pins(Path(requirements))
    return " ".join(f"{name}=={pins[name]}" for name in sorted(pinned_distributions(Path(script), pins)))


if __name__ == "__main__":
    for script in sys.argv[1:]:
        print(f"{script}: {software_fingerprint(script)}")
