"""Tokenizer, a few Trainer steps of a tiny model, save_pretrained round trip, the pragma task end to end, and the
study's summary and figures drawn from those metrics."""

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from workflow_scripts.common import read_json, write_json
from workflow_scripts.hpccoder import code_completion, figures, pragma, pretrain, tokenizer
from workflow_scripts.hpccoder import summary as hpccoder_summary
from workflow_scripts.hpccoder.pretrain import ModelConfig, TrainingConfig

from .test_perfchange import COMPLETION_ROWS
from .test_pragma import FASTTREE, NESTED_AND_REDUCTION, SUNDIALS

TRAIN_TEXTS = [FASTTREE, NESTED_AND_REDUCTION, SUNDIALS.replace("LinearSum", "Scale")] * 6
VALIDATION_TEXTS = [SUNDIALS] * 4
ZERO2 = Path(__file__).resolve().parents[2] / "config" / "deepspeed" / "zero2.json"  # the paper config's DeepSpeed file


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("hpccoder")
    pd.DataFrame({"repo": "fasttree", "path": [f"f{i}.c" for i in range(len(TRAIN_TEXTS))], "text": TRAIN_TEXTS}).to_parquet(
        root / "train.parquet")
    pd.DataFrame({"repo": "sundials", "path": [f"s{i}.c" for i in range(len(VALIDATION_TEXTS))], "text": VALIDATION_TEXTS}).to_parquet(
        root / "validation.parquet")
    tokenizer.main(root / "train.parquet", root / "tokenizer", {"vocab_size": 400, "min_frequency": 2}, None, seed=5)
    model = {"architecture": "gpt2", "n_layer": 1, "n_head": 2, "n_embd": 32, "context_tokens": 64}
    training = {"max_steps": 4, "per_device_batch_size": 4, "eval_steps": 2, "logging_steps": 1, "warmup_steps": 1,
                "max_eval_sequences": 8}  # fmt: skip
    metrics = pretrain.main(root / "train.parquet", root / "validation.parquet", root / "tokenizer", root / "model",
                            root / "metrics.json", model, training, seed=5, threads=1)  # fmt: skip
    return root, metrics


def test_tokenizer_round_trips_code(trained):
    from transformers import AutoTokenizer

    root, _ = trained
    tok = AutoTokenizer.from_pretrained(root / "tokenizer", local_files_only=True)
    ids = tok(SUNDIALS, add_special_tokens=False)["input_ids"]
    assert tok.decode(ids) == SUNDIALS  # byte-level BPE: lossless, whitespace included
    assert len(ids) < len(SUNDIALS.encode())  # merges were learned from the corpus
    assert tok.eos_token == tokenizer.END_OF_TEXT and tok.pad_token == tokenizer.PAD


