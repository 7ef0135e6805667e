"""HPC-Coder summary, and how each of its figures is drawn.

Inputs: the pretraining metrics (loss curves, perplexity), the pragma-prediction metrics, and, when
those evaluations ran, the code-completion and performance-change metrics.
With `hpccoder.from_scratch` (workflow_scripts/hpccoder/arms.py), the same metrics of the from-scratch model too.
Outputs: `results/hpccoder/summary.json` with the headline numbers (`main`, rule hpccoder_summary) and, with the
from-scratch model, its block (`from_scratch`) and a `comparison` table of the two (`comparison`). The
`plot_*` functions draw one figure each from one metrics file; `workflow_scripts/hpccoder/figures.py` runs them,
one rule per figure (`hpccoder_figure_<name>`), so deleting one figure redraws only it.

Run: `snakemake hpccoder` (rules/hpccoder.smk), or call `main(...)` from Python.
"""

import logging
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common import Provenance, read_json, write_json  # noqa: E402
from workflow_scripts.common.figures import (  # noqa: E402
    EXECUTION_MODEL_NAMES,
    NOT_MEASURED,
    VERDICT_COLOURS,
    VERDICT_NAMES,
    Registry,
    legend_below,
    legend_outside,
    mark_missing,
    readable,
    save_figure,
)

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
    ax.set_xticks(range(len(categories)), [c.replace("_", " ") for c in categories], rotation=20)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("fraction of held-out loops")
    ax.set_title(f"OpenMP pragma prediction: {metrics['test_loops']} held-out loops "
                 f"({', '.join(metrics['test_repositories'])}), {metrics['train_loops']} fine-tuning loops", fontsize=10)  # fmt: skip
    legend_outside(ax)
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


# Names the performance-change figure shows for the classifiers (perfchange.py's predictions) and the edits
# (perfchange.py and kernel_edits.py; an edit not listed here shows its code name with spaces).
CLASSIFIER_NAMES = {"hpccoder_head": "HPC-Coder embeddings + logistic regression",
                    "feature_baseline": "code counts (pragmas, loops, lines) + logistic regression",
                    "majority_baseline": "majority class of the training problems"}  # fmt: skip
EDIT_NAMES = {"pragma_removed": "OpenMP pragmas\nremoved", "schedule_dynamic_1": "schedule\n(dynamic, 1)",
              "schedule_static": "schedule\n(static)", "one_thread": "num_threads(1)",
              "loop_interchange": "loops\ninterchanged", "transposed_layout": "matrix read\ntransposed",
              "selection_to_sort": "selection\nby full sort", "early_exit_removed": "early exit\nremoved"}  # fmt: skip


def plot_completion(metrics: dict[str, Any], path: str | Path) -> None:
    models = sorted(metrics["models"])
    names = [readable(m, EXECUTION_MODEL_NAMES) for m in models]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    keys = [f"{name}@{k}" for name in ("build", "pass") for k in metrics["ks"]]
    width = 0.8 / len(keys)
    for index, key in enumerate(keys):
        values = [metrics["models"][m].get(key) for m in models]  # None: k above the samples per prompt
        xs = [x + index * width - 0.4 + width / 2 for x in range(len(models))]
        bars = left.bar(xs, [float("nan") if v is None else v for v in values], width, label=key)
        # every value is written, so a bar of 0 is seen; a missing one is marked "n/m" instead
        left.bar_label(bars, labels=["" if v is None else f"{v:.2f}" for v in values], fontsize=7)
        mark_missing(left, [x for x, v in zip(xs, values, strict=True) if v is None])
    left.set_xticks(range(len(models)), names)
    left.set_ylim(0, 1.05)
    left.set_ylabel("expected fraction of prompts")
    legend_outside(left, title=f"{NOT_MEASURED}: k above the\nsamples per prompt", title_fontsize=7)
    left.set_title("build@k and pass@k", fontsize=10)
    verdicts = sorted({v for m in models for v in metrics["models"][m]["verdicts"]})
    bottom = [0] * len(models)
    for verdict in verdicts:
        counts = [metrics["models"][m]["verdicts"].get(verdict, 0) for m in models]
        right.bar(names, counts, bottom=bottom, label=readable(verdict, VERDICT_NAMES),
                  color=VERDICT_COLOURS.get(verdict))  # fmt: skip
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    right.set_ylabel("samples")
    legend_outside(right)
    right.set_title("how the samples ended", fontsize=10)
    fig.suptitle("HPC-Coder code completion on PCGBench prompts", fontsize=11)
    save_figure(fig, path)


