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
from workflow_scripts.common.figures import (  # noqa: E402
    Registry,
    draw_figure,
    legend_below,
    legend_outside,
    mark_missing,
    readable,
    save_figure,
)

# The names the figures show for the pipeline schedules (axonn.schedules).
SCHEDULE_NAMES = {"gpipe": "GPipe", "1f1b": "1F1B", "message_driven": "AxoNN message-driven"}


def _schedules(rows: dict) -> list[str]:
    """The schedules run with offload (the no-offload baseline is drawn only in the memory figure)."""
    return [k for k in rows if not k.endswith("_no_offload")]


def plot_schedules(runs: dict, path: str) -> None:
    rows = runs["rows"]
    labels = _schedules(rows)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    axes[0].bar([readable(k, SCHEDULE_NAMES) for k in labels], [rows[k]["median_batch_time_s"] for k in labels],
                yerr=[rows[k]["batch_time_spread_s"] / 2 for k in labels], capsize=4)  # fmt: skip
    title = "Batch time under stage jitter"
    if {"gpipe", "message_driven"} <= set(labels):  # the paper's comparison, computed from the medians drawn
        speed = rows["gpipe"]["median_batch_time_s"] / rows["message_driven"]["median_batch_time_s"]
        title += f":\nmessage-driven runs at {speed:.2f}x GPipe's speed"
    axes[0].set(ylabel="batch time, s (median; bar: spread)", title=title)
    stages = len(rows[labels[0]]["idle_fraction_per_stage"])
    width = 0.8 / len(labels)
    for i, k in enumerate(labels):
        axes[1].bar([s + i * width for s in range(stages)], rows[k]["idle_fraction_per_stage"], width,
                    label=readable(k, SCHEDULE_NAMES))  # fmt: skip
    axes[1].set(xlabel="stage", ylabel="idle fraction of the batch", title="Idle time per stage",
                xticks=[s + width for s in range(stages)], xticklabels=[str(s) for s in range(stages)])  # fmt: skip
    legend_outside(axes[1])
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
        title = f"{readable(k, SCHEDULE_NAMES)} (blue forward, orange backward; numbers: microbatch)"
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
        ax.set_yticks(range(len(rows[k]["timeline_last_batch"])))  # whole stages, not 0.5
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
    axes[0].bar([i + 0.2 for i in x], [b / 1e3 for b in offload["device_bytes_per_stage"]], 0.4,
                label="optimizer state offloaded to the CPU")  # fmt: skip
    ratio = sum(baseline["device_bytes_per_stage"]) / sum(offload["device_bytes_per_stage"])
    axes[0].set(xlabel="pipeline stage", ylabel="device model-state kB", xticks=list(x),
                title=f"Measured: offload keeps {ratio:.1f}x less model state on the device")  # fmt: skip
    names = [f"{r['parameters'] / 1e9:.0f}B parameters\non {r['devices']} devices" for r in projection]
    for shift, label, name in ((-0.2, "no_offload", "no offload"), (0.2, "offload", "optimizer state offloaded")):
        xs = [i + shift for i in range(len(projection))]
        # a model that does not fit has no fraction of peak: no bar and a note, never a 0 bar
        axes[1].bar(xs, [100 * r[label]["fraction_of_peak"] if r[label]["fits"] else float("nan") for r in projection],
                    0.4, label=name, color="C0" if label == "no_offload" else "C1")  # fmt: skip
        mark_missing(axes[1], [x for x, r in zip(xs, projection, strict=True) if not r[label]["fits"]],
                     "does not\nfit", fontsize=8)  # fmt: skip
    axes[1].set(xticks=list(range(len(projection))), xticklabels=names, ylabel="% of peak (alpha-beta model)",
                title=f"Projection on {summary['projection_machine'].split(' (')[0]}")  # fmt: skip
    legend_below(fig, axes[0], ncol=2)
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
