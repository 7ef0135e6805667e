"""`pip install .` gives a working package: the wheel declares the runtime pins (and the dev extra), carries the
config schema and the PCGBench problems, and, installed away from the checkout, loads a config and writes
PCGBench prompts."""

import json
import os
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from workflow_scripts.common.software_env import read_pins

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # a copy of the sources, so that building leaves no build/ or egg-info in the checkout
    source = out / "src"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split("\n")  # fmt: skip
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes((REPO / name).read_bytes())
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w",
                    str(out), str(source)], check=True, timeout=300)  # fmt: skip
    (found,) = out.glob("parperf_repro-*.whl")
    return found


def test_the_wheel_declares_the_pins_and_carries_the_project_files(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
    requires = metadata.get_all("Requires-Dist")
    runtime = {r for r in requires if "extra ==" not in r}
    dev = {r.split(";")[0].strip() for r in requires if 'extra == "dev"' in r}
    assert {r.split("==")[0].split("[")[0] for r in runtime} >= set(read_pins(REPO / "requirements.txt")) - {"snakemake"}
    assert any(r.startswith("snakemake[reports]==") for r in runtime)
    assert {d.split("==")[0] for d in dev} == set(read_pins(REPO / "requirements-dev.txt"))
    assert "workflow_scripts/_project/config/schema/config.schema.yaml" in names
    assert "workflow_scripts/_project/data/pcgbench/reduce_average/problem.yaml" in names
    assert "workflow_scripts/common/software_env.py" in names


def test_the_installed_package_works_away_from_the_checkout(wheel, tmp_path):
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(site),
                    str(wheel)], check=True, timeout=300)  # fmt: skip
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"} | {"PYTHONPATH": str(site)}
    probe = (
        "import workflow_scripts, json; from workflow_scripts.common.config import SCHEMA_PATH, load_config;"
        "from workflow_scripts.measure import suite;"
        "print(json.dumps([workflow_scripts.__file__, str(SCHEMA_PATH), str(suite.DATA_ROOT),"
        " load_config(suite.REPO_ROOT / 'config' / 'config.yaml')['seed']]))"
    )
    # -P: the working folder (tmp_path) is not put on sys.path, and nothing of the checkout is
    found = subprocess.run([sys.executable, "-P", "-c", probe], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)  # fmt: skip
    assert found.returncode == 0, found.stderr[-3000:]
    package, schema, data, seed = json.loads(found.stdout.splitlines()[-1])
    assert package.startswith(str(site)) and schema.startswith(str(site)) and data.startswith(str(site))
    assert isinstance(seed, int)
    prompts = subprocess.run([sys.executable, "-P", "-m", "workflow_scripts.pcgbench", "export-prompts", "p.json",
                              "--problems", "reduce_average", "--models", "serial,omp"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert prompts.returncode == 0, prompts.stderr[-3000:]
    records = json.loads((tmp_path / "p.json").read_text())
    assert [(r["name"], r["parallelism_model"]) for r in records] == [("reduce_average", "serial"),
                                                                       ("reduce_average", "omp")]
