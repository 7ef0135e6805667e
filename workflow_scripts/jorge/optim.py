"""Jorge (inverse-free approximate Shampoo) and Shampoo (exact inverse roots) as torch optimizers.

Shampoo keeps, per weight matrix G (m x n; a convolution weight is reshaped to out x in*kh*kw),

    L_t = b L_{t-1} + (1-b) G G^T,      R_t = b R_{t-1} + (1-b) G^T G,
    direction = L_t^{-1/4} G R_t^{-1/4}          (inverse fourth roots by eigendecomposition).

Jorge tracks Lh = L^{-1/4} itself. Writing L_t = b L_{t-1} (I + (1-b)/b L_{t-1}^{-1} G G^T) and
expanding (I + A)^{-1/4} = I - A/4 + 5/32 A^2 - ... (binomial series, second order):

    X_L  = Lh_{t-1}^4 G G^T,   A = (1-b)/b X_L,
    Lh_t = b^{-1/4} Lh_{t-1} (I - A/4 + 5/32 A^2),                      (same for Rh with G^T G)

which needs matrix products only. The series converges only when the spectral radius of A is below 1.
The guard (`series_guard`) keeps it there:

- "adapt_decay" (default): raise this update's decay to b_t = max(b, ||X||_F / (||X||_F + r_max)), so
  that (1-b_t)/b_t ||X||_F <= r_max < 1 (the Frobenius norm bounds the spectral radius and costs one
  reduction). Each raised decay is counted as `decay_adapted`.
- "skip_update": keep the previous factor when (1-b)/b ||X||_F >= r_max; counted as `series_skipped`.

Jorge cannot start from Shampoo's eps*I (X would be ~1/eps and the series far outside its range), so a
factor starts at Lh_0 = c^{-1/4} I with c = ||G G^T||_F + eps from the first gradient it sees: a scalar,
still inverse-free; `numerics.py` compares against the exact recurrence started from the same c*I.

Both optimizers graft their step to SGD's: per layer the preconditioned direction P is rescaled to the
norm of the (weight-decayed) gradient, P * ||g|| / ||P||, then momentum and the learning rate are applied
exactly as torch.optim.SGD does, so SGD's hyperparameters transfer. Vectors (biases, norms) take the
plain SGD step.

Divergence handling (never silently poisons the weights):
- a non-finite gradient anywhere skips the whole step (no parameter, momentum or factor changes):
  `steps_skipped_nonfinite`;
- a non-finite new factor (or a failed eigendecomposition) keeps the previous factor:
  `factor_nonfinite`;
- a non-finite preconditioned direction falls back to the SGD direction for that layer:
  `direction_fallback`.
`optimizer.divergence_counts()` returns the totals. Works on any device (CPU, CUDA); under
DistributedDataParallel the gradients are already averaged when `step()` runs, so every rank computes
identical factors and no extra communication is needed.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable

import torch

logger = logging.getLogger(__name__)

SERIES_GUARDS = ("adapt_decay", "skip_update")
COUNT_KEYS = (
    "steps_skipped_nonfinite", "factor_nonfinite", "direction_fallback", "decay_adapted", "series_skipped",
    "factor_updates",
)  # fmt: skip


def as_matrix(tensor: torch.Tensor) -> torch.Tensor:
    """View a weight (or its gradient) as a matrix: rows are output units (out x in*kh*kw for convs)."""
    return tensor.reshape(tensor.shape[0], -1)


def jorge_root_update(
    root: torch.Tensor, gram: torch.Tensor, *, decay: float, series_guard: str, max_series_ratio: float
) -> tuple[torch.Tensor, float, str]:
    """One second-order binomial update of an inverse fourth root factor.

    root: Lh_{t-1} (d x d); gram: G G^T (or G^T G) (d x d). Returns (new root, decay used, event) with
    event one of "ok", "adapted", "skipped", "nonfinite".
    """
    root2 = root @ root
    x = root2 @ root2 @ gram  # X = Lh^4 G G^T  (d x d)
    x_norm = torch.linalg.matrix_norm(x).item()  # Frobenius: bounds the spectral radius
    if not torch.isfinite(torch.tensor(x_norm)):
        return root, decay, "nonfinite"
    event = "ok"
    ratio = (1.0 - decay) / decay * x_norm
    if ratio >= max_series_ratio:
        if series_guard == "skip_update":
            return root, decay, "skipped"
        decay = x_norm / (x_norm + max_series_ratio)
        event = "adapted"
    a = ((1.0 - decay) / decay) * x
    eye = torch.eye(root.shape[0], dtype=root.dtype, device=root.device)
    series = eye - 0.25 * a + (5.0 / 32.0) * (a @ a)
    new_root = decay ** (-0.25) * (root @ series)
    if not torch.isfinite(new_root).all():
        return root, decay, "nonfinite"
    return new_root, decay, event


def initial_root(gram: torch.Tensor, eps: float) -> torch.Tensor:
    """Lh_0 = c^{-1/4} I with c = ||G G^T||_F + eps (scalar, inverse-free start; see the module doc)."""
    scale = torch.linalg.matrix_norm(gram) + eps
    eye = torch.eye(gram.shape[0], dtype=gram.dtype, device=gram.device)
    return scale ** (-0.25) * eye


def exact_inverse_root(matrix: torch.Tensor, eps: float, power: float = 0.25) -> torch.Tensor:
    """(matrix + eps I)^{-power} of a symmetric PSD matrix by eigendecomposition (negative eigenvalues clipped)."""
    eigvals, eigvecs = torch.linalg.eigh(matrix)
    inv = (eigvals.clamp(min=0.0) + eps) ** (-power)
    return (eigvecs * inv) @ eigvecs.T


class _GraftedSecondOrder(torch.optim.Optimizer):
    """Shared step: weight decay, non-finite checks, preconditioning, grafting to SGD's norm, momentum."""

    def __init__(self, params: Iterable, defaults: dict):
        for key in ("lr", "momentum", "weight_decay"):
            if defaults[key] < 0:
                raise ValueError(f"{type(self).__name__}: {key} must be >= 0, got {defaults[key]}")
        if not 0.0 <= defaults["momentum"] < 1.0:
            raise ValueError(f"{type(self).__name__}: momentum must be in [0, 1), got {defaults['momentum']}")
        if not 0.0 < defaults["decay"] < 1.0:
            raise ValueError(f"{type(self).__name__}: decay must be in (0, 1), got {defaults['decay']}")
        if int(defaults["precondition_frequency"]) < 1:
            raise ValueError(f"{type(self).__name__}: precondition_frequency must be >= 1")
        super().__init__(params, defaults)
        self.counts: Counter = Counter({key: 0 for key in COUNT_KEYS})

    # -- subclass hooks ----------------------------------------------------------------------------
    def _update_preconditioner(self, state: dict, grad: torch.Tensor, group: dict) -> None:
        raise NotImplementedError

    def _accumulate(self, state: dict, grad: torch.Tensor, group: dict) -> None:
        """Called every step before `_update_preconditioner` (Shampoo accumulates statistics here)."""

    # -- checkpointing of the counters -------------------------------------------------------------
    def state_dict(self):
        sd = super().state_dict()
        sd["divergence_counts"] = dict(self.counts)
        return sd

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        counts = state_dict.pop("divergence_counts", {})
        super().load_state_dict(state_dict)
        self.counts = Counter({key: 0 for key in COUNT_KEYS}) | Counter(counts)
        for key in COUNT_KEYS:
            self.counts.setdefault(key, 0)

    def divergence_counts(self) -> dict[str, int]:
        return {key: int(self.counts[key]) for key in COUNT_KEYS}

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        params = [p for group in self.param_groups for p in group["params"] if p.grad is not None]
        # One non-finite gradient anywhere skips the whole step, like a loss scaler would: the weights,
        # momenta and factors stay as they were.
        if params and not torch.stack([torch.isfinite(p.grad).all() for p in params]).all():
            self.counts["steps_skipped_nonfinite"] += 1
            return loss
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                state["step"] = state.get("step", 0) + 1
                grad = p.grad
                direction = grad.add(p, alpha=group["weight_decay"]) if group["weight_decay"] else grad.clone()
                if p.ndim >= 2:
                    grad_matrix = as_matrix(grad)
                    self._accumulate(state, grad_matrix, group)
                    if (state["step"] - 1) % int(group["precondition_frequency"]) == 0:
                        self._update_preconditioner(state, grad_matrix, group)
                    direction = self._precondition(state, direction)
                buf = state.get("momentum_buffer")
                if group["momentum"] > 0:
                    if buf is None:
                        buf = state["momentum_buffer"] = direction.clone()
                    else:
                        buf.mul_(group["momentum"]).add_(direction)
                    direction = buf
                p.add_(direction, alpha=-group["lr"])
        return loss

    def _precondition(self, state: dict, direction: torch.Tensor) -> torch.Tensor:
        matrix = as_matrix(direction)
        preconditioned = matrix
        if state.get("left") is not None:
            preconditioned = state["left"] @ preconditioned
        if state.get("right") is not None:
            preconditioned = preconditioned @ state["right"]
        # Grafting: the preconditioner picks the direction, SGD's gradient norm sets the step length.
        norm_sgd = torch.linalg.vector_norm(matrix)
        norm_pre = torch.linalg.vector_norm(preconditioned)
        grafted = preconditioned * (norm_sgd / norm_pre) if norm_pre > 0 else preconditioned
        if not torch.isfinite(grafted).all():
            self.counts["direction_fallback"] += 1
            return direction
        return grafted.reshape(direction.shape)


