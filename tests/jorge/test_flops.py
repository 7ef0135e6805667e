"""FLOP formulas against FlopCounterMode on the real steps, the per-iteration timing's amortisation, and the
cost model's crossover and break-even arithmetic."""

import math

import pytest
import torch
from torch import nn

from workflow_scripts.jorge import cost_model, flops, step_cost
from workflow_scripts.jorge.optim import Jorge, Shampoo


@pytest.mark.parametrize("name", ["jorge", "shampoo"])
@pytest.mark.parametrize(("m", "n", "max_precond_dim"), [(6, 10, 64), (10, 6, 64), (5, 5, 64), (6, 10, 8)])
@pytest.mark.parametrize("frequency", [1, 3])
def test_optimizer_formula_matches_flop_counter(name, m, n, max_precond_dim, frequency):
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(m, n))
    cls = Jorge if name == "jorge" else Shampoo
    optimizer = cls([weight], lr=0.01, precondition_frequency=frequency, max_precond_dim=max_precond_dim)

    def cycle():  # `frequency` steps hold exactly one update
        for _ in range(frequency):
            weight.grad = torch.randn(m, n)
            optimizer.step()

    cycle()  # the first update creates the factors
    counted = flops.counted_flops(cycle) / frequency
    formula = flops.optimizer_flops_per_iteration(name, m, n, frequency=frequency, max_precond_dim=max_precond_dim)
    assert counted == pytest.approx(formula, rel=1e-12)
    assert counted > 0


def test_an_update_costs_more_than_a_plain_step_and_first_order_has_no_products():
    update = flops.optimizer_products("jorge", 8, 8, update=True, max_precond_dim=64)
    plain = flops.optimizer_products("jorge", 8, 8, update=False, max_precond_dim=64)
    assert flops.product_flops(update) == flops.product_flops(plain) + 2 * (2 * 8**3 + 5 * 2 * 8**3)
    assert flops.optimizer_products("sgd", 8, 8, update=True, max_precond_dim=64) == []
    assert flops.optimizer_eighs("shampoo", 8, 20, update=True, max_precond_dim=10) == [8]
    with pytest.raises(ValueError, match="optimizer"):
        flops.optimizer_products("lion", 8, 8, update=True, max_precond_dim=64)


def test_model_count_matches_layer_formulas():
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 8, 3, stride=2, padding=1),
                          nn.Flatten(), nn.Linear(8 * 4 * 4, 10))  # fmt: skip
    count = flops.count_model(model, torch.zeros(5, 3, 8, 8), torch.zeros(5, dtype=torch.long))
    assert count.forward_backward_flops == count.analytic_flops > 0
    # first conv: no input gradient (the images need none); the others: forward, weight and input gradients
    expected = 2 * 2 * (5 * 8 * 8) * 4 * 27 + 6 * (5 * 4 * 4) * 8 * 36 + 6 * 5 * 10 * 128
    assert count.forward_backward_flops == expected
    assert count.weights == [(4, 27), (8, 36), (10, 128)]


def test_resnet50_count_is_the_published_size():
    count = flops.count_model(flops.resnet50(), torch.zeros(1, 3, 224, 224), torch.zeros(1, dtype=torch.long))
    assert count.parameters == 25_557_032  # ResNet-50's published parameter count
    # about 4.1 G multiply-adds forward per 224 px image: forward + backward is about three times 8.2 GFLOPs
    assert 23e9 < count.forward_backward_flops < 25e9
    assert count.forward_backward_flops == count.analytic_flops


