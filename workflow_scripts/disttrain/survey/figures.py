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
from workflow_scripts.common.figures import Registry, draw_figure, save_figure  # noqa: E402


def plot_loss(runs: dict, path: str) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for task, reference in runs["reference_losses"].items():
        ax.plot(range(1, len(reference) + 1), reference, "k-", lw=3, alpha=0.3, label=f"single process ({task})")
    for name, row in runs["strategies"].items():
        ax.plot(range(1, len(row["losses"]) + 1), row["losses"], marker=".", label=name)
    ax.set(xlabel="step", ylabel="training loss (global batch)", title="Same loss per step for every strategy")
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)


def plot_costs(runs: dict, path: str) -> None:
    rows = runs["strategies"]
    names = list(rows)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    axes[0].bar(names, [rows[n]["throughput_tokens_per_s"] for n in names])
    axes[0].set(ylabel="tokens / s (2 shared CPU cores: indicative)", title="Throughput")
    state = [max(rows[n]["model_state_bytes_per_rank"]) / 1e3 for n in names]
    acts = [max(rows[n]["activations_bytes_per_rank"]) / 1e3 for n in names]
    axes[1].bar(names, state, label="parameters + gradients + optimizer")
    axes[1].bar(names, acts, bottom=state, label="activations (peak saved)")
    axes[1].set(ylabel="kB per rank (max over ranks)", title="Memory per rank")
    axes[1].legend(fontsize=7)
    axes[2].bar(names, [max(rows[n]["message_bytes_per_step_per_rank"]) / 1e3 for n in names], label="measured")
    analytic = [max(sum(a.values()) for a in rows[n]["analytic_bytes_by_op_per_rank"]) / 1e3 for n in names]
    axes[2].plot(names, analytic, "k_", markersize=20, mew=2, label="analytic model")
    axes[2].set(ylabel="kB per step per rank", title="Communication (logical bytes)")
    axes[2].legend(fontsize=7)
    for ax in axes:
        ax.tick_params(axis="x", rotation=60)
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
