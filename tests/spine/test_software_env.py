"""Packaging and software-environment reruns: every import pinned, the pins in one place, and a changed pin
rerunning exactly the jobs whose scripts import that package (the `software_env` parameter)."""

import ast
import re
import sys
import textwrap
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import run_snakemake
from workflow_scripts.common.software_env import (
    SoftwareEnvError,
    imported_modules,
    read_pins,
    software_fingerprint,
)

REPO = Path(__file__).resolve().parents[2]
RUNTIME = REPO / "requirements.txt"
DEV = REPO / "requirements-dev.txt"


def _third_party_imports() -> dict[str, set[str]]:
    """Top-level module -> files of workflow_scripts that import it (stdlib and the package itself left out)."""
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / "workflow_scripts").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "workflow_scripts":
                    found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def test_every_third_party_import_belongs_to_a_runtime_pin():
    pinned = set(read_pins(RUNTIME))
    providers = metadata.packages_distributions()
    imports = _third_party_imports()
    assert {"torch", "numpy", "yaml", "threadpoolctl", "referencing"} <= set(imports)  # the walk sees imports
    unpinned = {
        module: sorted(files)
        for module, files in imports.items()
        if not {canonicalize_name(name) for name in providers.get(module, [])} & pinned
    }
    assert unpinned == {}, "imported but not pinned in requirements.txt"


def test_pins_have_one_home_and_tools_are_an_extra():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert set(project["project"]["dynamic"]) == {"dependencies", "optional-dependencies"}
    dynamic = project["tool"]["setuptools"]["dynamic"]
    assert dynamic["dependencies"] == {"file": ["requirements.txt"]}
    assert dynamic["optional-dependencies"] == {"dev": {"file": ["requirements-dev.txt"]}}
    runtime, dev = read_pins(RUNTIME), read_pins(DEV)
    assert {"pytest", "pytest-timeout", "pytest-xdist", "ruff", "snakefmt", "black"} == set(dev)
    assert not set(runtime) & set(dev)
    assert {"threadpoolctl", "referencing", "torch", "snakemake"} <= set(runtime)
    # `make setup` installs both files, so the test suite and the linters have their tools
    assert "-r requirements.txt -r requirements-dev.txt" in (REPO / "Makefile").read_text()
    # setuptools reads the files as requirement lines: each must parse on its own
    for path in (RUNTIME, DEV):
        for line in path.read_text().splitlines():
            if line.split("#", 1)[0].strip():
                Requirement(line.split("#", 1)[0])


