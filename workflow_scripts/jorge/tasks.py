"""The study's two benchmark tasks: image classification and a small language model, data needing no download.

- "image": scikit-learn's bundled 8x8 digits (1797 images, 10 classes), or an `.npz` file a cluster
  user provides (`x_train, y_train, x_test, y_test`; images N x C x H x W, e.g. downsampled ImageNet),
  with an MLP, a small CNN or a small ResNet. Metric: accuracy (higher is better).
- "lm": a synthetic order-k Markov chain over a small vocabulary, with a neural n-gram LM (Bengio et
  al. 2003: embeddings of the last k tokens -> hidden layer -> next-token logits). The chain is known,
  so the best achievable loss on the evaluation tokens is computed exactly (`optimum_loss`). Metric:
  cross-entropy in nats (lower is better).

`build_task(cfg, split_seed)` returns a `Task` holding tensors and a model factory; `train.py` and
`hparam.py` use it. The split and the synthetic chain depend only on the seed, so every optimizer sees
identical data.
"""

from __future__ import annotations

import dataclasses
import logging
import math

import numpy as np
import torch
from torch import nn

logger = logging.getLogger(__name__)

TASK_KINDS = ("image", "lm")
IMAGE_SOURCES = ("digits", "npz")
IMAGE_MODELS = ("mlp", "cnn", "resnet")


@dataclasses.dataclass(kw_only=True)
class BenchmarkTaskConfig:
    """One benchmark task, from config["jorge"]["tasks"][name]."""

    name: str
    kind: str  # "image" or "lm"
    epochs: int  # training epochs of the final runs
    batch_size: int  # examples (image) or sequences windows (lm) per step
    target: float  # accuracy to reach (image) or loss margin above the optimum in nats (lm)
    # image
    source: str = "digits"  # "digits" (bundled) or "npz"
    npz_path: str = ""  # for source "npz"
    model: str = "cnn"  # "mlp", "cnn" or "resnet"
    width: int = 16  # channels of the first conv (cnn/resnet) or hidden units (mlp)
    depth: int = 2  # residual blocks per stage (resnet) or hidden layers (mlp)
    validation_fraction: float = 0.2  # of the training data, held out for the SGD grid search
    test_fraction: float = 0.2  # digits only: held-out test set
    # lm
    vocab_size: int = 16
    context_tokens: int = 2  # Markov order = the n-gram model's context
    concentration: float = 0.1  # Dirichlet concentration of the chain's rows: small = predictable
    train_tokens: int = 20000
    eval_tokens: int = 5000
    embed_dim: int = 16
    hidden_dim: int = 64

    def __post_init__(self):
        if self.kind not in TASK_KINDS:
            raise ValueError(f"jorge.tasks.{self.name}.kind: {self.kind!r} is not one of {TASK_KINDS}")
        for key in ("epochs", "batch_size", "width", "depth", "vocab_size", "context_tokens", "train_tokens",
                    "eval_tokens", "embed_dim", "hidden_dim"):  # fmt: skip
            if getattr(self, key) < 1:
                raise ValueError(f"jorge.tasks.{self.name}.{key}: must be >= 1, got {getattr(self, key)}")
        if self.kind == "image":
            if self.source not in IMAGE_SOURCES:
                raise ValueError(f"jorge.tasks.{self.name}.source: {self.source!r} is not one of {IMAGE_SOURCES}")
            if self.model not in IMAGE_MODELS:
                raise ValueError(f"jorge.tasks.{self.name}.model: {self.model!r} is not one of {IMAGE_MODELS}")
            if self.source == "npz" and not self.npz_path:
                raise ValueError(f"jorge.tasks.{self.name}.npz_path: required when source is 'npz'")
            if not 0.0 < self.target <= 1.0:
                raise ValueError(f"jorge.tasks.{self.name}.target: an accuracy in (0, 1], got {self.target}")
        elif self.target <= 0:
            raise ValueError(f"jorge.tasks.{self.name}.target: a loss margin > 0 nats, got {self.target}")
        for key in ("validation_fraction", "test_fraction"):
            if not 0.0 < getattr(self, key) < 0.5:
                raise ValueError(f"jorge.tasks.{self.name}.{key}: must be in (0, 0.5), got {getattr(self, key)}")
        if self.concentration <= 0:
            raise ValueError(f"jorge.tasks.{self.name}.concentration: must be > 0")

    @property
    def higher_is_better(self) -> bool:
        return self.kind == "image"


@dataclasses.dataclass(kw_only=True)
class Task:
    config: BenchmarkTaskConfig
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_eval: torch.Tensor  # validation split (grid search) or test split (final runs)
    y_eval: torch.Tensor
    target_metric: float  # accuracy to reach, or loss to get below
    optimum_loss: float | None = None  # lm only: the chain's own cross-entropy on the eval tokens

    def make_model(self) -> nn.Module:
        return build_model(self.config, tuple(self.x_train.shape[1:]))

    def reached(self, metric: float) -> bool:
        return metric >= self.target_metric if self.config.higher_is_better else metric <= self.target_metric


