"""Summary and per-kernel table of the RLPF study, and how each of its figures is drawn.

Inputs: the evaluation metrics and per-sample tables of base, sft, rl and dpo, the training curves, the
measured candidates. Outputs:

    summary.json                per task set, one entry per model with expected_speedup,
                                expected_speedup_given_correct, pass_at_1, fraction_faster; whether RL beat base
                                (and SFT), stated plainly (`finding`); the constant-group fraction seen in RL;
                                the reward model's pairwise accuracy on held-out pairs
    per_kernel.csv              model x held-out task: samples, correct, mean speedup (failures 0), best speedup
    figures/expected_speedup.png   bars like the paper's: expected speedup per model, per task set (drawn from
                                   the evaluation metrics)
    figures/training_curves.png    RL mean reward and KL per step; SFT and DPO loss (drawn from the curves)

    from Snakemake: rule rlpf_summary (`main`: summary.json, per_kernel.csv); the figures are drawn by the
    `plot_*` functions here, run one rule per figure (`rlpf_figure_<name>`) by workflow_scripts/rlpf/figures.py
"""

import logging

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from workflow_scripts.common import Provenance, read_json, write_json  # noqa: E402
from workflow_scripts.common.figures import (  # noqa: E402
    EXECUTION_MODEL_NAMES,
    Registry,
    legend_below,
    mark_missing,
    readable,
    save_figure,
)
from workflow_scripts.common.io import atomic_path  # noqa: E402

logger = logging.getLogger(__name__)

MODELS = ("base", "sft", "rl", "dpo")


def per_kernel_table(samples: pd.DataFrame) -> pd.DataFrame:
    s = samples.assign(speedup0=samples.speedup.where(samples.correct, 0.0).fillna(0.0))
    table = s.groupby(["task_set", "kernel", "model"]).agg(
        samples=("sample", "size"), correct=("correct", "sum"), mean_speedup=("speedup0", "mean"),
        best_speedup=("speedup0", "max"), top_completion=("completion", lambda c: c.value_counts().index[0].strip()),
    ).reset_index()  # fmt: skip
    table["model"] = pd.Categorical(table.model, MODELS)
    return table.sort_values(["task_set", "kernel", "model"])


def finding_text(metrics: dict, task_set: str) -> str:
    """The study's finding on one task set: did RL beat base and SFT, and where the gain comes from (summary.json's
    `finding`; the measurements' own verdicts are the samples' and candidates' `verdict`)."""
    m = {name: metrics[name]["task_sets"].get(task_set) for name in MODELS}
    if m["rl"] is None or m["base"] is None:
        return "not evaluated"
    rl, base, sft = m["rl"]["expected_speedup"], m["base"]["expected_speedup"], m["sft"]["expected_speedup"]
    parts = [f"RL expected speedup {rl:.3f} vs base {base:.3f}: "
             + ("higher" if rl > base else "NOT higher") + " than base"]
    parts.append(f"vs SFT (RL's starting point) {sft:.3f}: " + ("higher" if rl > sft else "NOT higher"))
    faster, base_faster = m["rl"]["fraction_faster"], m["base"]["fraction_faster"]
    if rl > base:  # where the gain comes from: programs faster than the baseline, or only more correct ones
        parts.append(f"RL samples faster than the baseline {faster:.3f} vs base {base_faster:.3f}: the gain is "
                     + ("partly speed" if faster > base_faster else
                        "validity (more correct programs at about baseline speed), not speed"))  # fmt: skip
    # How much one sample moves the mean: differences of that size are within sampling noise.
    per_sample = 1.0 / m["rl"]["samples"] if m["rl"]["samples"] else float("nan")
    parts.append(f"one correct baseline-speed sample moves a model's expected speedup by about {per_sample:.3f} "
                 f"({m['rl']['samples']} samples over {m['rl']['tasks']} held-out tasks)")
    return "; ".join(parts)


