"""Snakemake runs the generate rules in a temporary copy of the repository (tiny model, two prompts)."""

import json

import pytest
import yaml

from tests.conftest import run_snakemake
from workflow_scripts.generate.summary import body_closes
from workflow_scripts.generate.summary import main as summarize
from workflow_scripts.pcgbench import load_generations


@pytest.mark.integration
def test_snakemake_generates_and_summarizes(tiny_model_dir, prompts_file, workflow_dir, tmp_path):
    work = workflow_dir
    # --configfile merges into config.yaml: new names for the prompt set and models, absolute paths.
    override = {"generate": {
        "prompt_sets": {"fixture": str(prompts_file)},
        "sampling": {"n": 2, "temperature": 0.2, "top_p": 0.95, "max_new_tokens": 8},
        # The HTTP path (serve_local) runs through the same script; its tests call main() directly.
        "models": {"tiny": {"backend": "hf", "path": str(tiny_model_dir), "batch_size": 4}},
    }}  # fmt: skip
    (work / "override.yaml").write_text(yaml.safe_dump(override))
    targets = ["results/generate/fixture/tiny.json"]
    result = run_snakemake(work, *targets, "--configfile", "override.yaml", timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    for target in targets:
        records = load_generations(work / target)
        assert [len(r["outputs"]) for r in records] == [2, 2]
        assert records[0]["sampling"]["n"] == 2 and records[0]["sampling"]["seed"] == 1234
        assert (work / target.replace(".json", ".stats.json")).exists()
    assert (work / "results/generate/logs/fixture/tiny.log").read_text().count("batch 1/1") == 1

    summary = summarize([work / t.replace(".json", ".stats.json") for t in targets], [work / t for t in targets],
                        tmp_path / "summary.json", tmp_path / "generation.png")  # fmt: skip
    assert [(r["prompt_set"], r["model"], r["samples"]) for r in summary["runs"]] == [("fixture", "tiny", 4)]
    assert json.loads((tmp_path / "summary.json").read_text()) == summary
    assert (tmp_path / "generation.png").stat().st_size > 1000


@pytest.mark.parametrize(("body", "closes"), [(" return 1;\n}", True), (" if (x) {\n return 1;\n}", False),
                                              (" return 1;\n}\nint g() {}", False)])  # fmt: skip
def test_body_closes(body, closes):
    assert body_closes(body) is closes
