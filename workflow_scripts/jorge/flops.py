"""FLOP counts of a training iteration: forward + backward of a model, and each optimizer's update per layer.

Every product is kept as its shape (a, b, c): an (a x b) @ (b x c) product, 2abc FLOPs, the count
`torch.utils.flop_counter.FlopCounterMode` gives for `aten.mm`. A machine model (`cost_model.py`) turns
the shapes into time with a throughput that depends on the product's size; the FLOP totals are checked
against FlopCounterMode on the real optimizer step (`step_cost.py`, tests/jorge/test_flops.py).

Per weight matrix G (m x n: rows are output units, a convolution's is out x in*kh*kw; `optim.as_matrix`),
with a side preconditioned only when its size is at most `max_precond_dim`:

- SGD, AdamW: no products (elementwise only).
- Jorge, every step: Lh @ G (m, m, n) and (Lh G) @ Rh (m, n, n) to precondition.
  On an update step also, per side of size d: the gram G G^T (m, n, m) or G^T G (n, m, n), then
  Lh^2, Lh^4, Lh^4 @ gram, A @ A, Lh @ series: five (d, d, d) products (`optim.jorge_root_update`).
- Shampoo, every step: both grams (accumulating the statistics) and the two preconditioning products.
  On an update step also, per side: one symmetric eigendecomposition of d x d (`torch.linalg.eigh`, not
  a product: FlopCounterMode does not count it) and (V diag) @ V^T, one (d, d, d) product.

An eigendecomposition is given a nominal `EIGH_FLOPS_PER_D3` d^3 FLOPs (symmetric QR with eigenvectors,
about 9 d^3: Golub & Van Loan, Matrix Computations, 4th ed., section 8.3) only to quote its throughput
in FLOP/s beside the products'; time is always measured or modelled from that throughput.

A layer's forward + backward: forward (T, n, m) with T the positions per iteration (batch x H_out x W_out
for a convolution), the weight gradient (m, T, n), and the input gradient (T, m, n) unless the layer's
input needs no gradient (the first layer). `model_flops` counts a whole model with FlopCounterMode on the
meta device (shapes only, no memory or compute), so the paper's models are counted, not estimated.

`resnet50` builds ResNet-50 (He et al. 2016, v1.5: stride on the 3x3 conv), the paper's ImageNet model.
"""


import dataclasses
import math

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from workflow_scripts.jorge.optim import as_matrix

EIGH_FLOPS_PER_D3 = 9.0  # nominal FLOPs of a symmetric eigendecomposition with eigenvectors, per d^3
OPTIMIZERS = ("sgd", "adamw", "jorge", "shampoo")
SECOND_ORDER = ("jorge", "shampoo")

Product = tuple[int, int, int]  # (a, b, c): an (a x b) @ (b x c) matrix product


def product_flops(products: list[Product]) -> int:
    return sum(2 * a * b * c for a, b, c in products)


def _sides(m: int, n: int, max_precond_dim: int) -> list[tuple[str, int]]:
    return [(side, d) for side, d in (("left", m), ("right", n)) if d <= max_precond_dim]


def _gram(side: str, m: int, n: int) -> Product:
    return (m, n, m) if side == "left" else (n, m, n)


def _precondition(m: int, n: int, sides: list[tuple[str, int]]) -> list[Product]:
    names = {side for side, _ in sides}
    return ([(m, m, n)] if "left" in names else []) + ([(m, n, n)] if "right" in names else [])


