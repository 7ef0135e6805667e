"""The tiled mixed-precision Adam step, and a measurement of its transient memory.

Mixed precision keeps the model's parameters and gradients in half precision (bfloat16 here: CPUs have
no fast float16) and fp32 master weights and Adam moments. A plain step converts the whole gradient
partition to fp32 and forms the update in fp32 temporaries: a transient of several fp32 copies of the
partition on top of the persistent state. The tiled step walks the partition `tile_elems` at a time, so the
transient is bounded by the tile. The arithmetic is elementwise, so every tile size gives bit-identical
parameters.

Transient memory is measured, not computed: `peak_transient_bytes` resets the kernel's high-water mark
of the process's resident memory (/proc/self/clear_refs, value 5) and reads VmHWM - VmRSS after the step.
This needs large allocations to be returned to the system when freed, which the workers ensure by
setting MALLOC_MMAP_THRESHOLD_ (a fixed glibc mmap threshold) before Python starts.
"""

from __future__ import annotations

import logging
import os

import torch

logger = logging.getLogger(__name__)

MMAP_THRESHOLD_ENV = "MALLOC_MMAP_THRESHOLD_"


class TiledMixedPrecisionAdam:
    def __init__(self, params: list[torch.Tensor], *, lr: float, betas=(0.9, 0.999), eps: float = 1e-8,
                 tile_elems: int | None = None):  # fmt: skip
        if tile_elems is not None and tile_elems < 1:
            raise ValueError(f"tile_elems must be >= 1 or None (one tile), got {tile_elems}")
        self.params = list(params)
        self.lr, self.betas, self.eps, self.tile_elems = lr, betas, eps, tile_elems
        self.master = [p.detach().float().reshape(-1).clone() for p in self.params]
        self.exp_avg = [torch.zeros_like(m) for m in self.master]
        self.exp_avg_sq = [torch.zeros_like(m) for m in self.master]
        self.steps = 0

    def step(self) -> None:
        self.steps += 1
        beta1, beta2 = self.betas
        bias1, bias2 = 1 - beta1**self.steps, 1 - beta2**self.steps
        for p, master, m, v in zip(self.params, self.master, self.exp_avg, self.exp_avg_sq, strict=True):
            grad = p.grad.reshape(-1)
            flat = p.data.view(-1)
            tile = self.tile_elems or grad.numel()
            for start in range(0, grad.numel(), tile):
                end = min(start + tile, grad.numel())
                g32 = grad[start:end].float()  # the fp32 transient this tile bounds
                m[start:end].mul_(beta1).add_(g32, alpha=1 - beta1)
                v[start:end].mul_(beta2).addcmul_(g32, g32, value=1 - beta2)
                denom = (v[start:end] / bias2).sqrt_().add_(self.eps)
                master[start:end].addcdiv_(m[start:end], denom, value=-self.lr / bias1)
                flat[start:end].copy_(master[start:end])  # back to half precision
                del g32, denom


def _status_bytes(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {field} line")


def peak_transient_bytes(fn) -> int:
    """Run `fn()` and return how far the resident memory rose above its level at the start."""
    if MMAP_THRESHOLD_ENV not in os.environ:
        raise RuntimeError(f"set {MMAP_THRESHOLD_ENV} (e.g. 65536) before starting Python, so freed buffers "
                           f"leave the resident set and the high-water mark sees each step")  # fmt: skip
    with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
        handle.write("5")  # reset VmHWM to the current VmRSS
    base = _status_bytes("VmRSS")
    fn()
    return max(_status_bytes("VmHWM") - base, 0)
