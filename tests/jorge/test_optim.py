"""Jorge and Shampoo: the update equals the equations, grafting, resume, divergence handling, factor tracking."""

import copy
import math

import pytest
import torch

from workflow_scripts.jorge.numerics import gradient_stream, track_factor
from workflow_scripts.jorge.optim import (
    Jorge,
    Shampoo,
    build_optimizer,
    exact_inverse_root,
    jorge_root_update,
)

torch.set_num_threads(1)


def _direct_jorge_root(root, gram, decay, r_max):
    """Jorge's factor update written out from the equations (STUDIES.md), independently of optim.py."""
    x = torch.linalg.matrix_power(root, 4) @ gram
    x_norm = torch.linalg.matrix_norm(x)
    if (1 - decay) / decay * x_norm >= r_max:  # the stated rule: raise the decay to stay inside r_max
        decay = (x_norm / (x_norm + r_max)).item()
    a = (1 - decay) / decay * x
    eye = torch.eye(root.shape[0], dtype=root.dtype)
    return decay ** (-0.25) * root @ (eye - a / 4 + 5 * a @ a / 32)


@pytest.mark.parametrize("decay", [0.9, 0.99])
def test_jorge_step_equals_direct_equations(decay):
    torch.manual_seed(0)
    weight0 = torch.randn(4, 3, dtype=torch.float64)
    grads = [torch.randn(4, 3, dtype=torch.float64) for _ in range(4)]
    lr, momentum, wd, r_max = 0.1, 0.9, 0.01, 0.5

    param = torch.nn.Parameter(weight0.clone())
    opt = Jorge([param], lr=lr, momentum=momentum, weight_decay=wd, decay=decay, max_series_ratio=r_max, eps=0.0)
    for g in grads:
        param.grad = g.clone()
        opt.step()

    w, buf, left, right = weight0.clone(), None, None, None
    for g in grads:
        gl, gr = g @ g.T, g.T @ g
        if left is None:  # Lh_0 = ||G G^T||_F^{-1/4} I
            left = torch.linalg.matrix_norm(gl) ** -0.25 * torch.eye(4, dtype=torch.float64)
            right = torch.linalg.matrix_norm(gr) ** -0.25 * torch.eye(3, dtype=torch.float64)
        left, right = _direct_jorge_root(left, gl, decay, r_max), _direct_jorge_root(right, gr, decay, r_max)
        d = g + wd * w
        p = left @ d @ right
        p = p * torch.linalg.norm(d) / torch.linalg.norm(p)  # grafted to SGD's norm
        buf = p if buf is None else momentum * buf + p
        w = w - lr * buf
    torch.testing.assert_close(param.detach(), w, rtol=1e-10, atol=1e-12)


