"""Measure the candidate completions of every training task: the data SFT and DPO learn from.

Candidates (task.candidate_completions): every loop serial; per top-level loop a plain `parallel for`, with
the reductions found in the loop, with `schedule(dynamic,1)` (often slow), `schedule(static)`, `collapse(2)`
for nests, and the plain `parallel for` of a loop that needs a reduction (a race the validator must catch).
Each is built, validated and timed by the reward's Measurer (cached by content, so the RL and evaluation
steps that meet the same program later reuse the measurement). Held-out tasks are never measured here.

Output: a table (parquet) with one row per (task, candidate): task_id, kernel, task_set, completion, verdict,
speedup, reward.

    from Snakemake: rule rlpf_candidates
"""

import logging
from pathlib import Path

import pandas as pd

from workflow_scripts.common import Provenance, read_json
from workflow_scripts.common.io import atomic_path
from workflow_scripts.rlpf.reward import Measurer, RewardConfig, grade
from workflow_scripts.rlpf.task import candidate_completions, task_from_dict, training_tasks

logger = logging.getLogger(__name__)


def measure_candidates(tasks, measurer: Measurer, max_candidates: int, split: str = "train") -> pd.DataFrame:
    """Measured candidates of the tasks of `split` (held-out ones only ever test the reward model)."""
    chosen = training_tasks(tasks) if split == "train" else [t for t in tasks if t.split == split]
    items = [(t, c) for t in chosen for c in candidate_completions(t, max_candidates)]
    logger.info("%d candidates over %d %s tasks", len(items), len(chosen), split)
    rows = []
    for (task, completion), m in zip(items, measurer.measure(items), strict=True):
        rows.append({"task_id": task.task_id, "kernel": task.kernel, "task_set": task.task_set,
                     "completion": completion, "verdict": m.verdict, "speedup": m.speedup,
                     "reward": grade(m, measurer.cfg), "key": m.key})  # fmt: skip
    return pd.DataFrame(rows)


def main(tasks_path, out_path, *, reward_cfg: dict, cache_dir, max_candidates: int, seed: int,
         split: str = "train") -> pd.DataFrame:  # fmt: skip
    prov = Provenance.start(step="rlpf.candidates", config={"reward": reward_cfg, "max_candidates": max_candidates,
                                                            "split": split}, seed=seed)  # fmt: skip
    tasks = [task_from_dict(r) for r in read_json(tasks_path)["tasks"]]
    measurer = Measurer(RewardConfig(cache_dir=Path(cache_dir), **reward_cfg))
    table = measure_candidates(tasks, measurer, max_candidates, split)
    for task_id, group in table.groupby("task_id"):
        best = group.sort_values("reward").iloc[-1]
        logger.info("%s: best %r (%s, speedup %s)", task_id, best.completion.strip(), best.verdict, best.speedup)
    with atomic_path(out_path, suffix=".parquet") as tmp:
        table.to_parquet(tmp, index=False)
    prov.finish([out_path])
    return table


if __name__ == "__main__":
    from workflow_scripts.common import configure_logging

    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(smk.input.tasks, smk.output.candidates, reward_cfg=smk.params.reward, cache_dir=smk.params.cache_dir,
         max_candidates=smk.params.max_candidates, seed=smk.params.seed, split=smk.params.split)