def diagnosis(candidates: pd.DataFrame, rl_curve: dict, summary: dict) -> dict:
    """Where RL's signal comes from, per task set: do fast programs exist among the measured candidates of the
    training tasks, how far apart are correct programs' rewards, and how often was a GRPO group flat."""
    out = {}
    for ts, part in candidates.groupby("task_set"):
        ok = part[part.verdict == "ok"]
        measured = ok[ok.completion.str.strip() != "serial"]  # the all-serial program is not timed (speedup 1)
        best = ok.groupby("task_id").speedup.max()
        out[ts] = {"train_tasks": int(part.task_id.nunique()),
                   "train_tasks_with_a_faster_candidate": int((best > 1.05).sum()),
                   "correct_candidates": int(len(ok)), "measured_correct_candidates": int(len(measured)),
                   "median_speedup_of_measured_correct": float(measured.speedup.median()) if len(measured) else None,
                   "reward_range_of_correct": [float(ok.reward.min()), float(ok.reward.max())] if len(ok) else None}
    calls = rl_curve.get("reward_calls", [])
    per_set = {}
    for c in calls:
        for ts, n in c.get("constant_groups_by_task_set", {}).items():
            per_set.setdefault(ts, [0, 0])[0] += n
        for ts, n in c.get("groups_by_task_set", {}).items():
            per_set.setdefault(ts, [0, 0])[1] += n
    for ts, (flat, groups) in per_set.items():
        out.setdefault(ts, {})["rl_constant_group_fraction"] = flat / groups if groups else None
    return out


def notes_text(summary: dict) -> str:
    """Plain-language notes, every number taken from the summary itself."""
    parts = ["Timings are taken on shared CPU cores; speedups use the median repetition of sample and baseline "
             "measured in one process. Failures count as speedup 0."]
    for ts, finding in summary["finding"].items():
        d = summary["diagnosis"].get(ts, {})
        m = summary["task_sets"][ts]
        parts.append(f"{ts}: {finding}. Fraction of RL samples faster than the baseline: "
                     f"{m['rl']['fraction_faster']:.3f} (base {m['base']['fraction_faster']:.3f}); an expected speedup "
                     "made of correct baseline-speed samples (the all-serial completion scores exactly 1) is validity, "
                     "not speed. Measured candidates of the training tasks: "
                     f"{d.get('train_tasks_with_a_faster_candidate')} of {d.get('train_tasks')} tasks have one faster "
                     f"than 1.05x; the median speedup of the measured correct ones is "
                     f"{_fmt(d.get('median_speedup_of_measured_correct'))}.")
    rv = summary.get("renamed_variants")
    if rv and rv["training_tasks"]:
        parts.append(f"Training data: {rv['training_tasks']} renamed variants of the training tasks (locals renamed, "
                     f"completions renamed alike); {rv['measured_as_written']} of their candidates were measured as "
                     f"written and {rv['same_verdict_as_original']} got their original's verdict.")
    rm = summary.get("reward_model")
    if rm:
        parts.append(f"Reward models, held-out pairwise accuracy ({rm['held_out_pairs']} pairs): LM head "
                     f"{_fmt(rm['held_out_accuracy'])}, feature model {_fmt(rm['features_held_out_accuracy'])}, hand "
                     f"ranker {_fmt(rm['hand_held_out_accuracy'])}, 'the all-serial one is faster' "
                     f"{_fmt(rm['held_out_serial_rule_accuracy'])} on the pairs that have one (paper: 0.93); pair "
                     "labels come from single timings on shared cores.")
    return " ".join(parts)


def _original_completion(row, tasks: list[dict]) -> str:
    """The original task's completion that a renamed variant's candidate row was derived from."""
    from workflow_scripts.rlpf.renaming import rename_identifiers

    renaming = next(t["renaming"] for t in tasks if t["task_id"] == row.task_id)
    return rename_identifiers(row.completion, {new: old for old, new in renaming})


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.3f}"


