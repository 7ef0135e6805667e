"""The performance (reward) model: learn from measured pairs which of two completions runs faster.

Three rankers are trained on (prompt, chosen, rejected) pairs of measured candidates of the training kernels
(the same pairs as DPO: chosen's measured reward beats rejected's by at least `min_reward_gap`), and scored by
their pairwise ranking accuracy on pairs built the same way from the held-out kernels, which none of them saw
(the paper's reward model ranked 93% of its held-out pairs correctly):

    lm        a scalar head on the HPC-Coder model (GPT2ForSequenceClassification, one label) trained with
              TRL's RewardTrainer on the text prompt + completion (a learned reward model over the raw text)
    features  a pairwise (Bradley-Terry) logistic regression on the difference of the two programs' features:
              what the completion does (parallel for, the reductions it names against the ones the loop
              needs, schedule, collapse, simd, unroll, ivdep) and those crossed with what the kernel is (loops,
              nesting, divisions, array accesses, task set), so it can learn "parallelise this kind of loop"
    hand      a fixed hand-written ranker (no training): malformed < a missing reduction < schedule(dynamic,1)
              < serial < parallel/simd with the reductions the loop needs; a baseline for both

plus the share of held-out pairs a constant "the serial one is faster" rule gets right. Ties of the hand
ranker count half. The LM head trains on `rlpf.device` (as the policies do, rlpf/train.py). Output: metrics JSON
(accuracies, pairs, training loss, the device). The models are not used as
rewards in the tiny run (measured rewards are cheap there).

    from Snakemake: rule rlpf_reward_model
"""

import dataclasses
import logging
import shutil

import numpy as np
import pandas as pd

from workflow_scripts.common import Provenance, read_json, seed_everything, write_json
from workflow_scripts.common.c_scanner import for_loops, top_level_loops
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import (
    describe_device,
    resolve_device,
    trainer_device_args,
    use_bf16,
)
from workflow_scripts.common.model_source import (
    context_tokens,
    load_sequence_scorer,
    load_tokenizer,
    resolve,
)
from workflow_scripts.common.progress import step_callback
from workflow_scripts.rlpf.candidates import reduction_clauses
from workflow_scripts.rlpf.program_body import SERIAL_LINE, parse_completion
from workflow_scripts.rlpf.tasks import Task, task_from_dict
from workflow_scripts.rlpf.train import dpo_rows

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class RewardModelConfig:
    """Config section `rlpf.reward_model`."""

    max_steps: int = schema_default("rlpf.reward_model.max_steps")
    learning_rate: float = schema_default("rlpf.reward_model.learning_rate")
    per_device_batch_size: int = schema_default("rlpf.reward_model.per_device_batch_size")
    min_reward_gap: float = schema_default("rlpf.reward_model.min_reward_gap")
    bf16: bool | None = schema_default("rlpf.reward_model.bf16")  # None: on a GPU that has it

    def __post_init__(self) -> None:
        if self.max_steps < 1 or self.per_device_batch_size < 1:
            raise ValueError("rlpf.reward_model.max_steps and per_device_batch_size must be >= 1")
        if not 0 < self.learning_rate < 1:
            raise ValueError(f"rlpf.reward_model.learning_rate must be in (0, 1), got {self.learning_rate}")


def pairs_for(tasks, candidates: pd.DataFrame, split: str, gap: float) -> list[dict]:
    """DPO-style pairs of the tasks of one split (dpo_rows only takes training tasks; relabel for held-out)."""
    relabelled = [dataclasses.replace(t, split="train" if t.split == split else "other") for t in tasks]
    return dpo_rows(relabelled, candidates, gap)


# ---------------------------------------------------------------------------------------------------------
# Program features, the pairwise feature model and the hand-written ranker

PRAGMA_FEATURES = ("malformed", "parallel", "reduction_ok", "missing_reduction", "extra_reduction", "dynamic",
                   "static", "collapse", "simd", "simd_reduction", "unroll", "ivdep")  # fmt: skip
KERNEL_FEATURES = ("one", "loops", "nested", "divides", "array_refs", "omp")


def kernel_features(task: Task) -> dict[str, float]:
    """What the kernel is: the same for every completion of a task (the features model crosses them)."""
    loops = top_level_loops(task.body)
    return {"one": 1.0, "loops": float(len(loops)),
            "nested": float(any(len(for_loops(task.body[a:b])) > 1 for a, b in loops)),
            "divides": float("/" in task.body), "array_refs": task.body.count("[") / 4.0,
            "omp": float(task.task_set == "omp")}  # fmt: skip


