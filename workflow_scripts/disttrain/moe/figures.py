"""The TED MoE figures: all-to-all calls and bytes per variant (measured beside the model), the tiled optimizer's
peak transient memory per tile size, and the projection's step time and largest base model that fits.

Inputs: results/disttrain/moe/validation.json (moe_all_to_all, moe_optimizer_memory) and projection.json
(moe_projection), sensitivity.json (moe_sensitivity). Outputs (PNG, Agg backend) under results/disttrain/moe/figures/: moe_all_to_all.png,
moe_optimizer_memory.png, moe_projection.png, moe_sensitivity.png.
Run by the `disttrain_figure_<name>` rules of rules/disttrain_layers.smk; tests call `main`.
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
from workflow_scripts.disttrain.sensitivity_plot import plot_sensitivity  # noqa: E402

# The names the figures show for the measured variants of the block (validate.py), the projection's variants
# (project.VARIANTS) and the parts of its step time.
VARIANT_NAMES = {"baseline": "plain block", "dtd": "duplicate token dropping",
                 "checkpoint": "activation checkpointing", "checkpoint_comm_aware": "communication-aware checkpointing",
                 "all": "all optimisations"}  # fmt: skip
PROJECTION_VARIANT_NAMES = {"without": "no optimisation", "dtd_only": "duplicate token\ndropping only",
                            "checkpoint_only": "communication-aware\ncheckpointing only", "with": "both"}  # fmt: skip
STEP_PART_NAMES = {"compute_s": "compute", "all_to_all_s": "all-to-all",
                   "dtd_gather_s": "all-gather after token dropping",
                   "tensor_allreduce_s": "tensor-parallel all-reduce",
                   "data_allreduce_s": "data-parallel all-reduce (not hidden)"}  # fmt: skip


def plot_all_to_all(validation: dict, path: str) -> None:
    variants = validation["check"]["variants"]
    names = [n for n in VARIANT_NAMES if n in variants] + [n for n in variants if n not in VARIANT_NAMES]
    y = list(range(len(names)))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 1.4 + 0.4 * len(names)), sharey=True)
    ax1.barh(y, [variants[n]["all_to_all_calls"] for n in names])
    ax1.set_xlabel("all-to-alls per step (measured)")
    ax2.barh(y, [variants[n]["all_to_all_message_bytes"] for n in names], label="measured")
    ax2.plot([sum(v["message_bytes"] for k, v in variants[n]["model_totals"].items()
                  if k.startswith("all_to_all_single")) for n in names], y,
             "k|", markersize=16, mew=2, label="model")  # fmt: skip
    ax2.set_xlabel("all-to-all bytes per rank per step")
    ax1.set_yticks(y, [readable(n, VARIANT_NAMES) for n in names])
    ax1.invert_yaxis()
    legend_outside(ax2)
    fig.suptitle(f"TED MoE block on {validation['world_size']} processes (tensor degree "
                 f"{validation['params']['tensor_parallel']}, expert degree {validation['params']['expert_parallel']})",
                 fontsize=10)  # fmt: skip
    fig.tight_layout()
    save_figure(fig, path)


def plot_optimizer_memory(validation: dict, path: str) -> None:
    points = validation["optimizer"]["points"]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.loglog([p["tile_elems"] for p in points], [p["peak_transient_bytes"] / 1e6 for p in points], "o-",
              label="measured peak transient")  # fmt: skip
    ax.loglog([p["tile_elems"] for p in points], [p["fp32_tile_bytes"] / 1e6 for p in points], "--",
              label="one fp32 copy of the tile")  # fmt: skip
    ax.set_xlabel("tile (elements)")
    ax.set_ylabel("MB")
    ax.set_title(f"optimizer step, {validation['optimizer']['partition_elems']:,} parameters", fontsize=9)
    ax.legend(fontsize=8)
    save_figure(fig, path)


def plot_projection(projection: dict, path: str) -> None:
    """Every number in the titles is computed (projection.json); the paper's are on the claims page."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    step = projection["step"]
    order = ["without", "dtd_only", "checkpoint_only", "with"]
    parts = ["compute_s", "all_to_all_s", "dtd_gather_s", "tensor_allreduce_s", "data_allreduce_s"]
    bottom = [0.0] * len(order)
    names = [readable(v, PROJECTION_VARIANT_NAMES) for v in order]
    for part in parts:
        # Only the exposed part of the data all-reduce adds to the step (data_allreduce_hidden_s overlaps backward).
        values = [step[v][part] - (step[v].get("data_allreduce_hidden_s", 0.0) if part == "data_allreduce_s" else 0)
                  for v in order]  # fmt: skip
        ax1.bar(names, values, bottom=bottom, label=STEP_PART_NAMES[part])
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax1.set_ylabel("modelled step time (s)")
    ax1.set_title(f"MoE of {projection['total_params'] / 1e9:.1f}B parameters ({projection['base_params'] / 1e9:.1f}B "
                  f"base) on {projection['devices']} GPUs:\nthe optimisations cut the step time by "
                  f"{100 * projection['speedup']:.0f}%", fontsize=9)  # fmt: skip
    ax1.tick_params(axis="x", labelsize=8)
    legend_below(fig, ax1, ncol=3)
    fits = projection["largest_base_that_fits"]
    labels = ["non-expert part replicated\n(DeepSpeed-MoE style)", "TED"]
    keys = ("deepspeed_moe", "ted")
    ax2.bar(labels, [fits[k]["base_params"] / 1e9 if fits[k] else float("nan") for k in keys])
    for x, k in enumerate(keys):
        if fits[k]:
            ax2.annotate(f"{fits[k]['name']} base, tensor degree {fits[k]['layout']['tensor']}",
                         (x, fits[k]["base_params"] / 1e9), ha="center", va="bottom", fontsize=8)  # fmt: skip
    mark_missing(ax2, [x for x, k in enumerate(keys) if not fits[k]], "no base\nmodel fits", fontsize=8)
    ax2.set_ylabel("largest base model that fits (B parameters)")
    ratio = projection["base_size_ratio"]
    ax2.set_title(f"TED fits a {ratio:.1f}x larger base model" if ratio else "no base model fits", fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)


def plot_projection_sensitivity(sensitivity: dict, path: str) -> None:
    plot_sensitivity(sensitivity, path,
                     titles={"speedup": "step-time reduction from the optimisations",
                             "base_size_ratio": "largest base model vs DeepSpeed-MoE's"},
                     scales={"speedup": 100, "base_size_ratio": 1},
                     units={"speedup": "%", "base_size_ratio": "x"})  # fmt: skip


# Figure name -> (the inputs it is drawn from, how). One Snakemake rule per figure.
FIGURES: Registry = {
    "moe_all_to_all": (("validation",), plot_all_to_all),
    "moe_optimizer_memory": (("validation",), plot_optimizer_memory),
    "moe_projection": (("projection",), plot_projection),
    "moe_sensitivity": (("sensitivity",), plot_projection_sensitivity),
}


def main(*, figure: str, output: str, validation: str | None = None, projection: str | None = None,
         sensitivity: str | None = None, caption: str | None = None) -> None:  # fmt: skip
    draw_figure("disttrain/moe", FIGURES, figure, output,
                {"validation": validation, "projection": projection, "sensitivity": sensitivity}, caption=caption)


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, validation=smk.input.get("validation"),
         projection=smk.input.get("projection"), sensitivity=smk.input.get("sensitivity"),
         caption=smk.input.caption)  # fmt: skip