class Jorge(_GraftedSecondOrder):
    """Jorge: Shampoo's preconditioner with inverse roots updated by a binomial series (products only).

    Args: lr, momentum, weight_decay (as torch.optim.SGD); decay b of the factor statistics;
    precondition_frequency (steps between factor updates, the factor uses that step's gradient);
    series_guard ("adapt_decay" or "skip_update") and max_series_ratio r_max < 1 (how far inside the
    series' convergence radius an update must stay); eps (start scale, see `initial_root`);
    max_precond_dim (a side larger than this is left unpreconditioned).
    """

    def __init__(self, params, lr: float = 0.1, momentum: float = 0.9, weight_decay: float = 0.0,
                 decay: float = 0.95, precondition_frequency: int = 1, series_guard: str = "adapt_decay",
                 max_series_ratio: float = 0.5, eps: float = 1e-12, max_precond_dim: int = 1024):  # fmt: skip
        if series_guard not in SERIES_GUARDS:
            raise ValueError(f"Jorge: series_guard must be one of {SERIES_GUARDS}, got {series_guard!r}")
        if not 0.0 < max_series_ratio < 1.0:
            raise ValueError(f"Jorge: max_series_ratio must be in (0, 1) for the series to converge, got {max_series_ratio}")
        defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay, decay=decay,
                        precondition_frequency=precondition_frequency, series_guard=series_guard,
                        max_series_ratio=max_series_ratio, eps=eps, max_precond_dim=max_precond_dim)  # fmt: skip
        super().__init__(params, defaults)

    def _update_preconditioner(self, state, grad, group):
        grams = {"left": lambda: grad @ grad.T, "right": lambda: grad.T @ grad}
        for side, dim in (("left", grad.shape[0]), ("right", grad.shape[1])):
            if dim > group["max_precond_dim"]:
                state[side] = None
                continue
            gram = grams[side]()  # (dim x dim)
            if state.get(side) is None:
                state[side] = initial_root(gram, group["eps"])
            new_root, _, event = jorge_root_update(
                state[side], gram, decay=group["decay"], series_guard=group["series_guard"],
                max_series_ratio=group["max_series_ratio"],
            )  # fmt: skip
            self.counts["factor_updates"] += 1
            if event == "adapted":
                self.counts["decay_adapted"] += 1
            elif event == "skipped":
                self.counts["series_skipped"] += 1
            elif event == "nonfinite":
                self.counts["factor_nonfinite"] += 1
            state[side] = new_root


