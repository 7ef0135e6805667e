"""The sparse study's figures: measured model state and gradient all-reduce bytes per density (dense vs sparse,
with the analytic bytes), and the projection's bytes per parameter and all-reduce time at the paper's scale.

Inputs: results/disttrain/sparse/runs.json (sparse_costs) and summary.json (its `projection`, sparse_projection),
written by sparse/run.py. Outputs (PNG, Agg backend) under results/disttrain/sparse/figures/: sparse_costs.png,
sparse_projection.png. Run by the `disttrain_figure_<name>` rules of rules/disttrain.smk; tests call `main`.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common import snakemake_step  # noqa: E402
from workflow_scripts.common.figures import Registry, draw_figure, legend_below, save_figure  # noqa: E402


def plot_costs(runs: dict, path: str) -> None:
    rows = runs["rows"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for mode, marker, name in (("dense", "s", "dense: every weight stored"),
                               ("sparse", "o", "sparse: only the unpruned weights")):  # fmt: skip
        sel = [r for r in rows if r["mode"] == mode]
        d = [r["density"] for r in sel]
        axes[0].plot(d, [r["model_state_bytes"] / 1e3 for r in sel], marker, label=f"{name}, measured")
        axes[1].plot(d, [r["all_reduce_bytes_per_step"] / 1e3 for r in sel], marker, label=f"{name}, measured")
        axes[1].plot(d, [r["analytic_all_reduce_bytes"] / 1e3 for r in sel], "k_", markersize=18,
                     label="analytic model" if mode == "dense" else None)  # fmt: skip
    axes[0].set(xlabel="density (fraction of linear weights kept)", ylabel="kB per rank",
                title="Model state: weights, grads, fp32 master, Adam")  # fmt: skip
    axes[1].set(xlabel="density (fraction of linear weights kept)", ylabel="kB per step per rank",
                title="Gradient all-reduce")  # fmt: skip
    legend_below(fig, axes[1], ncol=3)
    fig.tight_layout()
    save_figure(fig, path)


def plot_projection(summary: dict, path: str) -> None:
    projection = summary["projection"]
    by = projection["by_density"]
    labels = [f"density {r['density']}" for r in by]
    x = range(len(by))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    axes[0].bar([i - 0.2 for i in x], [r["dense_bytes_per_parameter"] for r in by], 0.4, label="dense")
    axes[0].bar([i + 0.2 for i in x], [r["sparse_bytes_per_parameter"] for r in by], 0.4, label="sparse")
    axes[0].set(xticks=list(x), xticklabels=labels, ylabel="bytes per parameter",
                title=f"{projection['parameters'] / 1e9:.1f}B model: memory")  # fmt: skip
    axes[1].bar([i - 0.2 for i in x], [r["dense_allreduce_s"] for r in by], 0.4, label="dense")
    axes[1].bar([i + 0.2 for i in x], [r["sparse_allreduce_s"] for r in by], 0.4, label="sparse")
    axes[1].set(xticks=list(x), xticklabels=labels, ylabel="s per step (alpha-beta model)",
                title=f"gradient all-reduce on {projection['devices']} devices")  # fmt: skip
    legend_below(fig, axes[0], ncol=2)
    fig.tight_layout()
    save_figure(fig, path)


# Figure name -> (the inputs it is drawn from, how). One Snakemake rule per figure.
FIGURES: Registry = {
    "sparse_costs": (("runs",), plot_costs),
    "sparse_projection": (("summary",), plot_projection),
}


def main(*, figure: str, output: str, runs: str | None = None, summary: str | None = None,
         caption: str | None = None) -> None:  # fmt: skip
    draw_figure("disttrain/sparse", FIGURES, figure, output, {"runs": runs, "summary": summary}, caption=caption)


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, runs=smk.input.get("runs"),
         summary=smk.input.get("summary"), caption=smk.input.caption)  # fmt: skip
