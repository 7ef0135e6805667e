"""The communication ledger: every collective and point-to-point call of a distributed run goes through it.

    ledger = CommLedger()
    ledger.all_reduce(grad, group=dp_group, tag="grad")
    ledger.totals()   # {("all_reduce", "grad"): {"calls": 1, "message_bytes": ..., "wire_bytes": ..., "seconds": ...}}

One ledger per process. Each call records the logical message size at the call site (`message_bytes`),
the bytes this rank sends under the ring / pairwise model (`wire_bytes`) and the wall time. Logical sizes
are counted here, never what the backend does underneath: gloo emulates reduce_scatter as an all_reduce
plus a chunk (twice the bytes), so reading gloo's traffic would double-count it.

message_bytes: all_reduce the tensor; all_gather the output; reduce_scatter the input; all_to_all the
input; broadcast and point-to-point the tensor.
wire_bytes (per rank, group of p ranks, message N): all_reduce 2(p-1)/p N; all_gather and reduce_scatter
(p-1)/p N; all_to_all the input rows that leave the rank (exact from the split sizes); broadcast N on
every rank (a pipelined ring broadcast: every rank but the last forwards N; an upper bound); send N;
recv 0 (the sender counts the bytes).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from collections import defaultdict
from collections.abc import Iterable

import torch
import torch.distributed as dist
from torch.distributed import ReduceOp

logger = logging.getLogger(__name__)

OPS = ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single", "broadcast",
       "send", "recv")  # fmt: skip


@dataclasses.dataclass(frozen=True, kw_only=True)
class CommRecord:
    op: str  # one of OPS
    tag: str  # what the caller says the bytes are for ("grad", "param_gather", "activation", ...)
    group_size: int  # ranks in the group (2 for point-to-point)
    message_bytes: int  # logical bytes at the call site (see module docstring)
    wire_bytes: float  # bytes this rank sends under the ring / pairwise model
    seconds: float  # wall time from the call to completion (for async ops: to the end of wait())


def tensor_bytes(tensor: torch.Tensor) -> int:
    return tensor.numel() * tensor.element_size()


def ring_wire_bytes(op: str, message_bytes: int, group_size: int) -> float:
    """Bytes one rank sends for `op` on `message_bytes` among `group_size` ranks (ring / pairwise)."""
    p = group_size
    if op == "all_reduce":
        return 2 * (p - 1) / p * message_bytes
    if op in ("all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single"):
        return (p - 1) / p * message_bytes
    if op in ("broadcast", "send"):
        return float(message_bytes) if p > 1 else 0.0
    if op == "recv":
        return 0.0
    raise ValueError(f"unknown op {op!r} (known: {', '.join(OPS)})")


def _require_shards(op: str, group, *, whole: tuple[str, torch.Tensor], shard: tuple[str, torch.Tensor]) -> None:
    """Stop unless the whole tensor of a gather or scatter holds one shard per rank of `group`."""
    p = dist.get_world_size(group)
    (whole_name, whole_tensor), (shard_name, shard_tensor) = whole, shard
    if whole_tensor.numel() != p * shard_tensor.numel():
        raise ValueError(f"{op}: {whole_name} has {whole_tensor.numel()} elements, "
                         f"need group size {p} x {shard_name} {shard_tensor.numel()}")


class TimedWork:
    """The handle an async call returns: wait() completes the op and writes its record to the ledger."""

    def __init__(self, work, ledger: CommLedger, record_fields: dict, started_s: float):
        self._work = work
        self._ledger = ledger
        self._fields = record_fields
        self._started_s = started_s
        self._done = False

    def is_completed(self) -> bool:
        return self._work.is_completed()

    def wait(self) -> bool:
        result = self._work.wait()
        if not self._done:
            self._done = True
            self._ledger._append(seconds=time.perf_counter() - self._started_s, **self._fields)
        return result


class CommLedger:
    """Counts and times every communication call of one process."""

    def __init__(self):
        self._records: list[CommRecord] = []
        self.setup_message_bytes = 0  # bytes of one-time messages a caller chose to set apart (warm-up)

    # --- bookkeeping -------------------------------------------------------------------------------
    def _append(self, **fields) -> None:
        self._records.append(CommRecord(**fields))

    def _run(self, op, tag, group_size, message_bytes, wire_bytes, call, async_op):
        fields = dict(op=op, tag=tag, group_size=group_size, message_bytes=int(message_bytes),
                      wire_bytes=float(wire_bytes))  # fmt: skip
        started_s = time.perf_counter()
        work = call()
        if async_op:
            return TimedWork(work, self, fields, started_s)
        self._append(seconds=time.perf_counter() - started_s, **fields)
        return None

    def records(self) -> list[CommRecord]:
        return list(self._records)

    def clear(self) -> None:
        self._records.clear()

    def totals(self, by: Iterable[str] = ("op", "tag")) -> dict:
        """Sum calls, message_bytes, wire_bytes and seconds per key (a tuple of the `by` fields)."""
        by = tuple(by)
        sums: dict = defaultdict(lambda: {"calls": 0, "message_bytes": 0, "wire_bytes": 0.0, "seconds": 0.0})
        for rec in self._records:
            key = tuple(getattr(rec, name) for name in by)
            entry = sums[key]
            entry["calls"] += 1
            entry["message_bytes"] += rec.message_bytes
            entry["wire_bytes"] += rec.wire_bytes
            entry["seconds"] += rec.seconds
        return dict(sums)

    def total_bytes(self, field: str = "message_bytes", tag: str | None = None) -> float:
        return sum(getattr(r, field) for r in self._records if tag is None or r.tag == tag)

    # --- collectives -------------------------------------------------------------------------------
    def _ring(self, op, tag, group, tensor, call, async_op):
        """A collective priced as the ring algorithm moves `tensor` (the whole, unsharded one) over `group`."""
        p = dist.get_world_size(group)
        n = tensor_bytes(tensor)
        return self._run(op, tag, p, n, ring_wire_bytes(op, n, p), call, async_op)

    def all_reduce(self, tensor, group=None, op=ReduceOp.SUM, tag="", async_op=False):
        return self._ring("all_reduce", tag, group, tensor,
                          lambda: dist.all_reduce(tensor, op=op, group=group, async_op=async_op), async_op)

    def all_gather_into_tensor(self, output, input, group=None, tag="", async_op=False):
        _require_shards("all_gather_into_tensor", group, whole=("output", output), shard=("input", input))
        return self._ring("all_gather_into_tensor", tag, group, output,
                          lambda: dist.all_gather_into_tensor(output, input, group=group, async_op=async_op),
                          async_op)  # fmt: skip

    def reduce_scatter_tensor(self, output, input, group=None, op=ReduceOp.SUM, tag="", async_op=False):
        _require_shards("reduce_scatter_tensor", group, whole=("input", input), shard=("output", output))
        return self._ring("reduce_scatter_tensor", tag, group, input,
                          lambda: dist.reduce_scatter_tensor(output, input, op=op, group=group, async_op=async_op),
                          async_op)  # fmt: skip

    def all_to_all_single(self, output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                          tag="", async_op=False):  # fmt: skip
        p = dist.get_world_size(group)
        n = tensor_bytes(input)
        if input_split_sizes is None:
            wire = ring_wire_bytes("all_to_all_single", n, p)
        else:
            # Exact: every row except the ones this rank keeps for itself leaves the rank.
            row_bytes = n // max(input.shape[0], 1)
            me = dist.get_rank(group)
            wire = float(row_bytes * (sum(input_split_sizes) - input_split_sizes[me]))
        return self._run("all_to_all_single", tag, p, n, wire,
                         lambda: dist.all_to_all_single(output, input, output_split_sizes, input_split_sizes,
                                                        group=group, async_op=async_op), async_op)  # fmt: skip

    def broadcast(self, tensor, src, group=None, tag="", async_op=False):
        return self._ring("broadcast", tag, group, tensor,
                          lambda: dist.broadcast(tensor, src, group=group, async_op=async_op), async_op)

    # --- point to point (src/dst are global ranks) ---------------------------------------------------
    def send(self, tensor, dst, tag="", group=None):
        n = tensor_bytes(tensor)
        self._run("send", tag, 2, n, n, lambda: dist.send(tensor, dst, group=group), False)

    def recv(self, tensor, src, tag="", group=None):
        n = tensor_bytes(tensor)
        self._run("recv", tag, 2, n, 0, lambda: dist.recv(tensor, src, group=group), False)

    def isend(self, tensor, dst, tag="", group=None) -> TimedWork:
        n = tensor_bytes(tensor)
        return self._run("send", tag, 2, n, n, lambda: dist.isend(tensor, dst, group=group), True)

    def irecv(self, tensor, src, tag="", group=None) -> TimedWork:
        n = tensor_bytes(tensor)
        return self._run("recv", tag, 2, n, 0, lambda: dist.irecv(tensor, src, group=group), True)

    # --- engines that call the backend themselves -----------------------------------------------------
    def ddp_comm_hook(self, tag: str = "grad"):
        """A DDP comm hook: the bucket all-reduce goes through the ledger (DDP's reducer runs in C++,
        so this is the only way to see its traffic at the call site). Averages like DDP's default."""

        def hook(process_group, bucket):
            group = process_group
            buffer = bucket.buffer()
            buffer.div_(dist.get_world_size(group))
            handle = self.all_reduce(buffer, group=group, tag=tag, async_op=True)
            fut = torch.futures.Future()
            handle.wait()
            fut.set_result(buffer)
            return fut

        return hook

    def record(self, op: str, tag: str, group_size: int, message_bytes: int, seconds: float = 0.0,
               wire_bytes: float | None = None) -> None:  # fmt: skip
        """Record a call an engine made itself (seen through one of the interceptors below)."""
        wire = ring_wire_bytes(op, message_bytes, group_size) if wire_bytes is None else wire_bytes
        self._append(op=op, tag=tag, group_size=group_size, message_bytes=int(message_bytes),
                     wire_bytes=float(wire), seconds=float(seconds))  # fmt: skip

    def fsdp_comms(self, tag_gather: str = "param_gather", tag_scatter: str = "grad_scatter"):
        """(AllGather, ReduceScatter) for FSDP2's set_custom_all_gather / set_custom_reduce_scatter."""
        from torch.distributed.fsdp._fully_shard._fsdp_api import AllGather, ReduceScatter
        from torch.distributed.fsdp._fully_shard._fsdp_collectives import DefaultAllocMixin

        ledger = self

        class LedgerAllGather(DefaultAllocMixin, AllGather):
            def __call__(self, output_tensor, input_tensor, group, async_op=False):
                return ledger.all_gather_into_tensor(output_tensor, input_tensor, group=group, tag=tag_gather,
                                                     async_op=async_op)  # fmt: skip

        class LedgerReduceScatter(DefaultAllocMixin, ReduceScatter):
            def __call__(self, output_tensor, input_tensor, group, op, async_op=False):
                return ledger.reduce_scatter_tensor(output_tensor, input_tensor, group=group, op=op,
                                                    tag=tag_scatter, async_op=async_op)  # fmt: skip

        return LedgerAllGather(), LedgerReduceScatter()

    @contextlib.contextmanager
    def intercept_point_to_point(self, tag: str = "activation"):
        """Route torch.distributed.isend / irecv through the ledger while the block runs.

        torch.distributed.pipelining issues its sends and receives itself (P2POp lists); it looks the
        functions up at call time, so replacing them in both modules that hold them is enough.
        """
        from torch.distributed import distributed_c10d as c10d

        original_isend, original_irecv = c10d.isend, c10d.irecv
        ledger = self

        def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
            n = tensor_bytes(tensor)
            fields = dict(op="send", tag=label, group_size=2, message_bytes=n, wire_bytes=float(n))
            started_s = time.perf_counter()
            work = original_isend(tensor, dst, group=group, tag=tag, group_dst=group_dst)
            return ledger._wrap_work(work, fields, started_s)

        def irecv(tensor, src=None, group=None, tag=0, group_src=None):
            n = tensor_bytes(tensor)
            fields = dict(op="recv", tag=label, group_size=2, message_bytes=n, wire_bytes=0.0)
            started_s = time.perf_counter()
            work = original_irecv(tensor, src, group=group, tag=tag, group_src=group_src)
            return ledger._wrap_work(work, fields, started_s)

        label = tag
        c10d.isend, c10d.irecv, dist.isend, dist.irecv = isend, irecv, isend, irecv
        try:
            yield self
        finally:
            c10d.isend, c10d.irecv = original_isend, original_irecv
            dist.isend, dist.irecv = original_isend, original_irecv

    def _wrap_work(self, work, fields, started_s):
        if work is None:  # coalesced: the batch's work carries the wait; count the bytes now
            self._append(seconds=0.0, **fields)
            return None
        return TimedWork(work, self, fields, started_s)

    def functional_collectives(self, tag: str = "tensor_parallel"):
        """A dispatch mode that records DTensor's functional collectives (they bypass torch.distributed's
        Python functions). Seconds are the time to issue the op; the wait is not attributed."""
        from torch.utils._python_dispatch import TorchDispatchMode

        ledger = self
        funcol = torch.ops._c10d_functional
        names = {funcol.all_reduce.default: "all_reduce", funcol.all_gather_into_tensor.default:
                 "all_gather_into_tensor", funcol.reduce_scatter_tensor.default: "reduce_scatter_tensor",
                 funcol.all_to_all_single.default: "all_to_all_single", funcol.broadcast.default: "broadcast"}  # fmt: skip

        class Recorder(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                op = names.get(func)
                if op is None:
                    return func(*args, **kwargs)
                group_name = args[-1]
                group = dist.distributed_c10d._resolve_process_group(group_name)
                p = dist.get_world_size(group)
                started_s = time.perf_counter()
                out = func(*args, **kwargs)
                n = tensor_bytes(out) if op == "all_gather_into_tensor" else tensor_bytes(args[0])
                ledger.record(op, tag, p, n, seconds=time.perf_counter() - started_s)
                return out

        return Recorder()