def test_pretrain_saves_a_loadable_model_and_its_curves(trained):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    root, metrics = trained
    assert metrics["steps"] == 4 and metrics["tokens_seen"] == 4 * 4 * 64
    assert math.isfinite(metrics["validation_perplexity"]) and metrics["validation_perplexity"] > 1
    assert [h["step"] for h in metrics["log_history"] if "loss" in h][:2] == [1, 2]
    # The loss per character: every position but each sequence's first is predicted (the pad token is not in the
    # text), and the characters are those of the evaluated text (SUNDIALS repeated, end-of-text has none).
    sequences = metrics["validation_sequences"]
    assert metrics["validation_predicted_tokens"] == sequences * 63
    # Counted another way: decode each predicted token of the evaluated sequences (SUNDIALS is ASCII, so no token
    # splits a character) and add up the lengths.
    tok = AutoTokenizer.from_pretrained(root / "tokenizer", local_files_only=True)
    assert SUNDIALS.isascii()
    ids = []
    for _ in VALIDATION_TEXTS:
        ids += tok(SUNDIALS, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    blocks = [ids[i * 64:(i + 1) * 64] for i in range(sequences)]
    decoded = sum(len(tok.decode(block[1:], skip_special_tokens=True)) for block in blocks)
    assert metrics["validation_characters"] == decoded
    assert metrics["validation_loss_per_char"] == pytest.approx(
        metrics["validation_loss"] * metrics["validation_predicted_tokens"] / metrics["validation_characters"])
    assert any("eval_loss" in h for h in metrics["log_history"])
    assert read_json(root / "metrics.json")["parameters"] == metrics["parameters"]
    model = AutoModelForCausalLM.from_pretrained(root / "model", local_files_only=True)
    tok = AutoTokenizer.from_pretrained(root / "model", local_files_only=True)
    assert model.config.n_positions == 64 and model.config.vocab_size == len(tok)
    assert (root / "model.prov.json").exists()


@pytest.fixture(scope="module")
def pragma_run(trained):
    root, _ = trained
    out = root / "pragma"
    metrics = pragma.main(root / "train.parquet", root / "validation.parquet", root / "model", out / "dataset.parquet",
                          out / "predictions.parquet", out / "metrics.json", {"finetune_steps": 2, "max_new_tokens": 8},
                          seed=5, threads=1)  # fmt: skip
    return out, metrics


def test_pragma_task_end_to_end_on_the_tiny_model(pragma_run):
    out, metrics = pragma_run
    assert metrics["test_loops"] == 1 and metrics["train_loops"] == 4 and metrics["test_repositories"] == ["sundials"]
    assert len(metrics["finetune_losses"]) == 2
    assert set(metrics["model"]) == set(metrics["categories"])
    assert 0.0 <= metrics["model"]["all_clauses"] <= metrics["model"]["directive"] <= 1.0
    # The bare directive has the right directive but none of SUNDIALS's clauses.
    assert metrics["baseline_bare"]["directive"] == 1.0 and metrics["baseline_bare"]["exact"] == 0.0
    assert len(pd.read_parquet(out / "predictions.parquet")) == 1


@pytest.fixture
def metrics_files(trained, pragma_run, tmp_path):
    """Figure name -> the metrics file its rule reads: pretraining and pragma from the tiny run above, completion
    from harness rows, performance change in the shape perfchange.main writes (that step times real programs)."""
    root, _ = trained
    pragma_dir, _ = pragma_run
    write_json(tmp_path / "completion.json", code_completion.completion_metrics(COMPLETION_ROWS, ["serial", "omp"], ks=[1, 2]))
    edits = {"pragma_removed": 1.0, "schedule_static": 0.5}
    write_json(tmp_path / "perfchange.json", {
        "pairs": 8, "kernels": 2, "problems": ["reduce_average", "stencil_xor_kernel"], "slower_fraction": 0.25,
        "accuracy": {"hpccoder_head": 0.75, "feature_baseline": 0.625, "majority_baseline": 0.5},
        "accuracy_by_edit": {name: edits for name in ("hpccoder_head", "feature_baseline", "majority_baseline")},
        "scoring": "leave-one-problem-out cross-validation",
    })  # fmt: skip
    # The comparison figure is drawn from a summary with a from-scratch block (here the same metrics twice).
    scratch = {"pretrain": root / "metrics.json", "pragma": pragma_dir / "metrics.json",
               "completion": tmp_path / "completion.json", "perfchange": tmp_path / "perfchange.json"}
    hpccoder_summary.main(root / "metrics.json", pragma_dir / "metrics.json", tmp_path / "summary.json", seed=5,
                    completion_metrics_path=tmp_path / "completion.json", perfchange_metrics_path=tmp_path / "perfchange.json",
                    from_scratch=scratch)  # fmt: skip
    return {"pretraining_loss": root / "metrics.json", "pragma_prediction": pragma_dir / "metrics.json",
            "code_completion": tmp_path / "completion.json", "performance_change": tmp_path / "perfchange.json",
            "from_scratch_vs_pretrained": tmp_path / "summary.json"}


@pytest.mark.parametrize("figure", sorted(hpccoder_summary.FIGURES))
def test_each_figure_is_drawn_from_its_metrics_alone(figure, metrics_files, tmp_path):
    output = tmp_path / "figures" / f"{figure}.png"
    figures.main(figure=figure, output=output, metrics_path=metrics_files[figure])
    assert output.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and output.stat().st_size > 1000
    assert sorted(p.name for p in output.parent.iterdir()) == [output.name, f"{output.name}.prov.json"]
    with pytest.raises(ValueError, match="'loss_curve'.*pretraining_loss, pragma_prediction"):
        figures.main(figure="loss_curve", output=tmp_path / "x.png", metrics_path=metrics_files[figure])


def test_summary_carries_the_headline_numbers(trained, pragma_run, metrics_files, tmp_path):
    _, pretrain_metrics = trained
    _, pragma_metrics = pragma_run
    summary = hpccoder_summary.main(metrics_files["pretraining_loss"], metrics_files["pragma_prediction"],
                              tmp_path / "summary.json", seed=5,
                              completion_metrics_path=metrics_files["code_completion"])  # fmt: skip
    assert read_json(tmp_path / "summary.json") == summary
    assert summary["pretraining"]["validation_perplexity"] == pretrain_metrics["validation_perplexity"]
    assert summary["pragma_prediction"]["exact_match"] == pragma_metrics["model"]["exact"]
    assert summary["code_completion"]["models"]["serial"]["pass@1"] == pytest.approx(0.5)
    assert summary["performance_change"] is None  # not run: stated, not dropped
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".png"] == []  # figures are their own rules


