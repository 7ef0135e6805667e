"""AxoNN's memory layout: the device keeps only half-precision weights and gradients; fp32 master weights
and Adam moments live in host memory, and the optimizer step streams buckets of parameters through.

    opt = OffloadedAdam(stage_model.parameters(), lr=1e-3, host=torch.device("cpu"), bucket_numel=2**20)
    loss.backward(); opt.step(); opt.zero_grad()

Per parameter: device 2 (weight) + 2 (gradient) = 4 bytes; host 4 (master) + 8 (Adam) = 12 bytes, against
16 bytes on the device without offload: the "about 4x less device memory" of the paper. On a GPU machine
`host` is the CPU and the model sits on the GPU; on this CPU-only machine both are host memory and the
split is the placement the code would use, measured per tensor (`device_bytes` / `host_bytes`).
With offload=False the same class keeps master weights and moments beside the weights (the baseline).
"""

from __future__ import annotations

import logging

import torch

from workflow_scripts.disttrain.memory import optimizer_state_bytes, unique_bytes

logger = logging.getLogger(__name__)


class OffloadedAdam:
    def __init__(self, params, *, lr: float, host: torch.device, offload: bool = True, bucket_numel: int = 1 << 20):
        self.params = [p for p in params]
        if bucket_numel < 1:
            raise ValueError(f"bucket_numel must be >= 1, got {bucket_numel}")
        device = self.params[0].device if self.params else host
        self.state_device = host if offload else device
        self.offload = offload
        with torch.no_grad():
            self.masters = [p.detach().to(self.state_device, torch.float32).clone() for p in self.params]
        # Buckets of whole tensors, about bucket_numel entries each, stepped one after another so that only
        # one bucket's fp32 gradient is ever materialised on the host at a time.
        self.buckets, current, size = [], [], 0
        for index, master in enumerate(self.masters):
            current.append(index)
            size += master.numel()
            if size >= bucket_numel:
                self.buckets.append(current)
                current, size = [], 0
        if current:
            self.buckets.append(current)
        self.optimizers = [torch.optim.Adam([self.masters[i] for i in bucket], lr=lr) for bucket in self.buckets]

    @torch.no_grad()
    def step(self) -> None:
        for bucket, optimizer in zip(self.buckets, self.optimizers, strict=True):
            for i in bucket:
                grad = self.params[i].grad
                self.masters[i].grad = None if grad is None else grad.to(self.state_device, torch.float32)
            optimizer.step()
            for i in bucket:
                self.params[i].copy_(self.masters[i].to(self.params[i].device, self.params[i].dtype))
                self.masters[i].grad = None  # the fp32 gradient copy lives only during its bucket's step

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def device_bytes(self, grads_bytes: int) -> int:
        """Bytes on the compute device: weights, gradients, and (without offload) master weights and moments."""
        weights = unique_bytes(self.params)
        return weights + grads_bytes + (0 if self.offload else self.state_bytes())

    def host_bytes(self) -> int:
        return self.state_bytes() if self.offload else 0

    def state_bytes(self) -> int:
        return unique_bytes(self.masters) + sum(optimizer_state_bytes(o) for o in self.optimizers)