@pytest.fixture
def one_thread():
    """One torch thread, as the timing rule runs: two threads on a shared 2-core box stall each other."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_per_iteration_timing_amortises_the_update_over_the_configured_frequency(one_thread):
    d = 256  # large enough that Jorge's update (2 x 12 d^3 FLOPs) outweighs the step's fixed Python cost
    cfg = step_cost.StepCostConfig(sizes=[d], repeats=5, warmup=1, batch_size=16)
    every = step_cost.cost_settings({"jorge": {"precondition_frequency": 1}})
    rare = step_cost.cost_settings({"jorge": {"precondition_frequency": 16}})
    generator = torch.Generator().manual_seed(0)
    cost_every = step_cost.iteration_cost(d, cfg, every, generator)
    cost_rare = step_cost.iteration_cost(d, cfg, rare, generator)
    assert cost_every["precondition_frequency"]["jorge"] == 1 and cost_rare["precondition_frequency"]["jorge"] == 16
    for cost in (cost_every, cost_rare):
        for name, count in cost["flops_per_iteration"].items():
            assert count["counted"] == pytest.approx(count["formula"]), name
    update_flops = 2 * 5 * 2 * d**3 + 2 * 2 * d**3  # two sides: five products and the gram each
    saved = cost_every["flops_per_iteration"]["jorge"]["counted"] - cost_rare["flops_per_iteration"]["jorge"]["counted"]
    assert saved == pytest.approx(update_flops * (1 - 1 / 16))
    # the update dominates this layer's iteration: amortised over 16 steps the iteration is cheaper
    assert cost_rare["iteration_s"]["jorge"]["median"] < cost_every["iteration_s"]["jorge"]["median"]


def _machine(**rates):
    base = {"matmul_flop_per_s": 1e12, "matmul_latency_s": 0.0, "eigh_flop_per_s": 1e11, "eigh_latency_s": 0.0,
            "memory_bytes_per_s": 1e12}  # fmt: skip
    return cost_model.GPUAssumedConfig(**(base | rates))


SETTINGS = {name: {"precondition_frequency": 1, "max_precond_dim": 4096} for name in flops.OPTIMIZERS}


def test_crossover_follows_the_rates():
    sizes = [16, 64, 256, 1024]
    slow_eigh = cost_model.crossover(_machine(eigh_flop_per_s=1e9), sizes, 64, SETTINGS)
    fast_eigh = cost_model.crossover(_machine(eigh_flop_per_s=1e15), sizes, 64, SETTINGS)
    assert slow_eigh["jorge_update_faster_at"] == sizes and slow_eigh["jorge_update_faster_from"] == 16
    assert fast_eigh["jorge_update_faster_at"] == [] and fast_eigh["jorge_update_faster_from"] is None
    # a fixed eigh latency makes Shampoo dear for small factors only: Jorge wins below a size, not above
    latency = cost_model.crossover(_machine(eigh_flop_per_s=1e15, eigh_latency_s=1e-4), sizes, 64, SETTINGS)
    assert latency["jorge_update_faster_at"] == [16, 64]  # 8 d^3 / 1e12 s < 1e-4 s up to d ~ 232
    assert latency["jorge_update_faster_from"] is None


def test_break_even_frequency_equalises_shampoo_and_jorge():
    count = cost_model.benchmark_layer(512, 256, input_grad=True)
    machine = _machine()
    projected = cost_model.project_model(machine, count, SETTINGS)
    break_even = projected["shampoo_break_even_frequency"]
    assert break_even is not None and break_even > 1
    at_break_even = SETTINGS | {"shampoo": {"precondition_frequency": break_even, "max_precond_dim": 4096}}
    times = cost_model.project_model(machine, count, at_break_even)["iteration_s"]
    assert times["shampoo"] == pytest.approx(times["jorge"], rel=1e-9)
    assert projected["ratios"]["jorge_over_shampoo"] < 1  # Shampoo updating every step costs more here
    assert math.isclose(projected["ratios"]["jorge_over_sgd"] * projected["iteration_s"]["sgd"],
                        projected["iteration_s"]["jorge"])  # fmt: skip


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: cost_model.ProjectionModelConfig(name="x", arch="vit", batch_size=1), "arch"),
        (lambda: cost_model.ProjectionModelConfig(name="x", arch="resnet50", batch_size=0), "batch_size"),
        (lambda: cost_model.GPUAssumedConfig(matmul_flop_per_s=0), "matmul_flop_per_s"),
        (lambda: cost_model.ProjectionConfig(models={}), "models"),
        (lambda: step_cost.cost_settings({"jorge": {"decay": 0.9}}), "jorge"),
        (lambda: step_cost.cost_settings({"lion": {}}), "lion"),
        (lambda: step_cost.StepCostConfig(sizes=[8], batch_size=0), "batch_size"),
    ],
)
def test_bad_projection_config_names_the_field(build, field):
    with pytest.raises(ValueError, match=field):
        build()