# --- image classification -----------------------------------------------------------------------------


def _split(n: int, fraction: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    order = rng.permutation(n)
    cut = int(round(n * fraction))
    return order[cut:], order[:cut]


def load_images(cfg: BenchmarkTaskConfig, seed: int, validation: bool):
    """(x_train, y_train, x_eval, y_eval); eval is the validation split if `validation`, else the test set."""
    rng = np.random.default_rng(seed)
    if cfg.source == "digits":
        from sklearn.datasets import load_digits

        digits = load_digits()
        x = (digits.images.astype(np.float32) / 16.0)[:, None]  # (N, 1, 8, 8), pixel values 0..16
        y = digits.target.astype(np.int64)
        train_idx, test_idx = _split(len(x), cfg.test_fraction, rng)
        x_train, y_train, x_test, y_test = x[train_idx], y[train_idx], x[test_idx], y[test_idx]
    else:
        with np.load(cfg.npz_path) as data:
            missing = {"x_train", "y_train", "x_test", "y_test"} - set(data.files)
            if missing:
                raise ValueError(f"{cfg.npz_path}: missing arrays {sorted(missing)} (needs x_train, y_train, x_test, y_test)")
            x_train, y_train = data["x_train"].astype(np.float32), data["y_train"].astype(np.int64)
            x_test, y_test = data["x_test"].astype(np.float32), data["y_test"].astype(np.int64)
        if x_train.ndim != 4:
            raise ValueError(f"{cfg.npz_path}: x_train must be N x C x H x W, got shape {x_train.shape}")
    # Standardise with training statistics only.
    mean, std = x_train.mean(), x_train.std() + 1e-8
    x_train, x_test = (x_train - mean) / std, (x_test - mean) / std
    if validation:
        fit_idx, val_idx = _split(len(x_train), cfg.validation_fraction, rng)
        x_train, y_train, x_test, y_test = x_train[fit_idx], y_train[fit_idx], x_train[val_idx], y_train[val_idx]
    return tuple(torch.from_numpy(np.ascontiguousarray(a)) for a in (x_train, y_train, x_test, y_test))


class BasicBlock(nn.Module):
    """ResNet basic block (two 3x3 convs, batch norm, identity or 1x1 projection shortcut)."""

    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


def build_image_model(cfg: BenchmarkTaskConfig, input_shape: tuple[int, ...], num_classes: int) -> nn.Module:
    channels, height, width = input_shape
    if cfg.model == "mlp":
        layers: list[nn.Module] = [nn.Flatten()]
        size = channels * height * width
        for _ in range(cfg.depth):
            layers += [nn.Linear(size, cfg.width), nn.ReLU()]
            size = cfg.width
        return nn.Sequential(*layers, nn.Linear(size, num_classes))
    if cfg.model == "cnn":
        w = cfg.width
        return nn.Sequential(
            nn.Conv2d(channels, w, 3, padding=1), nn.ReLU(),  # (B, w, H, W)
            nn.Conv2d(w, 2 * w, 3, padding=1), nn.ReLU(),  # (B, 2w, H, W)
            nn.MaxPool2d(2),  # (B, 2w, H/2, W/2)
            nn.Flatten(),
            nn.Linear(2 * w * (height // 2) * (width // 2), 4 * w), nn.ReLU(),
            nn.Linear(4 * w, num_classes),
        )  # fmt: skip
    # A CIFAR-style ResNet: three stages of `depth` basic blocks, widths w, 2w, 4w.
    w = cfg.width
    stages, cin = [], w
    for stage, cout in enumerate((w, 2 * w, 4 * w)):
        for block in range(cfg.depth):
            stages.append(BasicBlock(cin, cout, 2 if stage > 0 and block == 0 else 1))
            cin = cout
    return nn.Sequential(
        nn.Conv2d(channels, w, 3, padding=1, bias=False), nn.BatchNorm2d(w), nn.ReLU(),
        *stages, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, num_classes),
    )  # fmt: skip


# --- synthetic language model ------------------------------------------------------------------------


def markov_chain(cfg: BenchmarkTaskConfig, rng: np.random.Generator) -> np.ndarray:
    """Transition table P[context..., next] of an order-k chain, rows drawn from Dirichlet(concentration)."""
    contexts = cfg.vocab_size**cfg.context_tokens
    table = rng.dirichlet(np.full(cfg.vocab_size, cfg.concentration), size=contexts)
    return table.reshape((cfg.vocab_size,) * cfg.context_tokens + (cfg.vocab_size,))


def sample_chain(table: np.ndarray, length: int, rng: np.random.Generator) -> np.ndarray:
    vocab = table.shape[-1]
    order = table.ndim - 1
    tokens = list(rng.integers(0, vocab, size=order))
    cumulative = np.cumsum(table, axis=-1)
    draws = rng.random(length)
    for step in range(length):
        row = cumulative[tuple(tokens[-order:])]
        tokens.append(min(int(np.searchsorted(row, draws[step] * row[-1])), vocab - 1))
    return np.asarray(tokens[order:], dtype=np.int64)


def ngram_windows(tokens: np.ndarray, order: int) -> tuple[np.ndarray, np.ndarray]:
    """(contexts N x order, next tokens N) for every position with a full context."""
    windows = np.lib.stride_tricks.sliding_window_view(tokens, order + 1)
    return windows[:, :order].copy(), windows[:, order].copy()


def load_lm(cfg: BenchmarkTaskConfig, seed: int, validation: bool):
    """Train tokens and eval tokens from one chain; eval is a validation stream or the test stream."""
    rng = np.random.default_rng(seed)
    table = markov_chain(cfg, rng)
    train = sample_chain(table, cfg.train_tokens, rng)
    validation_stream = sample_chain(table, cfg.eval_tokens, rng)
    test_stream = sample_chain(table, cfg.eval_tokens, rng)
    x_train, y_train = ngram_windows(train, cfg.context_tokens)
    x_eval, y_eval = ngram_windows(validation_stream if validation else test_stream, cfg.context_tokens)
    # The chain's own cross-entropy on exactly these eval tokens: the loss no model can beat on average.
    probs = table[tuple(x_eval.T)][np.arange(len(y_eval)), y_eval]
    optimum = float(-np.log(probs).mean())
    tensors = tuple(torch.from_numpy(a) for a in (x_train, y_train, x_eval, y_eval))
    return (*tensors, optimum)


class NGramLM(nn.Module):
    """Neural n-gram LM: embeddings of the last k tokens, concatenated -> tanh hidden layer -> logits."""

    def __init__(self, vocab_size: int, context_tokens: int, embed_dim: int, hidden_dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.hidden = nn.Linear(context_tokens * embed_dim, hidden_dim)
        self.out = nn.Linear(hidden_dim, vocab_size)

    def forward(self, context):  # context: (B, k) token ids
        h = self.embed(context).flatten(1)  # (B, k * embed_dim)
        return self.out(torch.tanh(self.hidden(h)))  # (B, vocab)


def build_model(cfg: BenchmarkTaskConfig, input_shape: tuple[int, ...]) -> nn.Module:
    if cfg.kind == "lm":
        return NGramLM(cfg.vocab_size, cfg.context_tokens, cfg.embed_dim, cfg.hidden_dim)
    num_classes = 10 if cfg.source == "digits" else None
    if num_classes is None:
        with np.load(cfg.npz_path) as data:
            num_classes = int(data["y_train"].max()) + 1
    return build_image_model(cfg, input_shape, num_classes)


def build_task(cfg: BenchmarkTaskConfig, seed: int, validation: bool = False) -> Task:
    """The task's data (validation split for the grid search, test split for the final runs)."""
    if cfg.kind == "image":
        x_train, y_train, x_eval, y_eval = load_images(cfg, seed, validation)
        task = Task(config=cfg, x_train=x_train, y_train=y_train, x_eval=x_eval, y_eval=y_eval,
                    target_metric=cfg.target)  # fmt: skip
    else:
        x_train, y_train, x_eval, y_eval, optimum = load_lm(cfg, seed, validation)
        task = Task(config=cfg, x_train=x_train, y_train=y_train, x_eval=x_eval, y_eval=y_eval,
                    target_metric=optimum + cfg.target, optimum_loss=optimum)  # fmt: skip
    logger.info("task %s: %d training and %d %s examples, target %s %.4f", cfg.name, len(task.x_train),
                len(task.x_eval), "validation" if validation else "test",
                "accuracy >=" if cfg.higher_is_better else "loss <=", task.target_metric)  # fmt: skip
    return task


def task_on(task: Task, device) -> Task:
    """The task with its data on `device` (the whole split fits a GPU's memory at this study's sizes)."""
    return dataclasses.replace(task, x_train=task.x_train.to(device), y_train=task.y_train.to(device),
                               x_eval=task.x_eval.to(device), y_eval=task.y_eval.to(device))  # fmt: skip


@torch.no_grad()
def evaluate(model: nn.Module, task: Task, batch_size: int = 1024) -> dict[str, float]:
    """Mean cross-entropy and accuracy on the eval split."""
    model.eval()
    loss_sum, correct = 0.0, 0
    for start in range(0, len(task.x_eval), batch_size):
        x, y = task.x_eval[start : start + batch_size], task.y_eval[start : start + batch_size]
        logits = model(x)
        loss_sum += nn.functional.cross_entropy(logits, y, reduction="sum").item()
        correct += int((logits.argmax(1) == y).sum())
    model.train()
    n = len(task.x_eval)
    loss = loss_sum / n
    return {"loss": loss if math.isfinite(loss) else float("nan"), "accuracy": correct / n}


def metric_of(task: Task, evaluation: dict[str, float]) -> float:
    return evaluation["accuracy"] if task.config.higher_is_better else evaluation["loss"]
