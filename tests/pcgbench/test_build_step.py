"""The pcgbench_build rule's step (pcgbench/build.py main): a generations file built through the engine's build
cache, its manifest written."""

import json

from workflow_scripts.measure import suite
from workflow_scripts.pcgbench import build as pcgbench_build
from workflow_scripts.pcgbench.pareval_format import prompt_record


def test_build_step_builds_a_generations_file_and_writes_its_manifest(tmp_path, problem):
    """pcgbench/build.py main, the pcgbench_build rule's step, reads samples through samples.py (not the evaluation)."""
    record = prompt_record(problem, "serial") | {"outputs": [suite.reference_body(problem, "serial"), "  return x\n}\n"]}
    generations = tmp_path / "gen.json"
    generations.write_text(json.dumps([record]))
    entries = pcgbench_build.main(generations, tmp_path / "manifest.json", tmp_path / "cache", jobs=2, compile_timeout_s=60.0,
                         generator="gen", seed=1)  # fmt: skip
    assert [e["ok"] for e in entries] == [True, False]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["generator"] == "gen" and len(manifest["samples"]) == 2