# Names the figures show for the four models and the task sets.
MODEL_NAMES = {"base": "base", "sft": "SFT", "rl": "RL (GRPO)", "dpo": "DPO"}
TASK_SET_NAMES = EXECUTION_MODEL_NAMES


def plot_expected_speedup(metrics: dict[str, dict], path) -> None:
    """Expected speedup per model, one panel per task set, from each model's evaluation metrics (the numbers that
    summary.json's task_sets copies); a task set a model was not evaluated on is left without bars and says so."""
    task_sets = sorted({ts for name in MODELS for ts in metrics[name]["task_sets"]})
    fig, axes = plt.subplots(1, len(task_sets), figsize=(4.5 * len(task_sets), 3.5), squeeze=False)
    for ax, ts in zip(axes[0], task_sets, strict=True):
        scores = [metrics[name]["task_sets"].get(ts) or {} for name in MODELS]
        vals = [s.get("expected_speedup", float("nan")) for s in scores]
        # "given correct" is null where a model had no correct sample: written "none", not drawn as a zero bar
        cond = [s.get("expected_speedup_given_correct") for s in scores]
        x = range(len(MODELS))
        ax.bar([i - 0.2 for i in x], vals, width=0.4, label="all samples (a failure counts as 0)")
        ax.bar([i + 0.2 for i in x], [float("nan") if c is None else c for c in cond], width=0.4,
               label="correct samples only")  # fmt: skip
        for i, (score, value) in enumerate(zip(scores, cond, strict=True)):
            if score and value is None:
                ax.text(i + 0.2, 0.02, "none\n(no correct\nsample)", transform=ax.get_xaxis_transform(), ha="center",
                        va="bottom", fontsize=6, color="C1")  # fmt: skip
        mark_missing(ax, [i for i, score in enumerate(scores) if not score], "not\nevaluated")
        ax.axhline(1.0, color="grey", lw=0.8, ls="--", label="the serial baseline's speed")
        ax.set_xticks(list(x), [readable(name, MODEL_NAMES) for name in MODELS])
        ax.set_title(f"{readable(ts, TASK_SET_NAMES)} kernels (held out)")
        ax.set_ylabel("expected speedup over serial baseline")
    legend_below(fig, axes[0, 0], ncol=3)
    fig.tight_layout()
    save_figure(fig, path)


def plot_training_curves(curves: dict[str, dict], path) -> None:
    """RL mean reward and KL per step; SFT and DPO training loss, each on its own axis (their units differ)."""
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.3))
    hist = curves.get("rl", {}).get("log_history", [])
    steps = [h["step"] for h in hist if "reward" in h]
    axes[0].plot(steps, [h["reward"] for h in hist if "reward" in h], marker=".")
    axes[0].set(title="RL (GRPO): mean reward", ylabel="reward per completion\n(log speedup; < 0 slower or failed)")
    axes[1].plot(steps, [h.get("kl", float("nan")) for h in hist if "reward" in h], marker=".", color="C1")
    axes[1].set(title="RL: KL to the reference model", ylabel="KL divergence (nats per token)")
    for ax, name, title, ylabel in ((axes[2], "sft", "SFT training loss", "cross-entropy (nats per token)"),
                                    (axes[3], "dpo", "DPO training loss", "DPO loss (nats per pair)")):  # fmt: skip
        h = [x for x in curves.get(name, {}).get("log_history", []) if "loss" in x]
        ax.plot([x["step"] for x in h], [x["loss"] for x in h], marker=".", color="C2" if name == "sft" else "C3")
        ax.set(title=title, ylabel=ylabel)
    for ax in axes:
        ax.set_xlabel("optimizer step")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)


# Figure name (the PNG's name under results/rlpf/figures/) -> (what it is drawn from, how).
FIGURES: Registry = {
    "expected_speedup": (("metrics",), plot_expected_speedup),
    "training_curves": (("curves",), plot_training_curves),
}


