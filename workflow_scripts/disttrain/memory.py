"""The memory ledger: bytes of parameters, gradients, optimizer state and activations held by one rank.

    ledger = MemoryLedger()
    ledger.record_module(model)                 # parameters and gradients that exist now
    ledger.record_optimizer(optimizer)          # every tensor in optimizer.state
    with ledger.track_activations():            # tensors autograd saves for backward
        loss = model(x).sum()
    ledger.as_dict()   # {"parameters_bytes": ..., "gradients_bytes": ..., "optimizer_bytes": ...,
                       #  "activations_bytes": ..., "total_bytes": ..., "peak_rss_bytes": ...}

Bytes are measured from the tensors that exist on this rank, never computed from a formula: a sharded
parameter (DTensor, FSDP2) counts only its local shard, so comparing these numbers with the analytic
per-parameter formulas (16 bytes/parameter for DDP with Adam, 16/N for ZeRO-3, ...) tests the strategy.
Tensors that share storage are counted once. `extra(name, bytes)` adds categories a caller measures
itself (e.g. offloaded optimizer state kept in host memory).
"""

from __future__ import annotations

import contextlib
import logging
import resource
from collections.abc import Iterable

import torch

logger = logging.getLogger(__name__)


def local_tensor(tensor: torch.Tensor) -> torch.Tensor:
    """The part of a (possibly distributed) tensor that this rank stores."""
    to_local = getattr(tensor, "to_local", None)  # DTensor (tensor parallel, FSDP2)
    return to_local() if callable(to_local) else tensor


def _storage_key(tensor: torch.Tensor):
    return (tensor.untyped_storage().data_ptr(), tensor.untyped_storage().nbytes())


def unique_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the storages behind `tensors`, each storage counted once (views share storage)."""
    seen = {}
    for tensor in tensors:
        if tensor is None or not isinstance(tensor, torch.Tensor):
            continue
        tensor = local_tensor(tensor)
        if tensor.numel() == 0:
            continue
        key = _storage_key(tensor)
        seen[key] = max(seen.get(key, 0), tensor.untyped_storage().nbytes())
    return sum(seen.values())


def parameter_bytes(module: torch.nn.Module) -> int:
    return unique_bytes(p for p in module.parameters())


def gradient_bytes(module: torch.nn.Module) -> int:
    return unique_bytes(p.grad for p in module.parameters() if p.grad is not None)


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    """Tensors in the optimizer's state (Adam: exp_avg, exp_avg_sq; scalar `step` tensors included)."""
    return unique_bytes(v for state in optimizer.state.values() for v in state.values()
                        if isinstance(v, torch.Tensor))  # fmt: skip


def peak_rss_bytes() -> int:
    """Peak resident set size of this process (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class MemoryLedger:
    """Bytes per category on one rank; later records of the same category replace earlier ones."""

    def __init__(self):
        self.bytes: dict[str, int] = {}
        self.peak_activations_bytes = 0

    def record_module(self, module: torch.nn.Module) -> None:
        self.bytes["parameters"] = parameter_bytes(module)
        self.bytes["gradients"] = gradient_bytes(module)

    def record_optimizer(self, optimizer: torch.optim.Optimizer) -> None:
        self.bytes["optimizer"] = optimizer_state_bytes(optimizer)

    def extra(self, category: str, nbytes: int) -> None:
        self.bytes[category] = int(nbytes)

    @contextlib.contextmanager
    def track_activations(self, module: torch.nn.Module | None = None):
        """Peak bytes of the tensors autograd keeps saved for backward while the block runs.

        Each saved tensor is wrapped in a holder; when autograd frees it (after its backward ran) the
        holder's bytes leave the live total, so a pipeline schedule that interleaves forwards and
        backwards (1F1B) shows a lower peak than one that runs all forwards first (GPipe). Storages
        are counted once however many saved tensors view them. Saved tensors that are parameters
        (weights saved by matmul; those of `module` too) are not activations and are skipped.
        The peak over all tracked blocks is kept under "activations".
        """
        param_keys = set()
        if module is not None:
            param_keys = {_storage_key(local_tensor(p)) for p in module.parameters() if p.numel()}
        live = {"bytes": 0, "peak": 0}
        refcount: dict = {}

        class Held:
            __slots__ = ("tensor", "key", "__weakref__")

            def __init__(self, tensor, key):
                self.tensor, self.key = tensor, key

            def __del__(self):
                if self.key is None:
                    return
                refcount[self.key] -= 1
                if refcount[self.key] == 0:
                    del refcount[self.key]
                    live["bytes"] -= self.key[1]

        def pack(tensor):
            local = local_tensor(tensor)
            key = None
            if local.numel() and not isinstance(tensor, torch.nn.Parameter):
                key = _storage_key(local)
                if key in param_keys:
                    key = None
            if key is not None:
                refcount[key] = refcount.get(key, 0) + 1
                if refcount[key] == 1:
                    live["bytes"] += key[1]
                    live["peak"] = max(live["peak"], live["bytes"])
            return Held(tensor, key)

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda held: held.tensor):
            yield self
        self.peak_activations_bytes = max(self.peak_activations_bytes, live["peak"])
        self.bytes["activations"] = self.peak_activations_bytes

    def as_dict(self) -> dict[str, int]:
        out = {f"{name}_bytes": value for name, value in sorted(self.bytes.items())}
        out["total_bytes"] = sum(self.bytes.values())
        out["peak_rss_bytes"] = peak_rss_bytes()
        return out