class Shampoo(_GraftedSecondOrder):
    """Shampoo with exact inverse fourth roots (eigendecomposition), grafted to SGD's step norm.

    Statistics L, R accumulate every step; the roots are recomputed every `precondition_frequency`
    steps from (L + eps I) and (R + eps I).
    """

    def __init__(self, params, lr: float = 0.1, momentum: float = 0.9, weight_decay: float = 0.0,
                 decay: float = 0.95, precondition_frequency: int = 1, eps: float = 1e-6,
                 max_precond_dim: int = 1024):  # fmt: skip
        if eps <= 0:
            raise ValueError(f"Shampoo: eps must be > 0, got {eps}")
        defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay, decay=decay,
                        precondition_frequency=precondition_frequency, eps=eps, max_precond_dim=max_precond_dim)  # fmt: skip
        super().__init__(params, defaults)

    def _accumulate(self, state, grad, group):
        b = group["decay"]
        for side, dim, gram in (("left_stat", grad.shape[0], lambda: grad @ grad.T),
                                ("right_stat", grad.shape[1], lambda: grad.T @ grad)):  # fmt: skip
            if dim > group["max_precond_dim"]:
                continue
            if side not in state:
                state[side] = torch.zeros(dim, dim, dtype=grad.dtype, device=grad.device)
            state[side].mul_(b).add_(gram(), alpha=1.0 - b)

    def _update_preconditioner(self, state, grad, group):
        for side in ("left", "right"):
            stat = state.get(f"{side}_stat")
            if stat is None:
                state[side] = None
                continue
            self.counts["factor_updates"] += 1
            try:
                root = exact_inverse_root(stat, group["eps"])
            except torch.linalg.LinAlgError:
                root = None
            if root is None or not torch.isfinite(root).all():
                self.counts["factor_nonfinite"] += 1
                continue  # keep the previous root (or none yet: identity)
            state[side] = root


def build_optimizer(name: str, params, hparams: dict) -> torch.optim.Optimizer:
    """The four optimizers of the study by name, from a flat dict of their hyperparameters."""
    if name == "sgd":
        return torch.optim.SGD(params, lr=hparams["lr"], momentum=hparams["momentum"],
                               weight_decay=hparams["weight_decay"])  # fmt: skip
    if name == "adamw":
        return torch.optim.AdamW(params, lr=hparams["lr"], betas=tuple(hparams.get("betas", (0.9, 0.999))),
                                 weight_decay=hparams["weight_decay"])  # fmt: skip
    if name == "jorge":
        keys = ("lr", "momentum", "weight_decay", "decay", "precondition_frequency", "series_guard",
                "max_series_ratio", "max_precond_dim")  # fmt: skip
        return Jorge(params, **{k: hparams[k] for k in keys if k in hparams})
    if name == "shampoo":
        keys = ("lr", "momentum", "weight_decay", "decay", "precondition_frequency", "eps", "max_precond_dim")
        return Shampoo(params, **{k: hparams[k] for k in keys if k in hparams})
    raise ValueError(f"unknown optimizer {name!r} (known: sgd, adamw, jorge, shampoo)")
