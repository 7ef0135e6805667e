"""The rlpf sections of the tiny and paper runs pass the schema and build every component's dataclass."""


import dataclasses

import pytest
import yaml

from tests.conftest import copy_workflow, run_snakemake
from workflow_scripts.common.config import (
    SCHEMA_PATH,
    explain_config_errors,
    load_config,
    schema_section,
    section_errors,
)
from workflow_scripts.measure import MeasureConfig
from workflow_scripts.rlpf.held_out import HeldOutConfig
from workflow_scripts.rlpf.reward import RewardConfig
from workflow_scripts.rlpf.reward_model import RewardModelConfig
from workflow_scripts.rlpf.tasks import TaskConfig
from workflow_scripts.rlpf.train import TrainConfig


@pytest.mark.parametrize("files", [["config.yaml"], ["config.yaml", "small.yaml"], ["config.yaml", "paper.yaml"]],
                         ids=["tiny", "small", "paper"])  # fmt: skip
def test_rlpf_section(repo_root, files):
    config = load_config(*(repo_root / "config" / name for name in files))  # validated
    section = config["rlpf"]
    assert {"tasks", "reward", "sft", "dpo", "rl", "held_out", "reward_model"} <= set(section)
    TaskConfig(**section["tasks"])
    RewardConfig.from_config(section["reward"], config["measure"], seed=config["seed"],
                             cache_dir=section["cache_dir"])  # fmt: skip
    for method in ("sft", "dpo", "rl"):
        TrainConfig(**section[method])
    HeldOutConfig(**section["held_out"])
    RewardModelConfig(**section["reward_model"])


def test_the_reward_measures_with_the_engines_settings_and_its_overrides(repo_root):
    """RLPF's reward measures with the section `measure`, rlpf.reward.measure's keys on top: in the tiny config more
    repetitions and validations and shorter limits than the evaluation's, everything else the evaluation's."""
    config = load_config(repo_root / "config" / "config.yaml")
    cfg = RewardConfig.from_config(config["rlpf"]["reward"], config["measure"], seed=config["seed"],
                                   cache_dir="unused")  # fmt: skip
    evaluation = MeasureConfig(**config["measure"], seed=config["seed"])
    overrides = {"reps": 10, "validations": 3, "run_timeout_s": 20, "cpu_limit_s": 60}
    assert {key: getattr(cfg.measure, key) for key in overrides} == overrides
    assert dataclasses.replace(cfg.measure, **{key: getattr(evaluation, key) for key in overrides}) == evaluation
    limits = cfg.measure.limits()  # no reference time: the fixed run_timeout_s
    assert (limits.wall_s, limits.cpu_limit_s, limits.max_processes) == (20, 60, evaluation.max_processes)


def test_no_measure_key_is_declared_twice():
    """rlpf.reward holds the reward's own keys only; the engine's are the section measure's, overridden in
    rlpf.reward.measure, which is validated as the section measure."""
    reward, measure = schema_section("rlpf.reward")["properties"], schema_section("measure")["properties"]
    assert set(reward) == {"build_error_reward", "wrong_reward", "slow_floor_reward", "measure"}
    assert not set(reward) & set(measure)


def test_an_unknown_measure_override_is_named(repo_root):
    config = load_config(repo_root / "config" / "config.yaml")
    config["rlpf"]["reward"]["measure"]["repz"] = 3
    [problem] = explain_config_errors(config, SCHEMA_PATH)  # what the Snakefile prints
    assert problem.startswith("config: unknown key 'rlpf.reward.measure.repz' (known keys: cache_dir, ")
    with pytest.raises(ValueError, match=r"^rlpf.reward.measure.repz: not a key of measure"):
        RewardConfig.from_config(config["rlpf"]["reward"], config["measure"], seed=1, cache_dir="x")
    config["rlpf"]["reward"]["measure"] = {"reps": 0}
    with pytest.raises(ValueError, match=r"^rlpf.reward.measure.reps: 0 is less than the minimum of 1"):
        RewardConfig.from_config(config["rlpf"]["reward"], config["measure"], seed=1, cache_dir="x")