def test_shampoo_step_equals_direct_equations():
    torch.manual_seed(1)
    weight0 = torch.randn(5, 3, dtype=torch.float64)
    grads = [torch.randn(5, 3, dtype=torch.float64) for _ in range(3)]
    b, eps, lr = 0.9, 1e-4, 0.05
    param = torch.nn.Parameter(weight0.clone())
    opt = Shampoo([param], lr=lr, momentum=0.0, decay=b, eps=eps)
    for g in grads:
        param.grad = g.clone()
        opt.step()
    w, left, right = weight0.clone(), torch.zeros(5, 5, dtype=torch.float64), torch.zeros(3, 3, dtype=torch.float64)
    for g in grads:
        left, right = b * left + (1 - b) * g @ g.T, b * right + (1 - b) * g.T @ g
        evl, vl = torch.linalg.eigh(left)
        evr, vr = torch.linalg.eigh(right)
        p = (vl @ torch.diag((evl.clamp(min=0) + eps) ** -0.25) @ vl.T) @ g @ (vr @ torch.diag((evr.clamp(min=0) + eps) ** -0.25) @ vr.T)
        w = w - lr * p * torch.linalg.norm(g) / torch.linalg.norm(p)
    torch.testing.assert_close(param.detach(), w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls", [Jorge, Shampoo])
def test_grafting_gives_sgd_step_norm(cls):
    torch.manual_seed(2)
    layer = torch.nn.Conv2d(3, 6, 3)  # a convolution: the weight is preconditioned as a 6 x 27 matrix
    opt = cls(layer.parameters(), lr=0.1, momentum=0.0, weight_decay=0.0, decay=0.5)
    x = torch.randn(8, 3, 7, 7)
    for _ in range(10):
        opt.zero_grad()
        layer(x).square().mean().backward()
        before = layer.weight.detach().clone()
        grad = layer.weight.grad.clone()
        opt.step()
        step = layer.weight.detach() - before
        assert torch.linalg.norm(step).item() == pytest.approx(0.1 * torch.linalg.norm(grad).item(), rel=1e-5)
    # ...but the direction is not SGD's: the preconditioner changed it.
    cosine = torch.nn.functional.cosine_similarity(step.flatten(), -grad.flatten(), dim=0).item()
    assert cosine < 0.999
    state = opt.state[layer.weight]
    assert state["left"].shape == (6, 6) and state["right"].shape == (27, 27)


@pytest.mark.parametrize("name", ["jorge", "shampoo"])
def test_state_dict_resume_is_identical(name):
    hparams = {"lr": 0.05, "momentum": 0.9, "weight_decay": 1e-3, "decay": 0.9, "precondition_frequency": 2}

    def batches(seed, n):
        g = torch.Generator().manual_seed(seed)
        return [(torch.randn(16, 6, generator=g), torch.randint(0, 3, (16,), generator=g)) for _ in range(n)]

    def run(model, opt, data):
        for x, y in data:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()

    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    opt = build_optimizer(name, model.parameters(), hparams)
    run(model, opt, batches(0, 5))
    saved_model, saved_opt = copy.deepcopy(model.state_dict()), copy.deepcopy(opt.state_dict())
    run(model, opt, batches(1, 5))

    resumed = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    resumed.load_state_dict(saved_model)
    resumed_opt = build_optimizer(name, resumed.parameters(), hparams)
    resumed_opt.load_state_dict(saved_opt)
    run(resumed, resumed_opt, batches(1, 5))
    for a, b in zip(model.parameters(), resumed.parameters(), strict=True):
        assert torch.equal(a, b)
    assert resumed_opt.divergence_counts() == opt.divergence_counts()


def test_nonfinite_gradient_skips_the_whole_step_and_is_counted():
    torch.manual_seed(4)
    model = torch.nn.Linear(4, 3)
    opt = Jorge(model.parameters(), lr=0.1)
    model(torch.randn(5, 4)).sum().backward()
    opt.step()
    before_params = [p.detach().clone() for p in model.parameters()]
    before_state = copy.deepcopy(opt.state_dict()["state"])
    model(torch.randn(5, 4)).sum().backward()
    model.bias.grad[0] = math.inf  # one bad entry in another tensor than the matrix
    opt.step()
    assert all(torch.equal(a, b) for a, b in zip(before_params, model.parameters(), strict=True))
    after_state = opt.state_dict()["state"]
    for key, value in before_state[0].items():
        assert torch.equal(torch.as_tensor(value), torch.as_tensor(after_state[0][key]))
    assert opt.divergence_counts()["steps_skipped_nonfinite"] == 1


def test_series_guard_adapts_decay_or_skips_out_of_range_updates():
    torch.manual_seed(5)
    g = torch.randn(6, 9)
    gram = g @ g.T
    root = 0.5 * torch.eye(6)
    huge = 1e6 * gram  # (1-b)/b ||X|| far above 1: the bare series would blow up
    new_root, used_decay, event = jorge_root_update(root, huge, decay=0.9, series_guard="adapt_decay", max_series_ratio=0.5)
    x_norm = torch.linalg.matrix_norm(torch.linalg.matrix_power(root, 4) @ huge).item()
    assert event == "adapted"
    assert (1 - used_decay) / used_decay * x_norm == pytest.approx(0.5)
    assert torch.isfinite(new_root).all()
    kept, _, event = jorge_root_update(root, huge, decay=0.9, series_guard="skip_update", max_series_ratio=0.5)
    assert event == "skipped" and torch.equal(kept, root)
    bare, _, _ = jorge_root_update(root, huge, decay=0.9, series_guard="adapt_decay", max_series_ratio=math.inf)
    assert torch.linalg.matrix_norm(bare) > 1e6 * torch.linalg.matrix_norm(root)  # what the guard prevents


def test_exact_inverse_root_inverts_fourth_power():
    torch.manual_seed(6)
    a = torch.randn(7, 7, dtype=torch.float64)
    spd = a @ a.T + 0.5 * torch.eye(7, dtype=torch.float64)
    root = exact_inverse_root(spd, 0.0)
    torch.testing.assert_close(torch.linalg.matrix_power(root, 4) @ spd, torch.eye(7, dtype=torch.float64))


def test_factor_tracks_exact_root_in_convergent_regime_and_breaks_outside():
    gen = torch.Generator().manual_seed(7)
    full_rank = gradient_stream(12, 24, 12, 120, gen)
    # Convergent regime (b = 0.99, series ratio ~0.02): the stated tolerance is 1% relative error.
    tracked = track_factor(full_rank, decay=0.99, guard="none", max_series_ratio=0.5, breakdown_error=0.5)
    assert tracked["max_error"] < 0.01
    assert tracked["max_exact_series_ratio"] < 0.1
    # b = 0.5: (1-b)/b rho(X) > 1, the bare series diverges within a few updates...
    broken = track_factor(full_rank, decay=0.5, guard="none", max_series_ratio=0.5, breakdown_error=0.5)
    assert broken["breakdown_step"] is not None and broken["breakdown_step"] < 20
    # ...while the adapt-decay rule keeps the factor within 10% of the exact root of the recurrence it ran.
    guarded = track_factor(full_rank, decay=0.5, guard="adapt_decay", max_series_ratio=0.5, breakdown_error=0.5)
    assert guarded["breakdown_step"] is None and guarded["max_error"] < 0.1
    assert guarded["adapted_updates"] > 0


def test_invalid_hyperparameters_are_rejected_by_name():
    p = [torch.nn.Parameter(torch.zeros(2, 2))]
    with pytest.raises(ValueError, match="series_guard"):
        Jorge(p, series_guard="clip")
    with pytest.raises(ValueError, match="max_series_ratio"):
        Jorge(p, max_series_ratio=1.5)
    with pytest.raises(ValueError, match="decay"):
        Shampoo(p, decay=1.0)
    with pytest.raises(ValueError, match="unknown optimizer"):
        build_optimizer("lbfgs", p, {})