def pragma_features(task: Task, completion: str) -> dict[str, float]:
    """What the completion does to the kernel's loops (summed over loops)."""
    f = dict.fromkeys(PRAGMA_FEATURES, 0.0)
    pragmas = parse_completion(completion, task.n_loops, task.task_set)
    if pragmas is None:
        f["malformed"] = 1.0
        return f
    for loop, pragma in zip(top_level_loops(task.body), pragmas, strict=True):
        if not pragma:
            continue
        needed = set(reduction_clauses(task.body, loop))
        named = {c.replace(" ", "") for c in _clauses(pragma, "reduction")}
        f["parallel"] += "parallel for" in pragma
        f["simd"] += "omp simd" in pragma
        f["simd_reduction"] += "omp simd" in pragma and bool(named)
        f["reduction_ok"] += bool(needed) and needed <= named
        f["missing_reduction"] += len(needed - named) > 0
        f["extra_reduction"] += len(named - needed) > 0
        f["dynamic"] += "schedule(dynamic" in pragma
        f["static"] += "schedule(static" in pragma
        f["collapse"] += "collapse(" in pragma
        f["unroll"] += float(pragma.split("unroll ")[1]) / 16.0 if "GCC unroll" in pragma else 0.0
        f["ivdep"] += "GCC ivdep" in pragma
    return f


def _clauses(pragma: str, name: str) -> list[str]:
    out, i = [], pragma.find(name + "(")
    while i >= 0:
        j = pragma.find(")", i)
        out.append(pragma[i : j + 1])
        i = pragma.find(name + "(", j)
    return out


def pair_vector(task: Task, a: str, b: str) -> np.ndarray:
    """Features of "a is faster than b": the pragma-feature difference, and it crossed with the kernel's."""
    fa, fb, k = pragma_features(task, a), pragma_features(task, b), kernel_features(task)
    diff = np.array([fa[n] - fb[n] for n in PRAGMA_FEATURES])
    return np.concatenate([diff * k[n] for n in KERNEL_FEATURES])


def fit_feature_ranker(tasks_by_id: dict[str, Task], pairs: list[dict], seed: int):
    """A logistic regression on pair_vector, trained on both orders of each pair (so it has no side bias)."""
    from sklearn.linear_model import LogisticRegression

    x, y = [], []
    for p in pairs:
        v = pair_vector(tasks_by_id[p["task_id"]], p["chosen"], p["rejected"])
        x += [v, -v]
        y += [1, 0]
    return LogisticRegression(C=1.0, max_iter=2000, random_state=seed).fit(np.array(x), np.array(y))


def feature_ranker_accuracy(ranker, tasks_by_id: dict[str, Task], pairs: list[dict]) -> float | None:
    if not pairs:
        return None
    x = np.array([pair_vector(tasks_by_id[p["task_id"]], p["chosen"], p["rejected"]) for p in pairs])
    return float(np.mean(ranker.decision_function(x) > 0))


HAND_WEIGHTS = {"malformed": -3.0, "missing_reduction": -2.0, "extra_reduction": -2.0, "dynamic": -1.5,
                "reduction_ok": 0.5, "parallel": 0.5, "simd_reduction": 0.5}  # fmt: skip


def hand_score(task: Task, completion: str) -> float:
    """A performance engineer's rule of thumb, written down before seeing any measurement."""
    f = pragma_features(task, completion)
    return sum(w * f[n] for n, w in HAND_WEIGHTS.items())


def hand_ranker_accuracy(tasks_by_id: dict[str, Task], pairs: list[dict]) -> float | None:
    if not pairs:
        return None
    credit = 0.0
    for p in pairs:
        task = tasks_by_id[p["task_id"]]
        a, b = hand_score(task, p["chosen"]), hand_score(task, p["rejected"])
        credit += 1.0 if a > b else 0.5 if a == b else 0.0
    return credit / len(pairs)


def pair_accuracy(model, tokenizer, pairs: list[dict]) -> float | None:
    import torch

    if not pairs:
        return None
    model.eval()
    right = 0
    with torch.no_grad():
        for p in pairs:
            enc = tokenizer([p["prompt"] + p["chosen"], p["prompt"] + p["rejected"]], return_tensors="pt",
                            padding=True).to(model.device)  # fmt: skip
            scores = model(**enc).logits[:, 0]
            right += int(scores[0] > scores[1])
    return right / len(pairs)


