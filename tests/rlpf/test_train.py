"""SFT, DPO and GRPO run end to end on a tiny model, from training tasks only; the evaluation scores."""

import pandas as pd
import pytest

from workflow_scripts.generate.tiny_model import build_tiny_model
from workflow_scripts.measure import MeasureConfig
from workflow_scripts.rlpf.candidates import candidate_completions
from workflow_scripts.rlpf.held_out import score
from workflow_scripts.rlpf.reward import Measurer, PerformanceReward, RewardConfig
from workflow_scripts.rlpf.tasks import TaskConfig, build_tasks, task_to_dict
from workflow_scripts.rlpf.train import TrainConfig, train

KERNELS = ["reduce_sum_of_min_pairs", "reduce_xor", "transform_squaring"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("rlpf_train")
    model_dir = build_tiny_model(root / "model", n_embd=32, n_positions=512)
    tasks = build_tasks(TaskConfig(kernels=KERNELS, held_out_kernels=1, task_sets=["omp"]), seed=3)
    rows = [{"task_id": t.task_id, "completion": c, "verdict": "ok", "reward": -0.1 * i}
            for t in tasks for i, c in enumerate(candidate_completions(t, 3))]
    return root, model_dir, tasks, pd.DataFrame(rows)


@pytest.mark.parametrize("method", ["sft", "dpo"])
def test_sft_and_dpo_train(setup, method):
    root, model_dir, tasks, candidates = setup
    cfg = TrainConfig(max_steps=2, learning_rate=1e-3, per_device_batch_size=4)
    model, tokenizer, history = train(method, start_model=model_dir, tasks=tasks, candidates=candidates, cfg=cfg,
                                      work_dir=root / method, seed=0, device="cpu")
    losses = [h["loss"] for h in history if "loss" in h]
    assert len(losses) == 2 and all(loss == loss for loss in losses)
    # TRL's configs turn gradient checkpointing on by default: for this model it only recomputes the forward.
    assert not model.is_activation_checkpointing


def test_grpo_sees_only_training_prompts_and_reports_constant_groups(setup, tmp_path):
    root, model_dir, tasks, _ = setup
    harness = MeasureConfig(reps=3, validations=3, run_timeout_s=20, cpu_limit_s=60)  # as RLPF measures
    measurer = Measurer(RewardConfig(cache_dir=tmp_path / "cache", measure=harness))
    seen = []

    class Recording(PerformanceReward):
        def __call__(self, prompts, completions, task_id, **kw):
            seen.extend(task_id)
            return super().__call__(prompts, completions, task_id, **kw)

    reward = Recording(measurer, tasks)
    cfg = TrainConfig(max_steps=2, learning_rate=1e-3, per_device_batch_size=4, num_generations=2,
                      max_completion_tokens=8, beta=0.04)
    model, _, history = train("rl", start_model=model_dir, tasks=tasks, candidates=None, cfg=cfg, work_dir=root / "rl",
                              seed=0, device="auto", reward_fn=reward)
    assert not model.is_activation_checkpointing
    held = {t.task_id for t in tasks if t.split == "held_out"}
    assert seen and held.isdisjoint(seen)
    assert [h for h in history if "reward" in h and "kl" in h]  # TRL logs the mean reward and the KL term
    # A random model writes no valid pragma: every group is constant (all malformed) and is reported as such.
    assert all(c["constant_groups"] == c["groups"] for c in reward.history)


def test_score_counts_failures_as_zero():
    table = pd.DataFrame({"task_id": ["a", "a", "b", "b"], "correct": [True, False, True, True],
                          "speedup": [2.0, None, 0.5, 1.5]})
    m = score(table, faster_margin=0.05)
    assert m["expected_speedup"] == pytest.approx(((2.0 + 0) / 2 + (0.5 + 1.5) / 2) / 2)
    assert m["expected_speedup_given_correct"] == pytest.approx((2.0 + 1.0) / 2)
    assert m["pass_at_1"] == pytest.approx((0.5 + 1.0) / 2)
    assert m["fraction_faster"] == pytest.approx((0.5 + 0.5) / 2)


def test_train_config_errors():
    with pytest.raises(ValueError, match="num_generations"):
        TrainConfig(max_steps=1, learning_rate=1e-3, per_device_batch_size=6, num_generations=4)
    with pytest.raises(ValueError, match="init"):
        TrainConfig(max_steps=1, learning_rate=1e-3, init="gpt4")


def test_reward_model_trains_and_scores_held_out_pairs(setup, tmp_path):
    from workflow_scripts.common import write_json
    from workflow_scripts.rlpf.reward_model import main as reward_model_main

    root, model_dir, tasks, candidates = setup
    write_json(tmp_path / "tasks.json", {"tasks": [task_to_dict(t) for t in tasks]})
    candidates.to_parquet(tmp_path / "cands.parquet")
    metrics = reward_model_main(tasks_path=tmp_path / "tasks.json", train_candidates=tmp_path / "cands.parquet",
                                held_out_candidates=tmp_path / "cands.parquet", model_dir=model_dir,
                                out_metrics=tmp_path / "rm.json",
                                cfg={"max_steps": 2, "learning_rate": 1e-3, "per_device_batch_size": 4}, seed=0,
                                device="cpu")  # fmt: skip
    assert metrics["train_pairs"] > 0 and metrics["held_out_pairs"] > 0
    assert metrics["device"] == "cpu"
    assert 0.0 <= metrics["held_out_accuracy"] <= 1.0
    assert (tmp_path / "rm.json.prov.json").exists()
