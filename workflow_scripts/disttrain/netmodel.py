"""The alpha-beta network model: time of a collective = alpha x (message steps) + (wire bytes) / bandwidth.

    net = NetworkModel(intra_node=AlphaBeta(alpha_s=5e-6, beta_bytes_per_s=50e9),
                       inter_node=AlphaBeta(alpha_s=5e-6, beta_bytes_per_s=12.5e9), devices_per_node=6)
    net.time("all_reduce", message_bytes=4 * 10**9, group_ranks=range(48))   # seconds

Link classes: a group whose ranks all sit on one node (rank // devices_per_node, ranks placed node by
node) uses the intra-node link; any group that spans nodes is limited by the inter-node link (a ring is
as slow as its slowest hop). Ring costs for p ranks and N logical bytes (the ledger's message_bytes):
all_reduce 2(p-1) steps and 2(p-1)/p N bytes; all_gather / reduce_scatter / all_to_all (p-1) steps and
(p-1)/p N; broadcast ceil(log2 p) steps and N (pipelined); send / recv 1 step and N.
`calibrate` fits alpha and beta by least squares to collectives measured here; the paper machines'
values are set in config/paper.yaml (disttrain.network).
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Iterable, Sequence

import numpy as np

from workflow_scripts.disttrain.comm import ring_wire_bytes

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, kw_only=True)
class AlphaBeta:
    alpha_s: float  # latency per message step, seconds
    beta_bytes_per_s: float  # bandwidth of one link, bytes per second

    def __post_init__(self):
        if not (self.alpha_s >= 0 and math.isfinite(self.alpha_s)):
            raise ValueError(f"AlphaBeta.alpha_s must be a finite number >= 0, got {self.alpha_s}")
        if not (self.beta_bytes_per_s > 0 and math.isfinite(self.beta_bytes_per_s)):
            raise ValueError(f"AlphaBeta.beta_bytes_per_s must be a finite number > 0, got {self.beta_bytes_per_s}")

    def time(self, steps: float, wire_bytes: float) -> float:
        return self.alpha_s * steps + wire_bytes / self.beta_bytes_per_s

    @classmethod
    def from_config(cls, section: dict) -> AlphaBeta:
        return cls(alpha_s=float(section["alpha_s"]), beta_bytes_per_s=float(section["beta_bytes_per_s"]))


def ring_steps(op: str, group_size: int) -> float:
    p = group_size
    if p <= 1:
        return 0.0
    if op == "all_reduce":
        return 2.0 * (p - 1)
    if op in ("all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single"):
        return float(p - 1)
    if op == "broadcast":
        return float(math.ceil(math.log2(p)))
    if op in ("send", "recv"):
        return 1.0
    raise ValueError(f"unknown op {op!r}")


def model_wire_bytes(op: str, message_bytes: float, group_size: int) -> float:
    """Wire bytes as the model sees them (recv counts the bytes it receives, so p2p time is symmetric)."""
    if op == "recv":
        return float(message_bytes)
    return ring_wire_bytes(op, message_bytes, group_size) if group_size > 1 else 0.0


@dataclasses.dataclass(frozen=True, kw_only=True)
class NetworkModel:
    intra_node: AlphaBeta
    inter_node: AlphaBeta
    devices_per_node: int  # ranks per node; ranks are placed node by node

    def __post_init__(self):
        if self.devices_per_node < 1:
            raise ValueError(f"NetworkModel.devices_per_node must be >= 1, got {self.devices_per_node}")

    @classmethod
    def from_config(cls, section: dict) -> NetworkModel:
        """From a config section {intra_node: {alpha_s, beta_bytes_per_s}, inter_node: {...}, devices_per_node}."""
        return cls(intra_node=AlphaBeta.from_config(section["intra_node"]),
                   inter_node=AlphaBeta.from_config(section["inter_node"]),
                   devices_per_node=int(section["devices_per_node"]))  # fmt: skip

    def link(self, group_ranks: Iterable[int]) -> AlphaBeta:
        nodes = {rank // self.devices_per_node for rank in group_ranks}
        return self.intra_node if len(nodes) <= 1 else self.inter_node

    def time(self, op: str, message_bytes: float, group_ranks: Sequence[int] | range) -> float:
        ranks = list(group_ranks)
        p = len(ranks) if op not in ("send", "recv") else 2
        return self.link(ranks).time(ring_steps(op, p), model_wire_bytes(op, message_bytes, p))


def slowest_group(groups: Iterable[Sequence[int]], devices_per_node: int) -> Sequence[int]:
    """Of groups that run the same collective at once, the one that spans the most nodes: it sets the pace."""
    return max(groups, key=lambda g: len({rank // devices_per_node for rank in g}))


def calibrate(samples: Iterable[tuple[str, float, int, float]]) -> AlphaBeta:
    """Least-squares alpha and beta from measured (op, message_bytes, group_size, seconds) samples.

    Solves seconds = alpha * steps + wire_bytes * (1 / beta) with both coefficients kept >= 0 (a
    negative fit, which noise on tiny messages can give, is clamped to the one-parameter fit).
    """
    rows, times = [], []
    for op, message_bytes, group_size, seconds in samples:
        rows.append((ring_steps(op, group_size), model_wire_bytes(op, message_bytes, group_size)))
        times.append(seconds)
    if len(rows) < 2:
        raise ValueError(f"calibrate needs at least 2 measured collectives, got {len(rows)}")
    a = np.asarray(rows, dtype=float)
    t = np.asarray(times, dtype=float)
    (alpha, inv_beta), *_ = np.linalg.lstsq(a, t, rcond=None)
    if inv_beta <= 0:
        # Bandwidth term unresolvable: the fit says bytes cost nothing; keep a bandwidth from the largest message.
        big = int(np.argmax(a[:, 1]))
        inv_beta = max(t[big] / max(a[big, 1], 1.0), 1e-15)
        alpha = max(float(np.mean(t - a[:, 1] * inv_beta) / max(np.mean(a[:, 0]), 1e-12)), 0.0)
    if alpha < 0:
        inv_beta = float(np.dot(a[:, 1], t) / np.dot(a[:, 1], a[:, 1]))
        alpha = 0.0
    fit = AlphaBeta(alpha_s=float(alpha), beta_bytes_per_s=float(1.0 / inv_beta))
    logger.info("calibrated alpha %.3g s, bandwidth %.3g bytes/s from %d samples", fit.alpha_s,
                fit.beta_bytes_per_s, len(rows))
    return fit