def test_configs_reject_bad_values_naming_the_field(tmp_path):
    with pytest.raises(ValueError, match="n_embd 30 must be divisible by n_head 4"):
        ModelConfig(n_embd=30, n_head=4)
    with pytest.raises(ValueError, match="architecture: 'bert'"):
        ModelConfig(architecture="bert")
    with pytest.raises(ValueError, match="init_from: .* is not a folder"):
        ModelConfig(init_from=str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match="deepspeed: .* is not a file"):
        TrainingConfig(deepspeed=str(tmp_path / "zero2.json"))
    with pytest.raises(ValueError, match="vocab_size"):
        tokenizer.TokenizerConfig(vocab_size=100)


@pytest.mark.multiprocess
def test_two_processes_relaunch_under_torchrun(trained, tmp_path):
    """nproc_per_node > 1 relaunches the step under torchrun (gloo on CPU); rank 0 writes the model, and the
    ranks' log lines reach the rule's log."""
    root, _ = trained
    model = {"architecture": "llama", "n_layer": 1, "n_head": 2, "n_embd": 32, "context_tokens": 64}
    training = {"max_steps": 2, "per_device_batch_size": 2, "eval_steps": 2, "logging_steps": 1, "warmup_steps": 1,
                "max_eval_sequences": 4, "nproc_per_node": 2}  # fmt: skip
    returned = pretrain.main(root / "train.parquet", root / "validation.parquet", root / "tokenizer", tmp_path / "model",
                             tmp_path / "metrics.json", model, training, seed=5, threads=1,
                             log_path=tmp_path / "rule.log")  # fmt: skip
    assert returned is None  # the parent only launched the ranks
    metrics = read_json(tmp_path / "metrics.json")
    assert metrics["world_size"] == 2 and metrics["tokens_seen"] == 2 * 2 * 2 * 64  # steps x ranks x batch x context
    assert metrics["device"] == "cpu" and read_json(tmp_path / "metrics.json.prov.json")["device"] == "cpu"
    log = (tmp_path / "rule.log").read_text()
    assert "trained 2 steps" in log  # rank 0's summary line
    # The Trainer's steps with an estimate, from rank 0 only (the callback of common/progress.py).
    assert log.count("pretraining steps [0/2] started") == 1 and log.count("pretraining steps [2/2] finished") == 1
    assert re.search(r"pretraining steps \[1/2\] .*elapsed \S+, ~\S+ left", log), log[-3000:]
    assert (tmp_path / "model" / "model.safetensors").exists() and not (tmp_path / "model.partial").exists()


@pytest.mark.multiprocess
def test_deepspeed_zero2_on_cpu_under_torchrun(trained, tmp_path):
    """The paper's path (DeepSpeed ZeRO-2 from config/deepspeed/zero2.json, torchrun) on 2 CPU processes with gloo:
    a few steps, a finite loss, and a model saved with save_pretrained that reloads.

    The file's "optimizer" block is dropped: DeepSpeed's AdamW is its fused op, which on CPU is compiled on first
    use (over a minute here); without the block the Trainer hands DeepSpeed torch's AdamW, and ZeRO-2 still
    partitions its state. DeepSpeed's CPU collectives op (deepspeed_shm_comm) is compiled on first use too and
    cannot be switched off; it is cached under ~/.cache/torch_extensions, so only a machine's first run pays.
    """
    from transformers import AutoModelForCausalLM

    root, _ = trained
    zero2 = json.loads(ZERO2.read_text())
    assert zero2["zero_optimization"]["stage"] == 2
    del zero2["optimizer"]
    (tmp_path / "zero2.json").write_text(json.dumps(zero2))
    model = {"architecture": "gpt2", "n_layer": 1, "n_head": 2, "n_embd": 32, "context_tokens": 64}
    training = {"max_steps": 3, "per_device_batch_size": 2, "eval_steps": 3, "logging_steps": 1, "warmup_steps": 1,
                "max_eval_sequences": 4, "nproc_per_node": 2, "deepspeed": str(tmp_path / "zero2.json")}  # fmt: skip
    assert pretrain.main(root / "train.parquet", root / "validation.parquet", root / "tokenizer", tmp_path / "model",
                         tmp_path / "metrics.json", model, training, seed=5, threads=1) is None  # fmt: skip
    metrics = read_json(tmp_path / "metrics.json")
    assert metrics["world_size"] == 2 and metrics["steps"] == 3
    losses = [h["loss"] for h in metrics["log_history"] if "loss" in h]
    assert len(losses) == 3 and all(math.isfinite(x) for x in losses)
    assert math.isfinite(metrics["validation_loss"])
    reloaded = AutoModelForCausalLM.from_pretrained(tmp_path / "model", local_files_only=True)
    assert sum(p.numel() for p in reloaded.parameters()) == metrics["parameters"]
    assert not (tmp_path / "model.partial").exists()