def test_a_line_that_is_not_an_exact_pin_is_refused(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("numpy==2.4.6\n# a comment\npandas>=3\n")
    with pytest.raises(SoftwareEnvError, match=r"requirements.txt:3: 'pandas>=3' is not an exact pin"):
        read_pins(requirements)
    with pytest.raises(SoftwareEnvError, match="missing: the workflow's pinned packages"):
        read_pins(tmp_path / "nowhere" / "requirements.txt")


def _script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


@pytest.mark.parametrize(
    "body, expected",
    [
        ("import yaml\nimport os\n", "pyyaml==6.0.4"),
        # inside a function and a try block: they run too
        ("def f():\n    try:\n        import yaml\n    except ImportError:\n        pass\n", "pyyaml==6.0.4"),
    ],
)
def test_fingerprint_is_the_pins_of_what_the_script_imports(tmp_path, body, expected):
    script = _script(tmp_path, "step.py", body)
    assert software_fingerprint(script, RUNTIME) == expected


def test_fingerprint_follows_workflow_scripts_and_pinned_requirements(tmp_path):
    # transformers requires tokenizers (both pinned): a tokenizers pin change must rerun its users
    transformers = software_fingerprint(_script(tmp_path, "a.py", "import transformers\n"), RUNTIME).split()
    assert "tokenizers==0.23.3" in transformers and "numpy==2.4.6" in transformers
    # what workflow_scripts modules import counts, their packages' __init__ files included
    ours = software_fingerprint(_script(tmp_path, "d.py", "from workflow_scripts.common import software_env\n"))
    package_init = software_fingerprint(REPO / "workflow_scripts" / "common" / "__init__.py").split()
    assert set(ours.split()) == {"packaging==25.0", *package_init} and "torch==2.13.0" in package_init
    # a worker module launched by name (torchrun) is followed like an import
    launched = _script(tmp_path, "b.py", 'WORKER = "workflow_scripts.disttrain.survey.worker"\n')
    assert "deepspeed==0.19.8" in software_fingerprint(launched, RUNTIME).split()
    assert "deepspeed" not in software_fingerprint(_script(tmp_path, "c.py", "WORKER = 'x'\n"), RUNTIME)
    # relative imports inside the package resolve
    assert "yaml" in imported_modules(REPO / "workflow_scripts" / "common" / "config.py")


def test_an_unpinned_import_stops_planning_with_the_module_and_the_fix(tmp_path):
    script = _script(tmp_path, "step.py", "import pytest\n")  # a dev tool, not a runtime pin
    with pytest.raises(SoftwareEnvError, match=r"imports 'pytest' \(distribution: pytest\).*add 'name==version'"):
        software_fingerprint(script, RUNTIME)


def test_every_rule_that_runs_python_declares_its_scripts_software_env():
    """`software_env(...)` names the same file as `script:` in every rule (a copy-paste slip would fingerprint
    the wrong script)."""
    checked = 0
    for smk in sorted((REPO / "rules").glob("*.smk")):
        # split into rule blocks at each `rule` line; each block with a script: must carry its software_env
        blocks = re.split(r"^\s*rule\b.*$", smk.read_text(), flags=re.M)[1:]
        for block in blocks:
            script = re.search(r"^\s+script:\s*\n(?:\s*#.*\n)*\s*\"([^\"]+)\"", block, flags=re.M)
            if not script:
                continue
            declared = re.findall(r"software_env=software_env\(f?\"([^\"]+)\"\)", block)
            expected = script.group(1).replace("{params.study}", "{_study}")
            assert declared == [expected], f"{smk.name}: a rule running {script.group(1)}"
            checked += 1
    assert checked >= 50


TINY_SNAKEFILE = """
import sys
sys.path.insert(0, {repo!r})
config["results"] = "results"  # rules/common.smk reads the config's results folder (the Snakefile validates it)
include: {common!r}

rule all:
    input: "yaml_user.txt", "numpy_user.txt"

rule yaml_user:
    output: "yaml_user.txt"
    params: software_env=software_env("scripts/yaml_user.py")
    script: "scripts/yaml_user.py"

rule numpy_user:
    output: "numpy_user.txt"
    params: software_env=software_env("scripts/numpy_user.py")
    script: "scripts/numpy_user.py"
"""


@pytest.mark.integration
def test_a_changed_pin_reruns_the_jobs_that_import_it_and_no_other(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "yaml_user.py").write_text(
        "import yaml\nopen(snakemake.output[0], 'w').write(yaml.safe_dump({'a': 1}))\n"
    )
    (tmp_path / "scripts" / "numpy_user.py").write_text(
        "import numpy\nopen(snakemake.output[0], 'w').write(str(numpy.arange(3).sum()))\n"
    )
    (tmp_path / "Snakefile").write_text(
        TINY_SNAKEFILE.format(repo=str(REPO), common=str(REPO / "rules" / "common.smk"))
    )
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(RUNTIME.read_text())
    run_snakemake(tmp_path, cores=1, timeout=120, check=True)

    def planned() -> set[str]:
        result = run_snakemake(tmp_path, "-n", "--rerun-triggers", "params", "input", "--quiet", "rules",
                               cores=1, timeout=120, check=True)  # fmt: skip
        return {rule for rule in ("yaml_user", "numpy_user") if re.search(rf"^{rule}\b", result.stdout, re.M)}

    assert planned() == set()  # unchanged pins: nothing to do
    requirements.write_text(RUNTIME.read_text().replace("pyyaml==6.0.4", "pyyaml==6.0.5"))
    assert planned() == {"yaml_user"}
    # (not `--list-params-changes`: Snakemake 9.27 lists every output with recorded params there, changed or not)
    requirements.write_text(RUNTIME.read_text().replace("numpy==2.4.6", "numpy==2.4.7"))
    assert planned() == {"numpy_user"}  # and back: pyyaml's pin is the one the job ran with again
