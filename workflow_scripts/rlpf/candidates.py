"""Measure the candidate completions of every training task: the data SFT and DPO learn from.

Candidates (`candidate_completions`, below): every loop serial; per top-level loop a plain `parallel for`, with
the reductions found in the loop, with `schedule(dynamic,1)` (often slow), `schedule(static)`, `collapse(2)`
for nests, and the plain `parallel for` of a loop that needs a reduction (a race the validator must catch).
Each is built, validated and timed by the reward's Measurer (cached by content, so the RL and evaluation
steps that meet the same program later reuse the measurement). Held-out tasks are never measured here.

Renamed variants of a training task (tasks.renamed_variant: the same kernel with its locals renamed) get the
rows of their original with the renaming applied to the completion (`derived` True: the same program up to
names, so the same measurement). To check that claim rather than assume it, for `verify_renamed` variants
spread over the kernels the best candidate that inserts a pragma is built and measured as written (`derived`
False); the log, the table and the summary show whether its verdict matches the original's.

Output: a table (parquet) with one row per (task, candidate): task_id, kernel, task_set, completion, verdict,
speedup, reward, key (the measurement's cache key), derived, variant_of (the original's task_id, "" for an
original).

    snakemake results/rlpf/candidates.parquet      # rule rlpf_candidates (rules/rlpf.smk)
"""

import dataclasses
import logging
import re
from pathlib import Path

import pandas as pd

from workflow_scripts.common import Provenance, read_json
from workflow_scripts.common.c_scanner import declarator_name, for_loops, scalar_declarations, top_level_loops
from workflow_scripts.common.io import atomic_path
from workflow_scripts.measure import get_problem, reference_body
from workflow_scripts.rlpf.program_body import SERIAL_LINE, completion_text, program_body
from workflow_scripts.rlpf.renaming import rename_completion
from workflow_scripts.rlpf.reward import Measurer, RewardConfig, grade
from workflow_scripts.rlpf.tasks import Task, original_tasks, task_from_dict, training_tasks

logger = logging.getLogger(__name__)


def reduction_clauses(body: str, loop: tuple[int, int]) -> list[str]:
    """`reduction(op:var)` for each scalar declared before the loop that the loop accumulates into.

    Recognised forms: `v += e`, `v -= e`, `v ^= e`, `v = v OP e` (OP in + * ^ | &), `if (e < v) v = e` (min)
    and `if (e > v) v = e` (max). A kernel that needs anything else gets no reduction candidate: the
    harness then sees the race when validating the plain `parallel for`.
    """
    before, loop_text = body[: loop[0]], body[loop[0] : loop[1]]
    scalars = []
    for decl in scalar_declarations(before):
        for part in decl.split(","):  # every comma, not split_declarators: what the candidates were made with
            name = declarator_name(part)
            if name and name not in scalars:
                scalars.append(name)
    clauses = []
    for v in scalars:
        op = None
        if re.search(rf"\b{v}\s*([+\-^])=", loop_text):
            op = re.search(rf"\b{v}\s*([+\-^])=", loop_text).group(1)
        elif m := re.search(rf"\b{v}\s*=\s*{v}\s*([+*^|&])", loop_text):
            op = m.group(1)
        elif re.search(rf"if\s*\(\s*\w+\s*<\s*{v}\s*\)\s*{v}\s*=", loop_text):
            op = "min"
        elif re.search(rf"if\s*\(\s*\w+\s*>\s*{v}\s*\)\s*{v}\s*=", loop_text):
            op = "max"
        if op:
            clauses.append(f"reduction({op}:{v})")
    return clauses


def candidate_completions(task: Task, max_candidates: int) -> list[str]:
    """A deterministic list of completions worth measuring: all serial, and per loop a plain parallel for,
    with the detected reductions, and with schedules that are sometimes right and sometimes slow."""
    if task.kind == "function":
        problem = get_problem(task.kernel)
        pragma_task = dataclasses.replace(task, kind="pragma")
        bodies = [reference_body(problem, task.exec_model), task.body]
        bodies += [program_body(pragma_task, c) for c in candidate_completions(pragma_task, max_candidates)[1:]]
        return list(dict.fromkeys(bodies))[:max_candidates]
    loops = top_level_loops(task.body)
    n = len(loops)
    cands = [completion_text([""] * n)]
    for k, loop in enumerate(loops):
        def on_loop(pragma: str, k: int = k) -> str:
            return completion_text([pragma if j == k else "" for j in range(n)])

        if task.task_set == "omp":
            red = " ".join(reduction_clauses(task.body, loop))
            base = "#pragma omp parallel for" + (f" {red}" if red else "")
            cands += [on_loop(base), on_loop(base + " schedule(dynamic,1)"), on_loop(base + " schedule(static)")]
            if red:
                cands.append(on_loop("#pragma omp parallel for"))  # the missing reduction: a race
            inner = task.body[loop[0] : loop[1]]
            if len(for_loops(inner)) > 1:
                cands.append(on_loop(base + " collapse(2)"))
        else:
            red = " ".join(reduction_clauses(task.body, loop))
            if red:  # vectorising a floating-point reduction is the hint that can beat -O3; without the clause
                cands.append(on_loop(f"#pragma omp simd {red}"))  # the vector lanes race on the accumulator
            cands += [on_loop("#pragma omp simd"), on_loop("#pragma GCC unroll 4"), on_loop("#pragma GCC ivdep"),
                      on_loop("#pragma GCC unroll 16")]  # fmt: skip
    seen = list(dict.fromkeys(cands))
    return seen[:max_candidates]


# ---------------------------------------------------------------------------------------------------------
# Measuring them


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


def main(tasks_path, out_path, *, reward_cfg: dict, measure_cfg: dict, cache_dir, max_candidates: int, seed: int,
         split: str = "train", verify_renamed: int = 0) -> pd.DataFrame:  # fmt: skip
    """`reward_cfg`, `measure_cfg`: config sections rlpf.reward and measure (RewardConfig.from_config)."""
    prov = Provenance.start(step="rlpf.candidates", config={"reward": reward_cfg, "measure": measure_cfg,
                                                            "max_candidates": max_candidates, "split": split,
                                                            "verify_renamed": verify_renamed},
                            seed=seed)  # fmt: skip
    tasks = [task_from_dict(r) for r in read_json(tasks_path)["tasks"]]
    measurer = Measurer(RewardConfig.from_config(reward_cfg, measure_cfg, seed=seed, cache_dir=Path(cache_dir)))
    table = measure_candidates(tasks, measurer, max_candidates, split, verify_renamed)
    for task_id, group in table[~table.derived].groupby("task_id"):
        best = group.sort_values("reward").iloc[-1]
        logger.info("%s: best %r (%s, speedup %s)", task_id, best.completion.strip(), best.verdict, best.speedup)
    with atomic_path(out_path, suffix=".parquet") as tmp:
        table.to_parquet(tmp, index=False)
    prov.finish([out_path])
    return table


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.tasks, smk.output.candidates, reward_cfg=smk.params.reward, measure_cfg=smk.params.measure,
         cache_dir=smk.params.cache_dir, max_candidates=smk.params.max_candidates, seed=smk.params.seed,
         split=smk.params.split, verify_renamed=smk.params.verify_renamed)
