"""The AxoNN study's figures: batch time and idle time per stage of each schedule under jitter, the last batch's
timeline per stage, and device memory with and without offload beside the projection's fraction of peak.

Inputs: results/disttrain/axonn/runs.json (all three) and summary.json (its `projection` and
`projection_machine`, axonn_memory), written by axonn/run.py. Outputs (PNG, Agg backend) under
results/disttrain/axonn/figures/: axonn_schedules.png, axonn_timeline.png, axonn_memory.png.
Run by the `disttrain_figure_<name>` rules of rules/disttrain.smk; tests call `main`.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common import snakemake_step  # noqa: E402
from workflow_scripts.common.figures import Registry, draw_figure, save_figure  # noqa: E402


def _schedules(rows: dict) -> list[str]:
    """The schedules run with offload (the no-offload baseline is drawn only in the memory figure)."""
    return [k for k in rows if not k.endswith("_no_offload")]


def plot_schedules(runs: dict, path: str) -> None:
    rows = runs["rows"]
    labels = _schedules(rows)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    axes[0].bar(labels, [rows[k]["median_batch_time_s"] for k in labels],
                yerr=[rows[k]["batch_time_spread_s"] / 2 for k in labels], capsize=4)  # fmt: skip
    axes[0].set(ylabel="batch time, s (median; bar: spread)", title="Batch time under stage jitter")
    stages = len(rows[labels[0]]["idle_fraction_per_stage"])
    width = 0.8 / len(labels)
    for i, k in enumerate(labels):
        axes[1].bar([s + i * width for s in range(stages)], rows[k]["idle_fraction_per_stage"], width, label=k)
    axes[1].set(xlabel="stage", ylabel="idle fraction of the batch", title="Idle time per stage",
                xticks=[s + width for s in range(stages)], xticklabels=[str(s) for s in range(stages)])  # fmt: skip
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def plot_timeline(runs: dict, path: str) -> None:
    rows = runs["rows"]
    labels = _schedules(rows)
    fig, axes = plt.subplots(len(labels), 1, figsize=(10, 2.2 * len(labels)), sharex=True, squeeze=False)
    for ax, k in zip(axes[:, 0], labels, strict=True):
        for stage, timeline in enumerate(rows[k]["timeline_last_batch"]):
            for kind, mb, start, end in timeline:
                ax.barh(stage, end - start, left=start, color="tab:blue" if kind == "F" else "tab:orange",
                        edgecolor="white")  # fmt: skip
                ax.text((start + end) / 2, stage, str(mb), ha="center", va="center", fontsize=6, color="white")
        row = rows[k]
        title = f"{k} (blue forward, orange backward; numbers: microbatch)"
        if "last_batch" in row:  # what the stages measured: CPU used and time ready but waiting for a core
            last = row["last_batch"]
            title += (f"; median batch {row['median_batch_time_s']:.2f} s, {row['cores_used_median']:.2f} cores "
                      f"busy, ready-but-waiting {row['oversleep_s_per_batch_median']:.2f} s/batch")  # fmt: skip
            for stage, (cpu, wait) in enumerate(zip(last["cpu_s_per_stage"], last["oversleep_s_per_stage"],
                                                    strict=True)):  # fmt: skip
                ax.annotate(f"cpu {cpu:.2f} s, waited {wait:.2f} s", (1.0, stage), xycoords=("axes fraction", "data"),
                            xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)  # fmt: skip
        ax.set_title(title, fontsize=8)
        ax.set_ylabel("stage")
        ax.invert_yaxis()
    axes[-1, 0].set_xlabel("time since the batch start, s")
    fig.tight_layout()
    save_figure(fig, path)


def plot_memory(runs: dict, summary: dict, path: str) -> None:
    rows, projection = runs["rows"], summary["projection"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    offload, baseline = rows["1f1b"], rows["1f1b_no_offload"]
    x = range(len(offload["device_bytes_per_stage"]))
    axes[0].bar([i - 0.2 for i in x], [b / 1e3 for b in baseline["device_bytes_per_stage"]], 0.4, label="no offload")
    axes[0].bar([i + 0.2 for i in x], [b / 1e3 for b in offload["device_bytes_per_stage"]], 0.4, label="offload")
    axes[0].set(xlabel="stage", ylabel="device model-state kB", xticks=list(x),
                title="Measured: device keeps half-precision weights + grads")  # fmt: skip
    axes[0].legend(fontsize=8)
    names = [f"{r['parameters'] / 1e9:.0f}B/{r['devices']}" for r in projection]
    for shift, label in ((-0.2, "no_offload"), (0.2, "offload")):
        values = [100 * r[label]["fraction_of_peak"] if r[label]["fits"] else 0 for r in projection]
        axes[1].bar([i + shift for i in range(len(projection))], values, 0.4, label=label)
    axes[1].set(xticks=list(range(len(projection))), xticklabels=names, ylabel="% of peak (model)",
                title=f"Projection on {summary['projection_machine'].split(' (')[0]} (0 = does not fit)")  # fmt: skip
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


# Figure name -> (the inputs it is drawn from, how). One Snakemake rule per figure.
FIGURES: Registry = {
    "axonn_schedules": (("runs",), plot_schedules),
    "axonn_timeline": (("runs",), plot_timeline),
    "axonn_memory": (("runs", "summary"), plot_memory),
}


def main(*, figure: str, output: str, runs: str | None = None, summary: str | None = None,
         caption: str | None = None) -> None:  # fmt: skip
    draw_figure("disttrain/axonn", FIGURES, figure, output, {"runs": runs, "summary": summary}, caption=caption)


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, runs=smk.input.get("runs"),
         summary=smk.input.get("summary"), caption=smk.input.caption)  # fmt: skip
