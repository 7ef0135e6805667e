"""The "Scoring your own model on PCGBench" recipe of docs/pcgbench.md (linked from the README), followed
literally: its config file and its one command, against a real OpenAI-compatible endpoint (the project's local
server with the tiny model, serving under the recipe's model name), on one problem; the numbers must land where
the page says, and the columns of results.parquet must be the ones its table documents."""

import json
import re
import shlex
import threading
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.conftest import run_snakemake
from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine
from workflow_scripts.generate.server import CompletionHandler, serve_in_thread
from workflow_scripts.pcgbench import load_generations

PCGBENCH_DOC = Path(__file__).resolve().parents[2] / "docs" / "pcgbench.md"

# Only what makes the test small (one problem, serial, short samples, quick timing); the recipe itself is the
# page's text.
SMALL = """
generate:
  sampling: {n: 2, max_new_tokens: 16}
pcgbench:
  problems: [reduce_average]
  models: [serial]
  generators: [reference]
  samples: 1
  evaluate: {max_cores: 1, ks: [1]}
measure: {warmup: 0, reps: 2, run_timeout_s: 60, timeout_floor_s: 3}
"""


def doc_section(title: str) -> str:
    text = PCGBENCH_DOC.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def recipe() -> tuple[str, list[str], list[str]]:
    """(the config file's text, the command's words, the documented results.parquet columns)."""
    section = doc_section("Scoring your own model on PCGBench")
    blocks = re.findall(r"```(\w*)\n(.*?)```", section, flags=re.S)
    (config,) = [body for lang, body in blocks if lang == "yaml" and body.startswith("# my-model.yaml")]
    # The tiny scale's command (the section also gives the paper scale's, on the cluster: results-paper/...).
    (command,) = [line for _, body in blocks for line in body.splitlines()
                  if line.startswith("snakemake ") and "results-paper/" not in line]  # fmt: skip
    columns = []
    for row in re.findall(r"^\| (`.+?) \|", section, flags=re.M):
        columns += re.findall(r"`([a-z_]+)`", row)
    return config, shlex.split(command), columns


class CountingHandler(CompletionHandler):
    requests = 0
    lock = threading.Lock()

    def do_POST(self):  # noqa: N802 -- the base class's name
        with CountingHandler.lock:
            CountingHandler.requests += 1
        super().do_POST()


@pytest.mark.integration
def test_the_documented_recipe_scores_an_openai_compatible_endpoint(tiny_model_dir, workflow_dir):
    config_text, command, documented_columns = recipe()
    served = yaml.safe_load(config_text)["generate"]["models"]["my_model"]
    assert served["backend"] == "openai" and command[:2] == ["snakemake", "results/pcgbench/my_model/metrics.json"]
    engine = HFEngine.load(HFBackendConfig(path=str(tiny_model_dir)))
    with serve_in_thread(engine, model_name=served["model"], handler_class=CountingHandler) as base_url:
        # the one edit a reader makes too: where their server listens
        (workflow_dir / "my-model.yaml").write_text(config_text.replace(served["base_url"], base_url))
        (workflow_dir / "small.yaml").write_text(SMALL)
        result = run_snakemake(workflow_dir, *command[1:], "small.yaml", timeout=600)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    assert CountingHandler.requests >= 1  # the samples came over HTTP

    records = load_generations(workflow_dir / "results/generate/pcgbench/my_model.json")
    assert [(r["name"], len(r["outputs"])) for r in records] == [("reduce_average", 2)]
    metrics = json.loads((workflow_dir / "results/pcgbench/my_model/metrics.json").read_text())
    serial = metrics["by_model"]["my_model"]["serial"]
    assert {"pass@1", "build@1", "expected_speedup"} <= set(serial) and 0.0 <= serial["pass@1"] <= 1.0
    assert sum(metrics["verdict_counts"]["my_model"].values()) == 2
    assert (workflow_dir / "results/pcgbench/my_model/metrics.csv").stat().st_size > 0
    results = pd.read_parquet(workflow_dir / "results/pcgbench/my_model/results.parquet")
    assert set(results["generator"]) == {"my_model"} and results["sample_id"].nunique() == 2
    # the page's table documents exactly the columns the evaluation writes
    assert sorted(documented_columns) == sorted(results.columns)
