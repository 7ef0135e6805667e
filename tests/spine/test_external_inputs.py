"""Inputs a config names that no rule makes (model folders, data sets, clones, API keys) are listed while
planning, with their config keys; what exists, what the workflow makes and what the config does not use is not."""

from pathlib import Path

from workflow_scripts.common.config import load_config
from workflow_scripts.common.external_inputs import missing_external_inputs, warning_text

REPO = Path(__file__).resolve().parents[2]


def paper_config():
    return load_config(REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml")


def keys(problems):
    return {line.split(":")[0] for line in problems}


def test_the_tiny_config_needs_nothing_from_outside(tmp_path):
    assert missing_external_inputs(load_config(REPO / "config" / "config.yaml"), REPO) == []
    assert warning_text([]) == ""


def test_the_paper_config_names_each_missing_input_with_its_key(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    problems = missing_external_inputs(paper_config(), tmp_path)
    assert keys(problems) == {
        "generate.models.codellama_7b.path", "generate.models.codellama_13b.path",
        "generate.models.starcoderbase.path", "generate.models.phind_codellama_34b_v2.path",
        "generate.models.hpc_coder_v2.path", "generate.models.gpt_3_5_turbo.api_key_env",
        "generate.models.gpt_4.api_key_env", "hpccoder.model.init_from", "jorge.tasks.image.npz_path",
        "corpus.sources[13].url",
    }  # fmt: skip
    # results/... paths are made by the workflow (the HPC-Coder model), never reported
    assert not any("results/" in line for line in problems)
    assert "models/CodeLlama-7b-hf does not exist" in warning_text(problems)


def test_what_is_fetched_or_set_is_no_longer_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "models" / "CodeLlama-7b-hf").mkdir(parents=True)
    (tmp_path / "data" / "jorge").mkdir(parents=True)
    (tmp_path / "data" / "jorge" / "imagenet32.npz").write_bytes(b"")
    found = keys(missing_external_inputs(paper_config(), tmp_path))
    assert not found & {"generate.models.codellama_7b.path", "jorge.tasks.image.npz_path",
                        "generate.models.gpt_4.api_key_env"}  # fmt: skip
    assert "generate.models.codellama_13b.path" in found


def test_real_monitoring_files_are_checked_only_when_the_source_uses_them(tmp_path):
    config = load_config(REPO / "config" / "config.yaml")
    config["monitoring"]["real"] |= {"job_table": "site/jobs.csv", "run_table": "site/runs.csv"}
    assert missing_external_inputs(config, tmp_path) == []  # source: synthetic
    config["monitoring"]["source"] = "runtimes"
    assert keys(missing_external_inputs(config, tmp_path)) == {"monitoring.real.run_table"}
    config["monitoring"]["source"] = "ldms"
    assert {"monitoring.real.job_table", "monitoring.real.run_table"} <= keys(missing_external_inputs(config, tmp_path))


def test_model_sources_are_checked_as_files_and_a_pypi_one_is_left_to_the_workflow(tmp_path):
    """The small config's base model is a PyPI-shipped GGUF (rule fetch_model makes it); a GGUF source or an RLPF
    base given as a local file is reported while it is missing."""
    small = load_config(REPO / "config" / "config.yaml", REPO / "config" / "small.yaml")
    assert missing_external_inputs(small, tmp_path) == []
    small["hpccoder"]["model"]["init_from"] = {"gguf": "models/base.Q4_1.gguf", "sha256": "0" * 64}
    small["rlpf"]["base_model"] = "models/code-base"
    problems = missing_external_inputs(small, tmp_path)
    assert keys(problems) == {"hpccoder.model.init_from", "rlpf.base_model"}
    assert "models/base.Q4_1.gguf does not exist" in warning_text(problems)