def test_a_measure_key_left_in_the_reward_section_is_pointed_to_its_place(repo_root):
    """A config written before the reward read the engine's settings names rlpf.reward.measure; a key the
    engine does not know either gets no such hint."""
    config = load_config(repo_root / "config" / "config.yaml")
    config["rlpf"]["reward"]["reps"] = 10
    [problem] = explain_config_errors(config, SCHEMA_PATH)
    assert problem.startswith("config: unknown key 'rlpf.reward.reps' (known keys: ")
    assert problem.endswith("; they are settings of 'rlpf.reward.measure': move them there")
    del config["rlpf"]["reward"]["reps"]
    config["rlpf"]["reward"]["repz"] = 10
    [problem] = explain_config_errors(config, SCHEMA_PATH)
    assert "move them" not in problem


def test_schema_refuses_unknown_keys(repo_root):
    section = yaml.safe_load((repo_root / "config/config.yaml").read_text())["rlpf"]
    # The schema with the files it refers to (rlpf.reward.measure is validated as the section measure).
    problems = section_errors("rlpf", section | {"rl": section["rl"] | {"lr": 0.1}}, key="rlpf")
    assert len(problems) == 1 and "'lr' was unexpected" in problems[0], problems


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


def test_a_config_of_the_settings_before_the_engine_had_its_section_is_told_where_they_went(repo_root):
    """The engine's settings were keys of pcgbench.evaluate, and the studies' overrides of them were `harness`."""
    config = load_config(repo_root / "config" / "config.yaml")
    config["pcgbench"]["evaluate"]["reps"] = 9
    [problem] = explain_config_errors(config, SCHEMA_PATH)
    assert problem.startswith("config: unknown key 'pcgbench.evaluate.reps' (known keys: ")
    assert problem.endswith("they are settings of the section 'measure' (the measurement engine's): move them there")
    del config["pcgbench"]["evaluate"]["reps"]
    config["rlpf"]["reward"]["harness"] = config["rlpf"]["reward"].pop("measure")
    [problem] = explain_config_errors(config, SCHEMA_PATH)
    assert problem.startswith("config: unknown key 'rlpf.reward.harness'") and problem.endswith("renamed 'rlpf.reward.measure'")


def test_a_config_with_rlpf_evaluate_is_told_it_was_renamed(repo_root):
    """RLPF's evaluation on the held-out tasks was `rlpf.evaluate` (PCGBench's evaluation is pcgbench.evaluate)."""
    config = load_config(repo_root / "config" / "config.yaml")
    config["rlpf"]["evaluate"] = config["rlpf"].pop("held_out")
    [problem] = explain_config_errors(config, SCHEMA_PATH)
    assert problem.startswith("config: unknown key 'rlpf.evaluate'") and problem.endswith("renamed 'rlpf.held_out'")
    assert "\n" not in problem


def test_a_config_with_rlpf_tasks_held_out_is_told_it_was_renamed(repo_root):
    """The number of held-out kernels was `rlpf.tasks.held_out`; `rlpf.held_out` is the held-out evaluation's
    section, so the count is `rlpf.tasks.held_out_kernels` (the name summary.json gives the kernels)."""
    config = load_config(repo_root / "config" / "config.yaml")
    tasks = config["rlpf"]["tasks"]
    tasks["held_out"] = 6  # an older override file merged onto the current config: the old key beside the new
    [problem] = explain_config_errors(config, SCHEMA_PATH)
    assert problem.startswith("config: unknown key 'rlpf.tasks.held_out' (known keys: ")
    assert problem.endswith("renamed 'rlpf.tasks.held_out_kernels'") and "\n" not in problem
    tasks.pop("held_out_kernels")  # a whole config of before: the new key is missing as well, and is named
    problems = explain_config_errors(config, SCHEMA_PATH)
    assert problem in problems and any("'held_out_kernels' is a required property" in p for p in problems)
    with pytest.raises(TypeError, match="held_out"):
        TaskConfig(**tasks)
