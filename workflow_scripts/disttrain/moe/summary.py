"""Snakemake step: the TED MoE summary, from the validation run and the projection.

Writes results/disttrain/moe/summary.json, with a `sensitivity` section from moe/sensitivity.py (which assumption
moves each gap to the paper most, and the value that would close it); moe/figures.py draws the figures.
"""


import logging

from workflow_scripts.common import snakemake_step
from workflow_scripts.disttrain.layer_study import TIMING_NOTE, write_summary

logger = logging.getLogger(__name__)


def summarise(validation: dict, projection: dict) -> dict:
    variants = validation["check"]["variants"]
    base = variants["baseline"]
    tp = validation["params"]["tensor_parallel"]
    points = validation["optimizer"]["points"]
    summary = {
        "validation": {
            "processes": validation["world_size"],
            "tensor_parallel": tp, "expert_parallel": validation["params"]["expert_parallel"],
            "max_abs_diff_vs_plain": {n: v["max_abs_diff_vs_baseline"] for n, v in variants.items()},
            "bitwise_equal_to_plain": {n: v["bitwise_equal_to_baseline"] for n, v in variants.items()},
            "max_abs_diff_vs_serial_float64": max(validation["check"]["serial_max_abs_diff"].values()),
            "all_to_all_calls_per_step": {n: v["all_to_all_calls"] for n, v in variants.items()},
            "all_to_all_bytes_per_step": {n: v["all_to_all_message_bytes"] for n, v in variants.items()},
            "all_to_all_bytes_reduction_dtd": base["all_to_all_message_bytes"] / variants["dtd"]["all_to_all_message_bytes"],
            "activations_kept_bytes": {n: v["activations_bytes"] + v["kept_all_to_all_bytes"]
                                       for n, v in variants.items()},
            "counts_match_model": {n: v["counts_match_model"] for n, v in variants.items()},
            "step_time_s": {n: v["step_time_s_median"] for n, v in validation["timing"].items()},
            "optimizer_peak_transient_bytes": {str(p["tile_elems"]): p["peak_transient_bytes"] for p in points},
            "optimizer_tiles_identical": all(p["identical_to_untiled"] for p in points),
            "timing_note": TIMING_NOTE,
        },
        "projection": {
            "machine": projection["machine"], "devices": projection["devices"], "layout": projection["layout"],
            "total_params": projection["total_params"], "base_params": projection["base_params"],
            "step_time_s_without": projection["step"]["without"]["time_s"],
            "step_time_s_with": projection["step"]["with"]["time_s"],
            "speedup": projection["speedup"], "paper_speedup": projection["paper_speedup"],
            "speedup_difference_from_paper": projection["speedup"] - projection["paper_speedup"],
            "largest_base_that_fits": projection["largest_base_that_fits"],
            "base_size_ratio": projection["base_size_ratio"],
            "paper_base_size_ratio": projection["paper_base_size_ratio"],
            "memory_per_device": projection["memory_per_device"],
            "layout_fits_device_memory": (projection["memory_per_device"]["tiled"]["total_bytes"]
                                          <= projection["device_memory_bytes"]),
            "assumptions": "top-1 gating, capacity factor 1.0, MoE in every other layer, 1M tokens per step, "
                           "compute at the configured fraction of V100 peak, no overlap of communication with "
                           "compute except a fraction "
                           f"{projection.get('data_allreduce_overlap', 0.0):g} of the data-parallel all-reduce, "
                           "ZeRO-1 optimizer sharding; the paper's exact settings were not available; the "
                           "sensitivity section says which assumption moves each gap most",
        },
    }  # fmt: skip
    logger.info("moe: a2a calls %s, DTD byte reduction %.1fx; projection %.0f%% faster, base ratio %s",
                summary["validation"]["all_to_all_calls_per_step"], summary["validation"]["all_to_all_bytes_reduction_dtd"],
                100 * projection["speedup"], projection["base_size_ratio"])  # fmt: skip
    return summary


def main(validation_path: str, projection_path: str, summary_path: str, seed: int | None = None,
         sensitivity_path: str | None = None) -> dict:  # fmt: skip
    return write_summary("disttrain.moe.summary", summarise, validation_path, projection_path, summary_path, seed,
                         sensitivity_path)  # fmt: skip


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.validation, smk.input.projection, smk.output.summary, seed=smk.params.seed,
         sensitivity_path=smk.input.sensitivity)  # fmt: skip
