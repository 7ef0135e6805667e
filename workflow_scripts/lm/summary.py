"""HPC-Coder summary, and how each of its figures is drawn.

Inputs: the pretraining metrics (loss curves, perplexity), the pragma-prediction metrics, and, when
those evaluations ran, the code-completion and performance-change metrics.
Outputs: `results/hpccoder/summary.json` with the headline numbers (`main`, rule hpccoder_summary). The
`plot_*` functions draw one figure each from one metrics file; `workflow_scripts/lm/figures.py` runs them,
one rule per figure (`hpccoder_figure_<name>`), so deleting one figure redraws only it.

Run: `snakemake hpccoder` (rules/lm.smk), or call `main(...)` from Python.
"""

import logging
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common import Provenance, read_json, write_json  # noqa: E402
from workflow_scripts.common.figures import Registry, save_figure  # noqa: E402

logger = logging.getLogger(__name__)


def plot_training(metrics: dict[str, Any], path: str | Path) -> None:
    history = metrics["log_history"]
    train = [(h["step"], h["loss"]) for h in history if "loss" in h]
    evals = [(h["step"], h["eval_loss"]) for h in history if "eval_loss" in h]
    fig, ax = plt.subplots(figsize=(6.5, 4))
    if train:
        ax.plot(*zip(*train, strict=True), label="training loss", marker=".")
    if evals:
        ax.plot(*zip(*evals, strict=True), label="validation loss (held-out repositories)", marker="o")
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("cross-entropy (nats/token)")
    ax.set_title(f"HPC-Coder pretraining: {metrics['parameters'] / 1e6:.2f}M parameters, "
                 f"validation perplexity {metrics['validation_perplexity']:.1f}", fontsize=10)  # fmt: skip
    ax.legend()
    ax.grid(alpha=0.3)
    save_figure(fig, path)


def plot_pragma(metrics: dict[str, Any], path: str | Path) -> None:
    categories = metrics["categories"]
    series = [("HPC-Coder", metrics["model"]), ("majority pragma", metrics["baseline_majority"]),
              ("bare 'parallel for'", metrics["baseline_bare"])]  # fmt: skip
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(8, 4))
    for index, (label, scores) in enumerate(series):
        xs = [c + (index - 1) * width for c in range(len(categories))]
        bars = ax.bar(xs, [scores[c] for c in categories], width, label=label)
        ax.bar_label(bars, fmt="%.2f", fontsize=6)
    ax.set_xticks(range(len(categories)), categories, rotation=20)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("fraction of held-out loops")
    ax.set_title(f"OpenMP pragma prediction: {metrics['test_loops']} held-out loops "
                 f"({', '.join(metrics['test_repositories'])}), {metrics['train_loops']} fine-tuning loops", fontsize=10)  # fmt: skip
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


def plot_completion(metrics: dict[str, Any], path: str | Path) -> None:
    models = sorted(metrics["models"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    keys = [f"{name}@{k}" for name in ("build", "pass") for k in metrics["ks"]]
    width = 0.8 / len(keys)
    for index, key in enumerate(keys):
        values = [metrics["models"][m].get(key) or 0.0 for m in models]
        bars = left.bar([x + index * width - 0.4 + width / 2 for x in range(len(models))], values, width, label=key)
        left.bar_label(bars, fmt="%.2f", fontsize=7)  # a zero bar is invisible without its label
    left.set_xticks(range(len(models)), models)
    left.set_ylim(0, 1.05)
    left.set_ylabel("expected fraction of prompts")
    left.legend(fontsize=8)
    left.set_title("build@k and pass@k", fontsize=10)
    verdicts = sorted({v for m in models for v in metrics["models"][m]["verdicts"]})
    bottom = [0] * len(models)
    for verdict in verdicts:
        counts = [metrics["models"][m]["verdicts"].get(verdict, 0) for m in models]
        right.bar(models, counts, bottom=bottom, label=verdict)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    right.set_ylabel("samples")
    right.legend(fontsize=8)
    right.set_title("verdicts of the harness", fontsize=10)
    fig.suptitle("HPC-Coder code completion on PCGBench prompts", fontsize=11)
    save_figure(fig, path)


def plot_perfchange(metrics: dict[str, Any], path: str | Path) -> None:
    names = list(metrics["accuracy"])
    edits = sorted(next(iter(metrics["accuracy_by_edit"].values())))
    groups = ["all pairs", *edits]
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(10, 4))
    for index, name in enumerate(names):
        values = [metrics["accuracy"][name]] + [metrics["accuracy_by_edit"][name][e] for e in edits]
        bars = ax.bar([x + index * width - 0.4 + width / 2 for x in range(len(groups))], values, width, label=name)
        ax.bar_label(bars, fmt="%.2f", fontsize=6)
    ax.set_xticks(range(len(groups)), groups, rotation=25, fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy (slower vs not slower)")
    ax.set_title(f"Performance-change prediction: {metrics['pairs']} pairs from {metrics['kernels']} kernels of "
                 f"{len(metrics['problems'])} problems, "
                 f"{100 * metrics['slower_fraction']:.0f}% slower ({metrics['scoring']})", fontsize=9)  # fmt: skip
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


# Figure name (the PNG's name under results/hpccoder/figures/) -> (its one input, the metrics file; how it is drawn).
FIGURES: Registry = {
    "pretraining_loss": (("metrics",), plot_training),
    "pragma_prediction": (("metrics",), plot_pragma),
    "code_completion": (("metrics",), plot_completion),
    "performance_change": (("metrics",), plot_perfchange),
}


def main(pretrain_metrics_path, pragma_metrics_path, summary_path, seed: int, completion_metrics_path=None,
         perfchange_metrics_path=None) -> dict[str, Any]:  # fmt: skip
    prov = Provenance.start(step="hpccoder.summary", config={}, seed=seed)
    pretrain = read_json(pretrain_metrics_path)
    pragma = read_json(pragma_metrics_path)
    completion = read_json(completion_metrics_path) if completion_metrics_path else None
    perfchange = read_json(perfchange_metrics_path) if perfchange_metrics_path else None
    summary = {
        "pretraining": {k: pretrain[k] for k in ("model", "parameters", "steps", "tokens_seen", "train_time_s", "tokens_per_s",
                                                 "final_train_loss", "validation_loss", "validation_perplexity")},  # fmt: skip
        "pragma_prediction": {
            "test_loops": pragma["test_loops"],
            "train_loops": pragma["train_loops"],
            "exact_match": pragma["model"]["exact"],
            "all_clauses_match": pragma["model"]["all_clauses"],
            "clause_match": {c: pragma["model"][c] for c in pragma["categories"] if c not in ("exact", "all_clauses")},
            "baseline_majority_exact_match": pragma["baseline_majority"]["exact"],
            "baseline_majority_all_clauses_match": pragma["baseline_majority"]["all_clauses"],
        },
        "code_completion": completion,
        "performance_change": perfchange,
    }
    write_json(summary_path, summary)
    prov.finish([summary_path])
    return summary


if __name__ == "__main__":
    from workflow_scripts.common import configure_logging

    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(smk.input.pretrain, smk.input.pragma, smk.output.summary, smk.params.seed,
         completion_metrics_path=smk.input.get("completion"), perfchange_metrics_path=smk.input.get("perfchange"))  # fmt: skip