def main(*, tasks_path, train_candidates, held_out_candidates, model_dir, out_metrics, cfg: dict, seed: int,
         device: str, torch_threads: int = 1) -> dict:  # fmt: skip
    import torch
    from datasets import Dataset
    from trl import RewardConfig as TRLRewardConfig
    from trl import RewardTrainer

    torch.set_num_threads(torch_threads)  # the rule's threads (see train.load_policy)
    prov = Provenance.start(step="rlpf.reward_model", config=cfg | {"device": device}, seed=seed)
    rm_cfg = RewardModelConfig(**cfg)
    device = resolve_device(device, key="rlpf.device")
    seed_everything(seed)
    tasks = [task_from_dict(r) for r in read_json(tasks_path)["tasks"]]
    train_pairs = pairs_for(tasks, pd.read_parquet(train_candidates), "train", rm_cfg.min_reward_gap)
    test_pairs = pairs_for(tasks, pd.read_parquet(held_out_candidates), "held_out", rm_cfg.min_reward_gap)
    logger.info("reward model: %d training pairs, %d held-out pairs", len(train_pairs), len(test_pairs))
    local = resolve(model_dir, key="rlpf.base_model")
    tokenizer = load_tokenizer(local)
    tokenizer.padding_side = "right"  # the sequence head reads the last non-pad token
    model = load_sequence_scorer(local, dtype=torch.float32).to(device)
    model.config.pad_token_id = tokenizer.pad_token_id
    # gradient_checkpointing: TRL turns it on by default; this model has no memory to save, only time to lose.
    args = TRLRewardConfig(output_dir=str(out_metrics) + ".work", max_steps=rm_cfg.max_steps,
                           learning_rate=rm_cfg.learning_rate, per_device_train_batch_size=rm_cfg.per_device_batch_size,
                           logging_steps=5, **trainer_device_args(device, bf16=use_bf16(rm_cfg.bf16, device), key="rlpf.device"),
                           gradient_checkpointing=False, report_to="none",
                           save_strategy="no", seed=seed, max_length=context_tokens(model.config),
                           disable_tqdm=True)  # fmt: skip
    trainer = RewardTrainer(model=model, args=args, train_dataset=Dataset.from_list(
        [{k: p[k] for k in ("prompt", "chosen", "rejected")} for p in train_pairs]), processing_class=tokenizer,
        callbacks=[step_callback("reward model steps", logger)])  # fmt: skip
    trainer.train()
    tasks_by_id = {t.task_id: t for t in tasks}
    ranker = fit_feature_ranker(tasks_by_id, train_pairs, seed) if train_pairs else None
    serial_first = [p for p in test_pairs if p["chosen"].strip() == SERIAL_LINE or p["rejected"].strip() == SERIAL_LINE]
    metrics = {
        "device": describe_device(device),
        "train_pairs": len(train_pairs),
        "held_out_pairs": len(test_pairs),
        "train_accuracy": pair_accuracy(trainer.model, tokenizer, train_pairs),
        "held_out_accuracy": pair_accuracy(trainer.model, tokenizer, test_pairs),
        # The trivial rule "the all-serial completion wins" on the held-out pairs that contain one.
        "held_out_serial_rule_accuracy": (sum(p["chosen"].strip() == SERIAL_LINE for p in serial_first)
                                          / len(serial_first)) if serial_first else None,  # fmt: skip
        "features_train_accuracy": feature_ranker_accuracy(ranker, tasks_by_id, train_pairs) if ranker else None,
        "features_held_out_accuracy": feature_ranker_accuracy(ranker, tasks_by_id, test_pairs) if ranker else None,
        "hand_held_out_accuracy": hand_ranker_accuracy(tasks_by_id, test_pairs),
        "hand_train_accuracy": hand_ranker_accuracy(tasks_by_id, train_pairs),
        "loss": [h["loss"] for h in trainer.state.log_history if "loss" in h],
    }
    logger.info("held-out pairwise accuracy: LM head %s (train %s), features %s (train %s), hand ranker %s",
                metrics["held_out_accuracy"], metrics["train_accuracy"], metrics["features_held_out_accuracy"],
                metrics["features_train_accuracy"], metrics["hand_held_out_accuracy"])  # fmt: skip
    shutil.rmtree(args.output_dir, ignore_errors=True)
    write_json(out_metrics, metrics)
    prov.finish([out_metrics], device=metrics["device"])
    return metrics


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step
    from workflow_scripts.common.model_source import step_model

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    model = step_model(smk, key="rlpf.base_model")
    main(tasks_path=smk.input.tasks, train_candidates=smk.input.candidates,
         held_out_candidates=smk.input.held_out_candidates, model_dir=model, out_metrics=smk.output.metrics,
         cfg=smk.params.reward_model, seed=smk.params.seed, device=smk.params.device, torch_threads=smk.threads)  # fmt: skip