def plot_perfchange(metrics: dict[str, Any], path: str | Path) -> None:
    names = list(metrics["accuracy"])
    edits = sorted(next(iter(metrics["accuracy_by_edit"].values())))
    groups = ["all pairs", *(readable(e, EDIT_NAMES) for e in edits)]
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(10, 4))
    for index, name in enumerate(names):
        values = [metrics["accuracy"][name]] + [metrics["accuracy_by_edit"][name][e] for e in edits]
        bars = ax.bar([x + index * width - 0.4 + width / 2 for x in range(len(groups))], values, width,
                      label=readable(name, CLASSIFIER_NAMES))  # fmt: skip
        ax.bar_label(bars, fmt="%.2f", fontsize=6)
    ax.set_xticks(range(len(groups)), groups, fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy (slower vs not slower)")
    ax.set_title(f"Performance-change prediction: {metrics['pairs']} pairs from {metrics['kernels']} kernels of "
                 f"{len(metrics['problems'])} problems, "
                 f"{100 * metrics['slower_fraction']:.0f}% slower ({metrics['scoring']})", fontsize=9)  # fmt: skip
    legend_below(fig, ax, ncol=1)
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


def _comparison_metric_name(metric: str) -> str:
    """A metric of the comparison table in words: "omp.pass@1" -> "OpenMP pass@1", "accuracy.hpccoder_head" ->
    "accuracy (HPC-Coder classifier)", "all_clauses_match" -> "all clauses match"."""
    head, _, tail = metric.partition(".")
    if not tail:
        return metric.replace("_", " ")
    if head == "accuracy":
        return "accuracy (HPC-Coder classifier)" if tail == PERFCHANGE_MODEL_CLASSIFIER else f"accuracy ({tail})"
    return f"{readable(head, EXECUTION_MODEL_NAMES)} {tail}"


def plot_from_scratch_vs_pretrained(summary: dict[str, Any], path: str | Path) -> None:
    """The summary's comparison table: each metric for the fine-tuned model and the from-scratch one."""
    # The fractions share one axis; the loss per character (nats, lower is better) goes in the title.
    rows = [(f"{evaluation.replace('_', ' ')}\n{_comparison_metric_name(metric)}", row)
            for evaluation, metrics in summary["comparison"].items()
            if evaluation not in ("not_compared", "pretraining") for metric, row in metrics.items()]  # fmt: skip
    width = 0.4
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(rows)), 4.5))
    base = summary["pretraining"]["model"]  # a folder, a .gguf file or a source mapping
    base = Path(base).name if isinstance(base, str) else base
    for index, (arm, label) in enumerate((("pretrained", f"fine-tuned from {base}"),
                                          ("from_scratch", f"from scratch ({summary['from_scratch']['pretraining']['model']})"))):  # fmt: skip
        xs = [x + (index - 0.5) * width for x in range(len(rows))]
        # a metric one model lacks has no bar and says so; a bar of 0 is a measured 0
        bars = ax.bar(xs, [float("nan") if row[arm] is None else row[arm] for _, row in rows], width, label=label)
        ax.bar_label(bars, labels=["" if row[arm] is None else f"{row[arm]:.2f}" for _, row in rows], fontsize=6)
        mark_missing(ax, [x for x, (_, row) in zip(xs, rows, strict=True) if row[arm] is None], fontsize=6)
    ax.set_xticks(range(len(rows)), [name for name, _ in rows], rotation=25, fontsize=7, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("fraction (match, accuracy, pass@1, build@1)")
    pretrained, scratch = summary["pretraining"], summary["from_scratch"]["pretraining"]
    loss = summary["comparison"]["pretraining"]["validation_loss_per_char"]
    losses = ("" if None in (loss["pretrained"], loss["from_scratch"]) else
              f"\nvalidation loss per character {loss['pretrained']:.3f} vs {loss['from_scratch']:.3f} nats (lower is better)")  # fmt: skip
    ax.set_title(f"HPC-Coder on the same corpus: {pretrained['parameters'] / 1e6:.3g}M parameters fine-tuned "
                 f"vs {scratch['parameters'] / 1e6:.3g}M from scratch{losses}", fontsize=10)  # fmt: skip
    legend_outside(ax)
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


# Figure name (the PNG's name under results/hpccoder/figures/) -> (its one input, the metrics file; how it is drawn).
FIGURES: Registry = {
    "pretraining_loss": (("metrics",), plot_training),
    "pragma_prediction": (("metrics",), plot_pragma),
    "code_completion": (("metrics",), plot_completion),
    "performance_change": (("metrics",), plot_perfchange),
    # drawn from summary.json (rules/hpccoder.smk hands it as the figure's metrics), only with hpccoder.from_scratch
    "from_scratch_vs_pretrained": (("metrics",), plot_from_scratch_vs_pretrained),
}


def arm_summary(pretrain: dict[str, Any], pragma: dict[str, Any], completion: dict[str, Any] | None,
                perfchange: dict[str, Any] | None) -> dict[str, Any]:  # fmt: skip
    """One model's headline numbers, from its evaluations' metrics (None: that evaluation did not run)."""
    return {
        "pretraining": {k: pretrain[k] for k in ("model", "parameters", "steps", "tokens_seen", "train_time_s", "tokens_per_s",
                                                 "final_train_loss", "validation_loss", "validation_perplexity")}
                       # per character of the validation text (pretrain.py; absent from metrics of older runs)
                       | {"validation_loss_per_char": pretrain.get("validation_loss_per_char")},  # fmt: skip
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


# The model's own classifier in performance_change.accuracy (the others are baselines that do not use the model).
PERFCHANGE_MODEL_CLASSIFIER = "hpccoder_head"
# Not compared: validation loss and perplexity are per token of each model's own tokenizer (a pretrained base
# brings its own vocabulary), so the same text is a different number of tokens; the loss per character is compared.
PER_TOKEN = "per token of each model's own tokenizer: not comparable across tokenizers (see validation_loss_per_char)"
NOT_COMPARED = {"validation_loss": PER_TOKEN, "validation_perplexity": PER_TOKEN}


def _row(pretrained: float | None, from_scratch: float | None, higher_is_better: bool = True) -> dict[str, Any]:
    if pretrained is None or from_scratch is None:
        higher = None
    else:
        higher = "equal" if pretrained == from_scratch else ("pretrained" if pretrained > from_scratch else "from_scratch")
    return {"pretrained": pretrained, "from_scratch": from_scratch, "higher": higher, "higher_is_better": higher_is_better}


def comparison(pretrained: dict[str, Any], from_scratch: dict[str, Any]) -> dict[str, Any]:
    """Per evaluation and metric: the fine-tuned (pretrained-base) value, the from-scratch value, which is higher.

    Both arguments are `arm_summary` blocks. An evaluation that ran for one model only is left out; so is a
    completion execution model scored for one only.
    """
    table: dict[str, Any] = {
        # nats per character of the validation text: lower is better
        "pretraining": {"validation_loss_per_char": _row(pretrained["pretraining"]["validation_loss_per_char"],
                                                         from_scratch["pretraining"]["validation_loss_per_char"],
                                                         higher_is_better=False)},  # fmt: skip
        "pragma_prediction": {metric: _row(pretrained["pragma_prediction"][metric], from_scratch["pragma_prediction"][metric])
                              for metric in ("exact_match", "all_clauses_match")},  # fmt: skip
    }
    if pretrained["performance_change"] and from_scratch["performance_change"]:
        table["performance_change"] = {
            f"accuracy.{PERFCHANGE_MODEL_CLASSIFIER}": _row(
                pretrained["performance_change"]["accuracy"][PERFCHANGE_MODEL_CLASSIFIER],
                from_scratch["performance_change"]["accuracy"][PERFCHANGE_MODEL_CLASSIFIER])}  # fmt: skip
    if pretrained["code_completion"] and from_scratch["code_completion"]:
        models = pretrained["code_completion"]["models"]
        scratch_models = from_scratch["code_completion"]["models"]
        table["code_completion"] = {f"{model}.{metric}": _row(models[model].get(metric), scratch_models[model].get(metric))
                                    for model in sorted(set(models) & set(scratch_models))
                                    for metric in ("pass@1", "build@1")}  # fmt: skip
    table["not_compared"] = dict(NOT_COMPARED)
    return table


def main(pretrain_metrics_path, pragma_metrics_path, summary_path, seed: int, completion_metrics_path=None,
         perfchange_metrics_path=None, from_scratch: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """`from_scratch`: the from-scratch model's metrics files, keyed pretrain, pragma and, when they ran,
    completion and perfchange; given, the summary adds its block and the comparison table."""
    prov = Provenance.start(step="hpccoder.summary", config={}, seed=seed)

    def read_optional(path):
        return read_json(path) if path else None

    summary = arm_summary(read_json(pretrain_metrics_path), read_json(pragma_metrics_path),
                          read_optional(completion_metrics_path), read_optional(perfchange_metrics_path))  # fmt: skip
    if from_scratch:
        missing = sorted({"pretrain", "pragma"} - set(from_scratch))
        if missing:
            raise ValueError(f"hpccoder summary: the from-scratch model's {', '.join(missing)} metrics are missing")
        scratch = arm_summary(read_json(from_scratch["pretrain"]), read_json(from_scratch["pragma"]),
                              read_optional(from_scratch.get("completion")), read_optional(from_scratch.get("perfchange")))  # fmt: skip
        summary["from_scratch"] = scratch
        summary["comparison"] = comparison(summary, scratch)
    write_json(summary_path, summary)
    prov.finish([summary_path])
    return summary


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    prefix = "from_scratch_"  # the from-scratch model's inputs (rules/hpccoder.smk)
    scratch_inputs = {name[len(prefix):]: path for name, path in smk.input.items() if name.startswith(prefix)}
    main(smk.input.pretrain, smk.input.pragma, smk.output.summary, smk.params.seed,
         completion_metrics_path=smk.input.get("completion"), perfchange_metrics_path=smk.input.get("perfchange"),
         from_scratch=scratch_inputs or None)  # fmt: skip
