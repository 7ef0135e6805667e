"""The survey's figures: the loss per step of every strategy against single-process training, and each strategy's
throughput, memory per rank and bytes communicated (measured beside the analytic model).

Input: results/disttrain/survey/runs.json (written by survey/run.py). Outputs (PNG, Agg backend) under
results/disttrain/survey/figures/: survey_loss.png, survey_costs.png.
Run by the `disttrain_figure_<name>` rules of rules/disttrain.smk, one per figure; tests call `main`.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common import snakemake_step  # noqa: E402
from workflow_scripts.common.figures import Registry, draw_figure, legend_outside, readable, save_figure  # noqa: E402

# The names the figures show for the strategies (survey.strategies) and the reference runs' tasks.
STRATEGY_NAMES = {"ddp": "DDP", "ddp_cnn": "DDP (CNN)", "zero1": "DeepSpeed ZeRO-1", "zero2": "DeepSpeed ZeRO-2",
                  "zero3": "DeepSpeed ZeRO-3", "fsdp2": "FSDP2", "tp": "tensor parallel (DTensor)",
                  "pp_gpipe": "pipeline (GPipe)", "pp_1f1b": "pipeline (1F1B)",
                  "hybrid_fsdp_tp": "FSDP2 x tensor parallel"}  # fmt: skip
TASK_NAMES = {"gpt": "small GPT", "cnn": "small CNN"}


def plot_loss(runs: dict, path: str) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for task, reference in runs["reference_losses"].items():
        ax.plot(range(1, len(reference) + 1), reference, "k-", lw=3, alpha=0.3,
                label=f"single process ({readable(task, TASK_NAMES)})")  # fmt: skip
    for name, row in runs["strategies"].items():
        ax.plot(range(1, len(row["losses"]) + 1), row["losses"], marker=".", label=readable(name, STRATEGY_NAMES))
    rows = runs["strategies"].values()
    matching = sum(row["loss_matches_single_process"] for row in rows)
    worst = max(row["max_rel_loss_diff"] for row in rows)
    ax.set(xlabel="step", ylabel="training loss (cross-entropy, nats)",
           title=f"{matching} of {len(rows)} strategies match single-process training\n"
                 f"(largest relative loss difference {worst:.1e})")  # fmt: skip
    ax.xaxis.get_major_locator().set_params(integer=True)
    legend_outside(ax, fontsize=7)
    save_figure(fig, path)


def plot_costs(runs: dict, path: str) -> None:
    """Three panels of horizontal bars sharing one strategy axis, so every name is written once, level."""
    rows = runs["strategies"]
    names = list(rows)
    y = list(range(len(names)))
    fig, axes = plt.subplots(1, 3, figsize=(12, 1.2 + 0.35 * len(names)), sharey=True)
    axes[0].barh(y, [rows[n]["throughput_tokens_per_s"] for n in names])
    axes[0].set(xlabel="tokens / s (shared CPU cores: indicative)", title="Throughput")
    state = [max(rows[n]["model_state_bytes_per_rank"]) / 1e3 for n in names]
    acts = [max(rows[n]["activations_bytes_per_rank"]) / 1e3 for n in names]
    axes[1].barh(y, state, label="parameters + gradients + optimizer state")
    axes[1].barh(y, acts, left=state, label="activations (peak saved)")
    axes[1].set(xlabel="kB per rank (max over ranks)", title="Memory per rank")
    axes[2].barh(y, [max(rows[n]["message_bytes_per_step_per_rank"]) / 1e3 for n in names], color="C2",
                 label="communicated, measured")  # fmt: skip
    analytic = [max(sum(a.values()) for a in rows[n]["analytic_bytes_by_op_per_rank"]) / 1e3 for n in names]
    axes[2].plot(analytic, y, "k|", markersize=14, mew=2, label="communicated, analytic model")
    axes[2].set(xlabel="kB per step per rank (logical bytes)", title="Communication")
    axes[0].set_yticks(y, [readable(n, STRATEGY_NAMES) for n in names])
    axes[0].invert_yaxis()  # the configured order, top to bottom
    handles = [h for ax in axes[1:] for h in ax.get_legend_handles_labels()[0]]
    matching = sum(rows[n]["bytes_match_analytic"] for n in names)
    fig.suptitle(f"Measured bytes match the analytic model for {matching} of {len(names)} strategies", fontsize=10)
    fig.legend(handles, [h.get_label() for h in handles], loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4,
               fontsize=8, frameon=False)  # fmt: skip
    fig.tight_layout()
    save_figure(fig, path)


# Figure name -> (the inputs it is drawn from, how). One Snakemake rule per figure.
FIGURES: Registry = {
    "survey_loss": (("runs",), plot_loss),
    "survey_costs": (("runs",), plot_costs),
}


def main(*, figure: str, output: str, runs: str | None = None, caption: str | None = None) -> None:
    draw_figure("disttrain/survey", FIGURES, figure, output, {"runs": runs}, caption=caption)


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, runs=smk.input.runs, caption=smk.input.caption)
