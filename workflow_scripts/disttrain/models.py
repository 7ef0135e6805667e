"""The models every disttrain study trains: a small GPT (nanoGPT's shape) and a small CNN, defined once.

The GPT keeps its blocks in a ModuleDict and lets the embedding, the final norm and the head be None,
so a pipeline stage is the same class with the parts it does not own removed (`gpt_stage`). Attention
reads its head count from the width of q, so the same code runs when tensor parallelism has split the
q/k/v projections column-wise over ranks (each rank then holds n_head / tp heads).
Data: `synthetic_tokens` draws sequences from a seeded random bigram table, so the loss can fall
below log(vocab) and every strategy sees the same batches.
"""

from __future__ import annotations

import dataclasses
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

from workflow_scripts.common.config import schema_default

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class GPTConfig:
    vocab_size: int = schema_default("disttrain.survey.model.vocab_size")  # tokens
    block_size: int = schema_default("disttrain.survey.model.block_size")  # sequence length, tokens
    n_layer: int = schema_default("disttrain.survey.model.n_layer")
    n_head: int = schema_default("disttrain.survey.model.n_head")
    n_embd: int = schema_default("disttrain.survey.model.n_embd")

    def __post_init__(self):
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            if getattr(self, name) < 1:
                raise ValueError(f"GPTConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.n_embd % self.n_head:
            raise ValueError(f"GPTConfig.n_embd = {self.n_embd} must be a multiple of n_head = {self.n_head}")

    def num_parameters(self) -> int:
        """Parameter count of GPT(self), from the shapes (tests check it against the module)."""
        e, v, t, layers = self.n_embd, self.vocab_size, self.block_size, self.n_layer
        block = 2 * (2 * e) + 4 * (e * e + e) + (e * 4 * e + 4 * e) + (4 * e * e + e)
        return v * e + t * e + layers * block + 2 * e + e * v


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.head_dim = cfg.n_embd // cfg.n_head
        # Separate q, k, v so tensor parallelism can shard each column-wise by whole heads.
        self.q = nn.Linear(cfg.n_embd, cfg.n_embd)
        self.k = nn.Linear(cfg.n_embd, cfg.n_embd)
        self.v = nn.Linear(cfg.n_embd, cfg.n_embd)
        self.proj = nn.Linear(cfg.n_embd, cfg.n_embd)

    def forward(self, x):
        b, t, _ = x.shape
        # (B, T, local heads, hs) -> (B, local heads, T, hs); local heads = n_head / tp under TP
        q, k, v = (lin(x).view(b, t, -1, self.head_dim).transpose(1, 2) for lin in (self.q, self.k, self.v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.fc = nn.Linear(cfg.n_embd, 4 * cfg.n_embd)
        self.proj = nn.Linear(4 * cfg.n_embd, cfg.n_embd)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.n_embd)
        self.attn = CausalSelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.n_embd)
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """Token ids (B, T) -> logits (B, T, vocab); a pipeline stage maps hidden states where parts are None."""

    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos_emb = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.blocks = nn.ModuleDict({str(i): Block(cfg) for i in range(cfg.n_layer)})
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        self.head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)  # untied, so stages own disjoint weights
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, x):
        if self.tok_emb is not None:
            positions = torch.arange(x.shape[1], device=x.device)
            x = self.tok_emb(x) + self.pos_emb(positions)  # (B, T, C)
        for block in self.blocks.values():
            x = block(x)
        if self.ln_f is not None:
            x = self.ln_f(x)
        if self.head is not None:
            x = self.head(x)  # (B, T, vocab)
        return x


def gpt_stage(model: GPT, stage: int, num_stages: int) -> GPT:
    """Keep only the blocks (and embedding / head) that pipeline stage `stage` of `num_stages` owns.

    Layers are split into equal contiguous runs; the caller checks divisibility (launch.require_divisible).
    """
    layers = model.cfg.n_layer
    per_stage = layers // num_stages
    keep = set(range(stage * per_stage, (stage + 1) * per_stage))
    for name in list(model.blocks.keys()):
        if int(name) not in keep:
            del model.blocks[name]
    if stage != 0:
        model.tok_emb = None
        model.pos_emb = None
    if stage != num_stages - 1:
        model.ln_f = None
        model.head = None
    return model


def lm_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def synthetic_tokens(cfg: GPTConfig, batches: int, batch_size: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs, targets) of shape (batches, batch_size, block_size), sampled from a seeded bigram chain.

    Each token has 4 likely successors, so a trained model reaches a loss near log(4) instead of log(vocab).
    """
    gen = torch.Generator().manual_seed(seed)
    successors = torch.randint(0, cfg.vocab_size, (cfg.vocab_size, 4), generator=gen)
    n = batches * batch_size
    seq = torch.empty(n, cfg.block_size + 1, dtype=torch.long)
    seq[:, 0] = torch.randint(0, cfg.vocab_size, (n,), generator=gen)
    for t in range(cfg.block_size):
        choice = torch.randint(0, 4, (n,), generator=gen)
        seq[:, t + 1] = successors[seq[:, t], choice]
    seq = seq.view(batches, batch_size, cfg.block_size + 1)
    return seq[..., :-1].contiguous(), seq[..., 1:].contiguous()


@dataclasses.dataclass(kw_only=True)
class CNNConfig:
    channels: int = schema_default("disttrain.survey.cnn.channels")  # width of the first conv layer
    image_size: int = schema_default("disttrain.survey.cnn.image_size")  # pixels per side
    num_classes: int = schema_default("disttrain.survey.cnn.num_classes")

    def __post_init__(self):
        for name in ("channels", "image_size", "num_classes"):
            if getattr(self, name) < 1:
                raise ValueError(f"CNNConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.image_size % 4:
            raise ValueError(f"CNNConfig.image_size = {self.image_size} must be a multiple of 4 (two 2x2 poolings)")


class CNN(nn.Module):
    """A VGG-shaped small CNN: two conv-relu-pool stages and a linear classifier."""

    def __init__(self, cfg: CNNConfig):
        super().__init__()
        c = cfg.channels
        self.features = nn.Sequential(
            nn.Conv2d(3, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )  # fmt: skip
        self.classifier = nn.Linear(2 * c * (cfg.image_size // 4) ** 2, cfg.num_classes)

    def forward(self, x):  # (B, 3, H, W) -> (B, classes)
        return self.classifier(self.features(x).flatten(1))


def synthetic_images(cfg: CNNConfig, batches: int, batch_size: int, seed: int):
    """Seeded images whose class is set by a fixed random template added to noise (learnable)."""
    gen = torch.Generator().manual_seed(seed)
    templates = torch.randn(cfg.num_classes, 3, cfg.image_size, cfg.image_size, generator=gen)
    labels = torch.randint(0, cfg.num_classes, (batches, batch_size), generator=gen)
    noise = torch.randn(batches, batch_size, 3, cfg.image_size, cfg.image_size, generator=gen)
    return templates[labels] + noise, labels


__all__ = ["CNN", "GPT", "CNNConfig", "GPTConfig", "gpt_stage", "lm_loss", "synthetic_images",
           "synthetic_tokens"]  # fmt: skip
