"""Measure the candidate completions of every training task: the data SFT and DPO learn from.

Candidates (task.candidate_completions): every loop serial; per top-level loop a plain `parallel for`, with
the reductions found in the loop, with `schedule(dynamic,1)` (often slow), `schedule(static)`, `collapse(2)`
for nests, and the plain `parallel for` of a loop that needs a reduction (a race the validator must catch).
Each is built, validated and timed by the reward's Measurer (cached by content, so the RL and evaluation
steps that meet the same program later reuse the measurement). Held-out tasks are never measured here.

Renamed variants of a training task (task.renamed_variant: the same kernel with its locals renamed) get the
rows of their original with the renaming applied to the completion (`derived` True: the same program up to
names, so the same measurement). To check that claim rather than assume it, for `verify_renamed` variants
spread over the kernels the best candidate that inserts a pragma is built and measured as written (`derived`
False); the log, the table and the summary show whether its verdict matches the original's.

Output: a table (parquet) with one row per (task, candidate): task_id, kernel, task_set, completion, verdict,
speedup, reward, key (the measurement's cache key), derived, variant_of (the original's task_id, "" for an
original).

    from Snakemake: rule rlpf_candidates
"""

import logging
from pathlib import Path

import pandas as pd

from workflow_scripts.common import Provenance, read_json
from workflow_scripts.common.io import atomic_path
from workflow_scripts.rlpf.reward import Measurer, RewardConfig, grade
from workflow_scripts.rlpf.task import (
    SERIAL_LINE,
    candidate_completions,
    original_tasks,
    rename_completion,
    task_from_dict,
    training_tasks,
)

logger = logging.getLogger(__name__)


def _rows(items, measurements, cfg) -> list[dict]:
    return [{"task_id": task.task_id, "kernel": task.kernel, "task_set": task.task_set, "completion": completion,
             "verdict": m.verdict, "speedup": m.speedup, "reward": grade(m, cfg), "key": m.key, "derived": False,
             "variant_of": task.origin}
            for (task, completion), m in zip(items, measurements, strict=True)]  # fmt: skip


def measure_candidates(tasks, measurer: Measurer, max_candidates: int, split: str = "train",
                       verify_renamed: int = 0) -> pd.DataFrame:  # fmt: skip
    """Measured candidates of the tasks of `split` (held-out ones only ever test the reward model), plus the
    derived rows of the renamed variants among them (see the module docstring)."""
    chosen = training_tasks(tasks) if split == "train" else [t for t in tasks if t.split == split]
    originals = original_tasks(chosen)
    items = [(t, c) for t in originals for c in candidate_completions(t, max_candidates)]
    logger.info("%d candidates over %d %s tasks", len(items), len(originals), split)
    table = pd.DataFrame(_rows(items, measurer.measure(items), measurer.cfg))
    variants = [t for t in chosen if t.origin]
    if not variants:
        return table
    derived = []
    for task in variants:
        for row in table[table.task_id == task.origin].to_dict("records"):
            derived.append(row | {"task_id": task.task_id, "completion": rename_completion(task, row["completion"]),
                                  "derived": True, "variant_of": task.origin})  # fmt: skip
    derived = pd.DataFrame(derived)
    # (index in `derived`, variant task, completion): the best candidate with a pragma of some variants (an
    # all-serial completion is the baseline itself, never timed, so it would check nothing).
    checks = []
    step = max(1, len(variants) // verify_renamed) if verify_renamed else 1  # spread over kernels and task sets
    has_pragma = derived.completion.map(lambda c: any(ln.strip() != SERIAL_LINE for ln in c.strip().splitlines()))
    for task in variants[::step][:verify_renamed]:
        own = derived[(derived.task_id == task.task_id) & has_pragma].sort_values(["reward", "completion"])
        if len(own):
            checks.append((own.index[-1], task, own.completion.iloc[-1]))
    if checks:
        items = [(task, completion) for _, task, completion in checks]
        measured = _rows(items, measurer.measure(items), measurer.cfg)
        for (index, task, completion), row in zip(checks, measured, strict=True):
            was = derived.loc[index]
            logger.info("renamed %s %r: measured %s (speedup %s), original %s (speedup %s)", task.task_id,
                        completion.strip(), row["verdict"], row["speedup"], was.verdict, was.speedup)  # fmt: skip
            if row["verdict"] != was.verdict:
                logger.warning("%s: the renamed program's verdict differs from its original's", task.task_id)
            for column, value in row.items():
                derived.at[index, column] = value
    logger.info("%d rows derived for %d renamed variants (%d of them measured as written)", len(derived),
                len(variants), len(checks))  # fmt: skip
    return pd.concat([table, derived], ignore_index=True)


def main(tasks_path, out_path, *, reward_cfg: dict, cache_dir, max_candidates: int, seed: int,
         split: str = "train", verify_renamed: int = 0) -> pd.DataFrame:  # fmt: skip
    prov = Provenance.start(step="rlpf.candidates", config={"reward": reward_cfg, "max_candidates": max_candidates,
                                                            "split": split, "verify_renamed": verify_renamed},
                            seed=seed)  # fmt: skip
    tasks = [task_from_dict(r) for r in read_json(tasks_path)["tasks"]]
    measurer = Measurer(RewardConfig(cache_dir=Path(cache_dir), **reward_cfg))
    table = measure_candidates(tasks, measurer, max_candidates, split, verify_renamed)
    for task_id, group in table[~table.derived].groupby("task_id"):
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
         max_candidates=smk.params.max_candidates, seed=smk.params.seed, split=smk.params.split,
         verify_renamed=smk.params.verify_renamed)
