"""The public APIs of the measurement engine (workflow_scripts/measure/__init__.py) and of PCGBench
(workflow_scripts/pcgbench/__init__.py): code outside a package, its rules and the benchmarks import from the package
only names in its `__all__`, never a module inside it; every name there resolves; the engine imports nothing of the
studies (only workflow_scripts.common)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import workflow_scripts.measure as measure
import workflow_scripts.pcgbench as pcgbench

REPO = Path(__file__).resolve().parents[2]
APIS = {"workflow_scripts.measure": measure, "workflow_scripts.pcgbench": pcgbench}
# Benchmarks that time the engine's own steps one by one (compile, link, the precompiled headers, a run's control
# group), which no study calls apart: they may reach the engine's modules.
ENGINE_BENCHMARKS = ("harness_throughput.py", "pcgbench_projection.py", "run_cgroup_cost.py")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute name an ImportFrom node imports from (a relative one resolved against `module`)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _offences(tree: ast.AST, module: str, is_package: bool, apis: dict = APIS) -> list[tuple[int, str]]:
    """(line, what) for every import in `tree` that reaches past the API of a package `module` is not part of."""
    found = []
    for package, api in apis.items():
        if module == package or module.startswith(package + "."):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(node.lineno, f"import {alias.name}") for alias in node.names
                          if alias.name.startswith(package + ".")]  # fmt: skip
            elif isinstance(node, ast.ImportFrom):
                source = _imported(node, module, is_package)
                if source.startswith(package + "."):
                    found.append((node.lineno, f"from {source} import ..."))
                elif source == package:
                    found += [(node.lineno, f"from {package} import {alias.name} (not in __all__)")
                              for alias in node.names if alias.name not in api.__all__]  # fmt: skip
                elif source == "workflow_scripts":
                    short = package.split(".")[1]
                    found += [(node.lineno, f"from workflow_scripts import {alias.name}") for alias in node.names
                              if alias.name.startswith(short + ".")]  # fmt: skip
    return sorted(found)


def _rule_imports(text: str) -> list[tuple[int, str]]:
    """(first line, statement) of each top-level import of a Snakemake file (its Python lines, joined where a
    parenthesis spans lines)."""
    lines, statements, i = text.splitlines(), [], 0
    while i < len(lines):
        if re.match(r"(from|import)\s", lines[i]):
            start, statement = i, lines[i]
            while statement.count("(") > statement.count(")"):
                i += 1
                statement += "\n" + lines[i]
            statements.append((start + 1, statement))
        i += 1
    return statements


def api_offences(root: Path) -> list[str]:
    """'file:line: import' for every import past a package's API in `root`'s workflow_scripts/ (outside that
    package), benchmarks/ and rules/ (pcgbench*.smk are PCGBench's own). ast.walk reaches every import, a function's
    lazy ones too."""
    found = []
    # benchmarks/ is no package: its scripts cannot import relatively, so the module name given for them is never used
    for path in sorted((root / "workflow_scripts").rglob("*.py")) + sorted((root / "benchmarks").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        apis = APIS
        if path.parent.name == "benchmarks" and path.name in ENGINE_BENCHMARKS:
            apis = {name: api for name, api in APIS.items() if name != "workflow_scripts.measure"}
        offences = _offences(tree, _module_name(path, root), path.name == "__init__.py", apis)
        found += [f"{path.relative_to(root)}:{line}: {what}" for line, what in offences]
    for path in sorted((root / "rules").glob("*.smk")):
        # pcgbench.smk and the files of functions it includes (pcgbench_tasks.smk) are PCGBench's own
        module = "workflow_scripts.pcgbench.rules" if path.name.startswith("pcgbench") else "rules"
        for first, statement in _rule_imports(path.read_text(encoding="utf-8")):
            offences = _offences(ast.parse(statement), module, False)
            found += [f"{path.relative_to(root)}:{first + line - 1}: {what}" for line, what in offences]
    return found


def test_other_packages_rules_and_benchmarks_import_only_the_apis():
    offences = api_offences(REPO)
    assert not offences, "imports past an API (measure's or pcgbench's __init__.py's __all__):\n" + "\n".join(offences)


@pytest.mark.parametrize("api", [measure, pcgbench], ids=["measure", "pcgbench"])
def test_every_api_name_resolves_once(api):
    assert len(api.__all__) == len(set(api.__all__))
    missing = [name for name in api.__all__ if getattr(api, name, None) is None]
    assert missing == []


def test_the_engine_api_names_no_modules():
    """A name of the engine's API is a class, function or constant: "may I change X in run.py?" is answered by
    whether X is in the list, not by whether a whole module is."""
    modules = [name for name in measure.__all__ if type(getattr(measure, name)).__name__ == "module"]
    assert modules == []


def test_the_engine_imports_only_common():
    engine = REPO / "workflow_scripts" / "measure"
    found = []
    for path in sorted(engine.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])  # fmt: skip
            found += [f"{path.name}:{node.lineno}: {name}" for name in names if name.startswith("workflow_scripts")
                      and not name.startswith(("workflow_scripts.common", "workflow_scripts.measure"))]  # fmt: skip
    assert found == []


def test_the_check_names_each_import_past_the_api(tmp_path):
    (tmp_path / "workflow_scripts" / "pcgbench").mkdir(parents=True)
    (tmp_path / "workflow_scripts" / "pcgbench" / "evaluation.py").write_text(
        "from workflow_scripts.pcgbench.samples import x\n"
        "from workflow_scripts.measure import run_program\n"
        "from workflow_scripts.measure.run import ProgramRun\n")  # fmt: skip
    study = tmp_path / "workflow_scripts" / "study"
    study.mkdir()
    (study / "__init__.py").write_text("")
    (study / "good.py").write_text("from workflow_scripts.measure import OK, run_program\n"
                                   "from workflow_scripts.pcgbench import compute_metrics\n"
                                   "import workflow_scripts.pcgbench\n")  # fmt: skip
    (study / "bad.py").write_text("import json\n\n"
                                  "from workflow_scripts.measure.sandbox import SandboxLimits\n"
                                  "from workflow_scripts.measure import OK, tampering\n"
                                  "def f():\n"
                                  "    import workflow_scripts.pcgbench.build\n"
                                  "    from ..pcgbench.metrics import compute_metrics\n"
                                  "    from workflow_scripts import pcgbench\n"
                                  "    from workflow_scripts.pcgbench import OK\n")  # fmt: skip
    benchmarks = tmp_path / "benchmarks"
    benchmarks.mkdir()
    (benchmarks / "fast.py").write_text("import sys\n\n"
                                        "from workflow_scripts.pcgbench import evaluation\n"
                                        "def prompt():\n"
                                        "    from workflow_scripts.measure.suite import load_suite\n"
                                        "    from workflow_scripts.pcgbench import projection as pj\n"
                                        "    import workflow_scripts.pcgbench.samples as samples\n")  # fmt: skip
    (benchmarks / "harness_throughput.py").write_text("from workflow_scripts.measure import toolchains\n"
                                                      "from workflow_scripts.pcgbench.samples import x\n")  # fmt: skip
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "pcgbench.smk").write_text("from workflow_scripts.pcgbench.shards import layout\n"
                                                     "from workflow_scripts.measure.run import PROTOCOL\n")  # fmt: skip
    (tmp_path / "rules" / "study.smk").write_text("from workflow_scripts.pcgbench import (\n    suite_files,\n)\n"
                                                  "from workflow_scripts.pcgbench.paths import suite_files\n\n"
                                                  "rule a:\n    output: 'x'\n")  # fmt: skip
    assert api_offences(tmp_path) == [
        "workflow_scripts/pcgbench/evaluation.py:3: from workflow_scripts.measure.run import ...",
        "workflow_scripts/study/bad.py:3: from workflow_scripts.measure.sandbox import ...",
        "workflow_scripts/study/bad.py:4: from workflow_scripts.measure import tampering (not in __all__)",
        "workflow_scripts/study/bad.py:6: import workflow_scripts.pcgbench.build",
        "workflow_scripts/study/bad.py:7: from workflow_scripts.pcgbench.metrics import ...",
        "workflow_scripts/study/bad.py:9: from workflow_scripts.pcgbench import OK (not in __all__)",
        "benchmarks/fast.py:5: from workflow_scripts.measure.suite import ...",
        "benchmarks/fast.py:7: import workflow_scripts.pcgbench.samples",
        "benchmarks/harness_throughput.py:2: from workflow_scripts.pcgbench.samples import ...",
        "rules/pcgbench.smk:2: from workflow_scripts.measure.run import ...",
        "rules/study.smk:4: from workflow_scripts.pcgbench.paths import ...",
    ]