def optimizer_products(name: str, m: int, n: int, *, update: bool, max_precond_dim: int) -> list[Product]:
    """The matrix products of one optimizer step on an m x n weight (`update`: the preconditioner is updated)."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r} (known: {', '.join(OPTIMIZERS)})")
    if name not in SECOND_ORDER:
        return []
    sides = _sides(m, n, max_precond_dim)
    products: list[Product] = []
    if name == "shampoo":
        products += [_gram(side, m, n) for side, _ in sides]  # statistics, every step
    if update:
        for side, d in sides:
            if name == "jorge":
                products += [_gram(side, m, n)] + [(d, d, d)] * 5
            else:
                products += [(d, d, d)]  # (V * lambda^-1/4) @ V^T after the eigendecomposition
    return products + _precondition(m, n, sides)


def optimizer_eighs(name: str, m: int, n: int, *, update: bool, max_precond_dim: int) -> list[int]:
    """Sizes of the eigendecompositions of one optimizer step (Shampoo's update steps only)."""
    if name != "shampoo" or not update:
        return []
    return [d for _, d in _sides(m, n, max_precond_dim)]


def iteration_products(name: str, m: int, n: int, *, frequency: int,
                       max_precond_dim: int) -> tuple[list[Product], list[Product], list[int]]:  # fmt: skip
    """(every-step products, products of one update, eigendecompositions of one update) of an optimizer on an
    m x n weight; per iteration the update's share is 1/frequency (one update every `frequency` steps)."""
    every = optimizer_products(name, m, n, update=False, max_precond_dim=max_precond_dim)
    with_update = optimizer_products(name, m, n, update=True, max_precond_dim=max_precond_dim)
    update_only = list(with_update)
    for product in every:
        update_only.remove(product)
    return every, update_only, optimizer_eighs(name, m, n, update=True, max_precond_dim=max_precond_dim)


def optimizer_flops_per_iteration(name: str, m: int, n: int, *, frequency: int, max_precond_dim: int) -> float:
    """Product FLOPs of one optimizer step, amortised: the update's share is 1/frequency."""
    every, update, _ = iteration_products(name, m, n, frequency=frequency, max_precond_dim=max_precond_dim)
    return product_flops(every) + product_flops(update) / frequency


def layer_products(rows: int, cols: int, tokens: int, *, input_grad: bool) -> list[Product]:
    """Forward + backward products of a linear map (rows x cols weight) applied at `tokens` positions."""
    products = [(tokens, cols, rows), (rows, tokens, cols)]  # forward, weight gradient
    return products + ([(tokens, rows, cols)] if input_grad else [])  # input gradient


# --- counting real models ----------------------------------------------------------------------------------


@dataclasses.dataclass(kw_only=True)
class ModelCount:
    """What one training iteration of a model costs in products, counted on the meta device."""

    forward_backward_flops: int  # FlopCounterMode's total for forward + loss + backward
    analytic_flops: int  # the same from `layer_products` over the model's Linear and Conv layers
    products: list[Product]  # those products, for a machine model to time one by one
    weights: list[tuple[int, int]]  # (m, n) of every parameter with >= 2 dims, as the optimizers see them
    parameters: int  # all parameters (elementwise work of every optimizer)


def count_model(model: nn.Module, example: torch.Tensor, target: torch.Tensor) -> ModelCount:
    """Count forward + cross-entropy + backward of `model` on one batch with FlopCounterMode, on the meta device."""
    model = model.to("meta")
    example, target = example.to("meta"), target.to("meta")
    analytic: list[Product] = []

    def record(module, inputs, output):
        weight = as_matrix(module.weight)  # (m, n)
        tokens = output.numel() // output.shape[1] if isinstance(module, nn.Conv2d) else output.numel() // output.shape[-1]
        analytic.extend(layer_products(weight.shape[0], weight.shape[1], tokens, input_grad=inputs[0].requires_grad))

    hooks = [module.register_forward_hook(record) for module in model.modules()
             if isinstance(module, (nn.Linear, nn.Conv2d))]  # fmt: skip
    try:
        with FlopCounterMode(display=False) as counter:
            loss = nn.functional.cross_entropy(model(example), target)
            loss.backward()
    finally:
        for hook in hooks:
            hook.remove()
    weights = [tuple(as_matrix(p).shape) for p in model.parameters() if p.ndim >= 2]
    return ModelCount(forward_backward_flops=int(counter.get_total_flops()), analytic_flops=product_flops(analytic),
                      products=analytic, weights=weights,
                      parameters=sum(p.numel() for p in model.parameters()))  # fmt: skip


def counted_flops(fn) -> int:
    """Product FLOPs FlopCounterMode counts while `fn()` runs (on real tensors)."""
    with FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())


# --- the paper's ImageNet model ----------------------------------------------------------------------------


class Bottleneck(nn.Module):
    """ResNet bottleneck: 1x1 reduce, 3x3 (stride here, v1.5), 1x1 expand x4; projection shortcut when needed."""

    def __init__(self, cin: int, width: int, stride: int):
        super().__init__()
        cout = 4 * width
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout),
        )  # fmt: skip
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return torch.relu(self.body(x) + self.shortcut(x))


def resnet50(num_classes: int = 1000) -> nn.Module:
    """ResNet-50: stem 7x7/2 + max pool, stages of 3, 4, 6, 3 bottlenecks (widths 64..512), global pool, fc."""
    layers: list[nn.Module] = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                               nn.MaxPool2d(3, 2, 1)]  # fmt: skip
    cin = 64
    for stage, (width, blocks) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3), strict=True)):
        for block in range(blocks):
            layers.append(Bottleneck(cin, width, 2 if stage > 0 and block == 0 else 1))
            cin = 4 * width
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, num_classes))


def geometric_size(product: Product) -> float:
    """The side of the square product with the same FLOPs: the size a product's throughput is looked up at."""
    a, b, c = product
    return math.cbrt(a * b * c)
