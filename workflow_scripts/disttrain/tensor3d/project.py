"""Snakemake step: project Tensor3D to the paper's scale with the communication model.

The paper's 28B-parameter CNN on 256 A100 GPUs: every decomposition rows x cols x depth x data of the
devices that fits the shapes and the device memory, priced by volumes.step_time_s with the machine's
alpha-beta links (placement-aware) and a compute rate of peak x efficiency. Reports the best decomposition
overall (Tensor3D, with overdecomposition), the best Megatron-style one (G_col = G_depth = 1, one chunk:
Megatron-LM does not overdecompose), the reduction in step time, and the step time of the best grid against
the number of chunks (the overlap curve). Writes results/disttrain/tensor3d/projection.json.
"""


import dataclasses
import logging

from workflow_scripts.common import snakemake_step
from workflow_scripts.disttrain.layer_study import run_step
from workflow_scripts.disttrain.netmodel import NetworkModel
from workflow_scripts.disttrain.tensor3d import volumes
from workflow_scripts.disttrain.tensor3d.grid import Grid

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class Tensor3DProjectionConfig:
    devices: int
    layers: int  # convolutions in the stack (orientations alternate)
    channels: int  # input = output channels of every convolution
    kernel: int  # kernel side (3 for 3x3)
    height: int  # output pixels per sample = height x width
    width: int
    batch: int  # global batch (samples per step)
    chunks: list[int]  # overdecomposition factors tried
    dtype_bytes: int  # activations and gradients on the wire (2: half precision)
    bytes_per_param: float  # persistent bytes per parameter (16: mixed-precision Adam)
    compute_efficiency: float  # fraction of peak flop/s the GEMMs reach
    background_overlap: float  # fraction of the weight gather, reduce-scatter and data all-reduce hidden by compute
    machine: dict  # {name, devices_per_node, intra_node, inter_node, peak_flops_per_device, device_memory_bytes}
    paper_time_reduction: float  # the paper's reported reduction of training time vs Megatron-LM

    def __post_init__(self):
        if not 0 < self.compute_efficiency <= 1:
            raise ValueError(f"disttrain.tensor3d.projection.compute_efficiency must be in (0, 1], "
                             f"got {self.compute_efficiency}")  # fmt: skip
        if not self.chunks or min(self.chunks) < 1:
            raise ValueError(f"disttrain.tensor3d.projection.chunks must be positive integers, got {self.chunks}")

    def shapes(self) -> list[volumes.LayerShape]:
        layer = volumes.LayerShape(out_features=self.channels, in_features=self.channels,
                                   kernel_elems=self.kernel**2, positions=self.height * self.width)  # fmt: skip
        return volumes.alternating_stack([layer] * self.layers)


def _estimate_row(est, chunks: int) -> dict:
    g = est.grid
    return {"grid": g.label(), "rows": g.rows, "cols": g.cols, "depth": g.depth, "data": g.data, "chunks": chunks,
            "megatron": g.is_megatron(), "time_s": est.time_s, "compute_s": est.compute_s, "comm_s": est.comm_s,
            "exposed_comm_s": est.exposed_comm_s, "comm_bytes": est.comm_bytes, "memory_bytes": est.memory_bytes}  # fmt: skip


def project(cfg: Tensor3DProjectionConfig) -> dict:
    net = NetworkModel.from_config(cfg.machine)
    cost = volumes.placement_cost(net)
    shapes = cfg.shapes()
    flops_per_s = cfg.machine["peak_flops_per_device"] * cfg.compute_efficiency
    common = dict(batch=cfg.batch, dtype_bytes=cfg.dtype_bytes, flops_per_s=flops_per_s, cost=cost,
                  bytes_per_param=cfg.bytes_per_param, background_overlap=cfg.background_overlap)  # fmt: skip
    ranked = []
    for chunks in cfg.chunks:
        for est in volumes.enumerate_decompositions(shapes, cfg.devices, chunks=chunks,
                                                    memory_limit_bytes=cfg.machine["device_memory_bytes"],
                                                    **common):  # fmt: skip
            ranked.append(_estimate_row(est, chunks))
    if not ranked:
        raise ValueError(f"no decomposition of {cfg.devices} devices fits the model in "
                         f"{cfg.machine['device_memory_bytes']:.3g} bytes per device; add devices or shrink the model")
    ranked.sort(key=lambda r: (r["time_s"], r["grid"], r["chunks"]))
    best = ranked[0]
    megatron = [r for r in ranked if r["megatron"] and r["chunks"] == 1]
    best_megatron = megatron[0] if megatron else None
    best_3d_one_chunk = min((r for r in ranked if r["chunks"] == 1), key=lambda r: r["time_s"])
    best_grid = Grid(rows=best["rows"], cols=best["cols"], depth=best["depth"], data=best["data"])
    overlap = []
    for chunks in sorted(set(cfg.chunks) | {1}):
        if cfg.batch % (best_grid.data * best_grid.depth * chunks):
            continue
        est = volumes.step_time_s(shapes, best_grid, chunks=chunks, **common)
        overlap.append({"chunks": chunks, "time_s": est.time_s, "exposed_comm_s": est.exposed_comm_s})
    reduction = 1 - best["time_s"] / best_megatron["time_s"] if best_megatron else None
    params = sum(s.weight_elems for s in shapes)
    logger.info("projection: %.3g parameters on %d devices; best %s (%d chunks) %.3f s, best Megatron %s %.3f s",
                params, cfg.devices, best["grid"], best["chunks"], best["time_s"],
                best_megatron and best_megatron["grid"], best_megatron and best_megatron["time_s"])  # fmt: skip
    return {"parameters": params, "devices": cfg.devices, "machine": cfg.machine["name"],
            "flops_per_s_per_device": flops_per_s, "decompositions_ranked": ranked[:50],
            "decompositions_considered": len(ranked), "best": best, "best_megatron": best_megatron,
            "best_one_chunk": best_3d_one_chunk, "time_reduction_vs_megatron": reduction,
            "paper_time_reduction": cfg.paper_time_reduction, "overlap_curve": overlap,
            "background_overlap": cfg.background_overlap}  # fmt: skip


def main(out_path: str, section: dict, machine: dict | None = None, seed: int | None = None) -> dict:
    cfg = Tensor3DProjectionConfig(**section)
    return run_step("disttrain.tensor3d.project", out_path, dataclasses.asdict(cfg), seed, lambda: project(cfg))


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.output.projection, smk.params.section, seed=smk.params.seed)