def main(*, metrics_paths: dict, samples_paths: dict, curve_paths: dict, candidates_path, tasks_path, out_summary,
         out_table, seed: int, reward_model_path=None) -> dict:  # fmt: skip
    prov = Provenance.start(step="rlpf.summary", config={}, seed=seed)
    metrics = {name: read_json(metrics_paths[name]) for name in MODELS}
    samples = pd.concat([pd.read_parquet(samples_paths[name]) for name in MODELS], ignore_index=True)
    curves = {name: read_json(path) for name, path in curve_paths.items()}
    all_candidates = pd.read_parquet(candidates_path)
    if "variant_of" not in all_candidates:  # a table from before renamed variants
        all_candidates = all_candidates.assign(variant_of="", derived=False)
    candidates = all_candidates[all_candidates.variant_of == ""]  # the original tasks' measured candidates
    checked = all_candidates[(all_candidates.variant_of != "") & ~all_candidates.derived.astype(bool)]
    tasks = read_json(tasks_path)["tasks"]
    task_sets = sorted({t["task_set"] for t in tasks})

    table = per_kernel_table(samples)
    with atomic_path(out_table, suffix=".csv") as tmp:
        table.to_csv(tmp, index=False, float_format="%.4f")

    summary = {"task_sets": {}, "finding": {}}
    for ts in task_sets:
        summary["task_sets"][ts] = {name: metrics[name]["task_sets"].get(ts) for name in MODELS}
        summary["finding"][ts] = finding_text(metrics, ts)
        logger.info("%s: %s", ts, summary["finding"][ts])
    summary["held_out_kernels"] = sorted({t["kernel"] for t in tasks if t["split"] == "held_out"})
    summary["train_kernels"] = sorted({t["kernel"] for t in tasks if t["split"] == "train"})
    summary["candidates"] = {"measured": int(len(candidates)),
                             "verdicts": {k: int(v) for k, v in candidates.verdict.value_counts().items()},
                             "best_speedup_per_train_task": {
                                 tid: (float(g[g.verdict == "ok"].speedup.max()) if (g.verdict == "ok").any() else None)
                                 for tid, g in candidates.groupby("task_id")}}  # fmt: skip
    originals = candidates.set_index(["task_id", "completion"]).verdict
    agree = sum(originals.get((row.variant_of, _original_completion(row, tasks)), None) == row.verdict
                for row in checked.itertuples())
    summary["renamed_variants"] = {
        "training_tasks": sum(bool(t.get("origin")) for t in tasks),
        "derived_rows": int(all_candidates.derived.astype(bool).sum()),
        "measured_as_written": int(len(checked)), "same_verdict_as_original": int(agree)}  # fmt: skip
    rl = curves.get("rl", {})
    summary["rl_training"] = {"constant_group_fraction": rl.get("constant_group_fraction"),
                              "programs_measured": rl.get("programs_measured"),
                              "steps": sum("reward" in h for h in rl.get("log_history", []))}  # fmt: skip
    if reward_model_path:
        rm = read_json(reward_model_path)
        summary["reward_model"] = {k: rm.get(k) for k in (
            "held_out_accuracy", "held_out_pairs", "train_accuracy", "train_pairs", "held_out_serial_rule_accuracy",
            "features_held_out_accuracy", "features_train_accuracy", "hand_held_out_accuracy")}  # fmt: skip
    summary["diagnosis"] = diagnosis(candidates, curves.get("rl", {}), summary)
    summary["notes"] = notes_text(summary)
    write_json(out_summary, summary)
    prov.finish([out_summary, out_table])
    return summary


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(metrics_paths={m: smk.input[f"metrics_{m}"] for m in MODELS},
         samples_paths={m: smk.input[f"samples_{m}"] for m in MODELS},
         curve_paths={m: smk.input[f"curve_{m}"] for m in ("sft", "dpo", "rl")},
         candidates_path=smk.input.candidates, tasks_path=smk.input.tasks, out_summary=smk.output.summary,
         out_table=smk.output.table, seed=smk.params.seed,
         reward_model_path=smk.input.reward_model)
