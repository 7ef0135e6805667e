"""The rlpf sections of the tiny and paper runs pass the schema and build every component's dataclass."""


import jsonschema
import pytest
import yaml

from tests.conftest import copy_workflow, run_snakemake
from workflow_scripts.common.config import load_config
from workflow_scripts.rlpf.evaluate import EvalConfig
from workflow_scripts.rlpf.reward import RewardConfig
from workflow_scripts.rlpf.reward_model import RewardModelConfig
from workflow_scripts.rlpf.tasks import TaskConfig
from workflow_scripts.rlpf.train import TrainConfig


@pytest.mark.parametrize("files", [["config.yaml"], ["config.yaml", "small.yaml"], ["config.yaml", "paper.yaml"]],
                         ids=["tiny", "small", "paper"])  # fmt: skip
def test_rlpf_section(repo_root, files):
    section = load_config(*(repo_root / "config" / name for name in files))["rlpf"]  # validated
    assert {"tasks", "reward", "sft", "dpo", "rl", "evaluate", "reward_model"} <= set(section)
    TaskConfig(**section["tasks"])
    RewardConfig(cache_dir=section["cache_dir"], **section["reward"])
    for method in ("sft", "dpo", "rl"):
        TrainConfig(**section[method])
    EvalConfig(**section["evaluate"])
    RewardModelConfig(**section["reward_model"])


def test_schema_refuses_unknown_keys(repo_root):
    section = yaml.safe_load((repo_root / "config/config.yaml").read_text())["rlpf"]
    schema = yaml.safe_load((repo_root / "config/schema/rlpf.schema.yaml").read_text())
    with pytest.raises(jsonschema.ValidationError, match="lr"):
        jsonschema.validate(section | {"rl": section["rl"] | {"lr": 0.1}}, schema)


@pytest.mark.integration
def test_dpo_starts_from_the_sft_model_by_default(tmp_path):
    """DPO (and RL) fine-tune the SFT model, as DPO is usually run; `rlpf.dpo.init: base` would skip SFT."""
    workdir = copy_workflow(tmp_path / "wf")
    planned = run_snakemake(workdir, "-n", "results/rlpf/models/dpo", "--quiet", "rules", cores=1, timeout=300)
    assert planned.returncode == 0, planned.stderr[-2000:]
    assert "rlpf_sft" in planned.stdout and "rlpf_dpo" in planned.stdout


@pytest.mark.integration
def test_another_base_model_replaces_hpccoder_as_rlpf_base(tmp_path):
    """`rlpf.base_model` (a model source: here a .gguf file) is the SFT's input and the evaluation's base row, and
    HPC-Coder is not trained for it."""
    workdir = copy_workflow(tmp_path / "wf")
    (workdir / "models").mkdir()
    (workdir / "models" / "base.Q4_1.gguf").write_bytes(b"GGUF")  # planning only: never loaded
    (workdir / "base.yaml").write_text("rlpf: {base_model: models/base.Q4_1.gguf}\n")
    planned = run_snakemake(workdir, "-n", "-p", "results/rlpf/models/sft", "results/rlpf/eval/base/metrics.json",
                            "--configfile", "config/config.yaml", "base.yaml", cores=1, timeout=300)  # fmt: skip
    assert planned.returncode == 0, planned.stderr[-2000:]
    assert "rule rlpf_sft:" in planned.stdout and "rule hpccoder_pretrain:" not in planned.stdout
    assert "models/base.Q4_1.gguf" in planned.stdout
