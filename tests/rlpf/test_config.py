"""The rlpf sections of the tiny and paper configs pass the schema and build every component's dataclass."""

import jsonschema
import pytest
import yaml

from workflow_scripts.rlpf.evaluate import EvalConfig
from workflow_scripts.rlpf.reward import RewardConfig
from workflow_scripts.rlpf.reward_model import RewardModelConfig
from workflow_scripts.rlpf.task import TaskConfig
from workflow_scripts.rlpf.train import TrainConfig


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml"])
def test_rlpf_section(repo_root, name):
    section = yaml.safe_load((repo_root / "config" / name).read_text())["rlpf"]
    schema = yaml.safe_load((repo_root / "config/schema/rlpf.schema.yaml").read_text())
    jsonschema.validate(section, schema)
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
