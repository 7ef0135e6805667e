"""Top-k gating with expert capacity (GShard / Switch style), and the dispatch and combine it drives.

    plan = top_k_gating(logits, k=2, capacity=C)     # logits: (T, E)
    buffers = dispatch(x, plan)                      # (E, C, h): slot c of expert e holds one token (or zeros)
    y = combine(expert_out, plan, num_tokens=T)      # (T, h): sum over a token's slots of gate weight x output

Slots are filled in priority order: every token's first choice before any second choice, tokens in
order within a choice (GShard). A token whose expert is full is dropped for that choice (its output
from that expert is zero; the residual path carries it). Top-1 weights are the softmax probability
(Switch); top-2 weights are the two probabilities renormalised to sum to one (GShard).
"""

from __future__ import annotations

import dataclasses
import math

import torch


@dataclasses.dataclass(frozen=True)
class GatePlan:
    token_index: torch.Tensor  # (E, C) int64: the token in each slot, 0 where the slot is empty
    slot_valid: torch.Tensor  # (E, C) bool
    weights: torch.Tensor  # (E, C) gate weight of each slot (0 where empty); carries the router's gradient
    dropped: int  # (token, choice) pairs that found their expert full


def expert_capacity(tokens: int, experts: int, k: int, capacity_factor: float, multiple_of: int = 1) -> int:
    """Slots per expert: ceil(factor x k x tokens / experts), rounded up to a multiple of `multiple_of`
    (the tensor-parallel degree, so duplicate token dropping splits the slots evenly)."""
    capacity = math.ceil(capacity_factor * k * tokens / experts)
    return max(multiple_of, math.ceil(capacity / multiple_of) * multiple_of)


def top_k_gating(logits: torch.Tensor, *, k: int, capacity: int) -> GatePlan:
    if k not in (1, 2):
        raise ValueError(f"top_k must be 1 or 2, got {k}")
    tokens, experts = logits.shape
    probs = torch.softmax(logits, dim=-1)  # (T, E)
    top_probs, top_experts = probs.topk(k, dim=-1)  # (T, k)
    if k == 2:
        top_probs = top_probs / top_probs.sum(dim=-1, keepdim=True)
    token_index = torch.zeros(experts, capacity, dtype=torch.long)
    slot_valid = torch.zeros(experts, capacity, dtype=torch.bool)
    slot_choice = torch.zeros(experts, capacity, dtype=torch.long)
    fill = torch.zeros(experts, dtype=torch.long)
    dropped = 0
    for choice in range(k):
        expert_of_token = top_experts[:, choice]
        one_hot = torch.nn.functional.one_hot(expert_of_token, experts)  # (T, E)
        # Position of each token among the tokens choosing the same expert, after earlier choices.
        position = (one_hot.cumsum(dim=0) - 1 + fill)[torch.arange(tokens), expert_of_token]
        keep = position < capacity
        dropped += int((~keep).sum())
        kept_tokens = torch.arange(tokens)[keep]
        token_index[expert_of_token[keep], position[keep]] = kept_tokens
        slot_valid[expert_of_token[keep], position[keep]] = True
        slot_choice[expert_of_token[keep], position[keep]] = choice
        fill = torch.clamp(fill + one_hot.sum(dim=0), max=capacity)
    weights = top_probs[token_index, slot_choice] * slot_valid  # (E, C), differentiable w.r.t. logits
    return GatePlan(token_index=token_index, slot_valid=slot_valid, weights=weights, dropped=dropped)


def dispatch(x: torch.Tensor, plan: GatePlan) -> torch.Tensor:
    """(T, h) tokens -> (E, C, h) expert buffers; empty slots are zeros."""
    return x[plan.token_index] * plan.slot_valid.unsqueeze(-1).to(x.dtype)


def combine(expert_out: torch.Tensor, plan: GatePlan, num_tokens: int) -> torch.Tensor:
    """(E, C, h) expert outputs -> (T, h): each token's weighted sum over the slots that hold it."""
    hidden = expert_out.shape[-1]
    weighted = expert_out * plan.weights.unsqueeze(-1).to(expert_out.dtype)
    out = torch.zeros(num_tokens, hidden, dtype=expert_out.dtype)
    return out.index_add(0, plan.token_index.reshape(-1), weighted.reshape(-1, hidden))
