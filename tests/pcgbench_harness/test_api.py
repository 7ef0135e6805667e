"""PCGBench's public API (workflow_scripts/pcgbench/__init__.py): every other package, every other study's rules and
every benchmark script import from the package, and only names in its `__all__`, never a module inside it; and every
name there resolves."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import workflow_scripts.pcgbench as pcgbench

REPO = Path(__file__).resolve().parents[2]
PACKAGE = "workflow_scripts.pcgbench"


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


def _offences(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, what) for every import in `tree` that reaches past the package's API."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {alias.name}") for alias in node.names
                      if alias.name.startswith(PACKAGE + ".")]  # fmt: skip
        elif isinstance(node, ast.ImportFrom):
            source = _imported(node, module, is_package)
            if source.startswith(PACKAGE + "."):
                found.append((node.lineno, f"from {source} import ..."))
            elif source == PACKAGE:
                found += [(node.lineno, f"from {PACKAGE} import {alias.name} (not in __all__)")
                          for alias in node.names if alias.name not in pcgbench.__all__]  # fmt: skip
            elif source == "workflow_scripts":
                found += [(node.lineno, f"from workflow_scripts import {alias.name}") for alias in node.names
                          if alias.name.startswith("pcgbench.")]  # fmt: skip
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
    """'file:line: import' for every import past PCGBench's API in `root`'s workflow_scripts/ (outside pcgbench/),
    benchmarks/ and rules/ (outside pcgbench.smk). ast.walk reaches every import, a function's lazy ones too."""
    found = []
    package_dir = root / "workflow_scripts" / "pcgbench"
    # benchmarks/ is no package: its scripts cannot import relatively, so the module name given for them is never used
    scripts = [path for path in sorted((root / "workflow_scripts").rglob("*.py")) if package_dir not in path.parents]
    for path in scripts + sorted((root / "benchmarks").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        offences = _offences(tree, _module_name(path, root), path.name == "__init__.py")
        found += [f"{path.relative_to(root)}:{line}: {what}" for line, what in offences]
    for path in sorted((root / "rules").glob("*.smk")):
        if path.name == "pcgbench.smk":
            continue
        for first, statement in _rule_imports(path.read_text(encoding="utf-8")):
            offences = _offences(ast.parse(statement), "rules", False)
            found += [f"{path.relative_to(root)}:{first + line - 1}: {what}" for line, what in offences]
    return found


def test_other_packages_rules_and_benchmarks_import_only_the_api():
    offences = api_offences(REPO)
    assert not offences, "imports past PCGBench's API (pcgbench/__init__.py's __all__):\n" + "\n".join(offences)


def test_every_api_name_resolves_once():
    assert len(pcgbench.__all__) == len(set(pcgbench.__all__))
    missing = [name for name in pcgbench.__all__ if getattr(pcgbench, name, None) is None]
    assert missing == []


def test_the_check_names_each_import_past_the_api(tmp_path):
    (tmp_path / "workflow_scripts" / "pcgbench").mkdir(parents=True)
    (tmp_path / "workflow_scripts" / "pcgbench" / "evaluate.py").write_text("from workflow_scripts.pcgbench.run import x\n")
    study = tmp_path / "workflow_scripts" / "study"
    study.mkdir()
    (study / "__init__.py").write_text("")
    (study / "good.py").write_text("from workflow_scripts.pcgbench import OK, run_program, suite\n"
                                   "import workflow_scripts.pcgbench\n")  # fmt: skip
    (study / "bad.py").write_text("import json\n\n"
                                  "from workflow_scripts.pcgbench.sandbox import SandboxLimits\n"
                                  "from workflow_scripts.pcgbench import OK, tampering\n"
                                  "def f():\n"
                                  "    import workflow_scripts.pcgbench.build\n"
                                  "    from ..pcgbench.metrics import compute_metrics\n"
                                  "    from workflow_scripts import pcgbench\n")  # fmt: skip
    benchmarks = tmp_path / "benchmarks"
    benchmarks.mkdir()
    (benchmarks / "fast.py").write_text("import sys\n\n"
                                        "from workflow_scripts.pcgbench import evaluate, suite\n"
                                        "def prompt():\n"
                                        "    from workflow_scripts.pcgbench.suite import load_suite\n"
                                        "    from workflow_scripts.pcgbench import projection as pj\n"
                                        "    import workflow_scripts.pcgbench.samples as samples\n")  # fmt: skip
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "pcgbench.smk").write_text("from workflow_scripts.pcgbench.shards import layout\n")
    (tmp_path / "rules" / "study.smk").write_text("from workflow_scripts.pcgbench import (\n    suite_files,\n)\n"
                                                  "from workflow_scripts.pcgbench.paths import suite_files\n\n"
                                                  "rule a:\n    output: 'x'\n")  # fmt: skip
    assert api_offences(tmp_path) == [
        "workflow_scripts/study/bad.py:3: from workflow_scripts.pcgbench.sandbox import ...",
        "workflow_scripts/study/bad.py:4: from workflow_scripts.pcgbench import tampering (not in __all__)",
        "workflow_scripts/study/bad.py:6: import workflow_scripts.pcgbench.build",
        "workflow_scripts/study/bad.py:7: from workflow_scripts.pcgbench.metrics import ...",
        "benchmarks/fast.py:5: from workflow_scripts.pcgbench.suite import ...",
        "benchmarks/fast.py:7: import workflow_scripts.pcgbench.samples",
        "rules/study.smk:4: from workflow_scripts.pcgbench.paths import ...",
    ]
