"""The generate sections of config.yaml and paper.yaml pass the schema and build every backend's config."""

from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from workflow_scripts.common.config import load_config
from workflow_scripts.generate.generate import SamplingConfig, backend_config, model_input_paths

REPO = Path(__file__).resolve().parents[2]
SCHEMA = yaml.safe_load((REPO / "config/schema/generate.schema.yaml").read_text())


def _section(name):
    return yaml.safe_load((REPO / "config" / name).read_text())["generate"]


@pytest.mark.parametrize("files", [["config.yaml"], ["config.yaml", "paper.yaml"]], ids=["tiny", "paper"])
def test_generate_section_is_valid_and_builds(files):
    config = load_config(*(REPO / "config" / name for name in files))  # validated
    section = config["generate"]
    SamplingConfig(**section["sampling"])
    for name, entry in section["models"].items():
        backend_config(name, entry)
        assert all(isinstance(path, str) for path in model_input_paths(entry, config["results"]))


def test_paper_config_samples_as_the_paper_and_lists_its_models():
    # paper.yaml is read over config.yaml and sets only what differs; the rest are the schema's defaults
    section = load_config(REPO / "config/config.yaml", REPO / "config/paper.yaml")["generate"]
    assert section["sampling"] == {"n": 20, "temperature": 0.2, "top_p": 0.95, "max_new_tokens": 1024}
    assert {"codellama_7b", "codellama_13b", "codellama_34b", "starcoderbase", "phind_codellama_34b_v2",
            "gpt_3_5_turbo", "gpt_4", "hpc_coder_v2"} <= set(section["models"])  # fmt: skip
    assert any(m["backend"] == "openai" and m.get("base_url", "").startswith("http://127.0.0.1")
               for m in section["models"].values())  # a vLLM endpoint  # fmt: skip


def test_default_config_uses_the_projects_model_both_ways():
    models = _section("config.yaml")["models"]
    assert models["hpccoder"] == models["hpccoder"] | {"backend": "hf", "path": "results/hpccoder/model"}
    assert models["hpccoder_http"]["serve_local"] == "results/hpccoder/model"


@pytest.mark.parametrize(
    ("section", "where"),
    [
        ({"sampling": {"n": 0}}, "n"),
        ({"sampling": {"top_p": 1.5}}, "top_p"),
        ({"models": {"m": {"backend": "hf", "path": "x", "colour": "red"}}}, "colour"),
        ({"models": {"reference": {"backend": "hf", "path": "x"}}}, "reference"),
        ({"models": {"bad/name": {"backend": "hf", "path": "x"}}}, "bad/name"),
        ({"models": {"m": {"backend": "openai", "base_url": "127.0.0.1:8000"}}}, "base_url"),
    ],
)
def test_schema_rejects_bad_sections(section, where):
    errors = list(Draft202012Validator(SCHEMA).iter_errors(section))
    assert errors and any(where in (str(e.message) + str(list(e.absolute_path))) for e in errors)


@pytest.mark.parametrize(("kwargs", "field"), [({"n": 0}, "n"), ({"temperature": -1}, "temperature"),
                                               ({"top_p": 0}, "top_p"), ({"max_new_tokens": 0}, "max_new_tokens")])  # fmt: skip
def test_sampling_config_names_the_bad_field(kwargs, field):
    with pytest.raises(ValueError, match=f"generate.sampling.{field}="):
        SamplingConfig(**kwargs)
