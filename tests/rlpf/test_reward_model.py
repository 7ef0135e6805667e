"""The feature reward model and the hand ranker: features of real kernels' completions, pairwise ranking."""

import pytest

from workflow_scripts.rlpf.candidates import candidate_completions
from workflow_scripts.rlpf.reward_model import (
    feature_ranker_accuracy,
    fit_feature_ranker,
    hand_ranker_accuracy,
    hand_score,
    pragma_features,
)
from workflow_scripts.rlpf.tasks import TaskConfig, build_tasks

KERNELS = ["dense_la_axpy", "reduce_sum_of_min_pairs", "reduce_xor", "reduce_product_of_inverses",
           "graph_edge_count", "transform_squaring", "transform_inverse_offset", "graph_highest_degree"]


@pytest.fixture(scope="module")
def tasks():
    return build_tasks(TaskConfig(kernels=KERNELS, held_out_kernels=3, task_sets=["omp", "serial"]), seed=5)


def _task(tasks, task_id):
    return next(t for t in tasks if t.task_id == task_id)


def test_pragma_features_see_missing_and_right_reductions(tasks):
    task = _task(tasks, "omp/reduce_sum_of_min_pairs")
    right = pragma_features(task, "#pragma omp parallel for reduction(+:acc)")
    race = pragma_features(task, "#pragma omp parallel for")
    assert right["reduction_ok"] == 1 and right["missing_reduction"] == 0 and right["parallel"] == 1
    assert race["missing_reduction"] == 1 and race["reduction_ok"] == 0
    assert pragma_features(task, "no pragma here")["malformed"] == 1
    simd = pragma_features(_task(tasks, "serial/reduce_sum_of_min_pairs"), "#pragma omp simd reduction(+:acc)")
    assert simd["simd_reduction"] == 1 and simd["reduction_ok"] == 1


def test_hand_ranker_orders_the_textbook_choices(tasks):
    task = _task(tasks, "omp/reduce_sum_of_min_pairs")
    order = ["junk", "#pragma omp parallel for", "#pragma omp parallel for reduction(+:acc) schedule(dynamic,1)",
             "serial", "#pragma omp parallel for reduction(+:acc)"]
    scores = [hand_score(task, c) for c in order]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)


def _pairs(tasks, split):
    """Pairs labelled by a hidden rule the features can express: parallel loops with divisions are fast,
    schedule(dynamic,1) is slow, and a missing reduction is wrong."""
    def reward(task, c):
        f = pragma_features(task, c)
        return 2.0 * f["parallel"] * ("/" in task.body) - f["dynamic"] - 3.0 * f["missing_reduction"]

    pairs = []
    for task in (t for t in tasks if t.split == split):
        ranked = sorted(candidate_completions(task, 8), key=lambda c: -reward(task, c))
        pairs += [{"task_id": task.task_id, "prompt": task.prompt, "chosen": a, "rejected": b}
                  for i, a in enumerate(ranked) for b in ranked[i + 1:] if reward(task, a) > reward(task, b)]
    return pairs


def test_feature_ranker_learns_a_rule_and_transfers_to_held_out_kernels(tasks):
    by_id = {t.task_id: t for t in tasks}
    train, test = _pairs(tasks, "train"), _pairs(tasks, "held_out")
    assert train and test
    ranker = fit_feature_ranker(by_id, train, seed=0)
    assert feature_ranker_accuracy(ranker, by_id, train) > 0.9
    assert feature_ranker_accuracy(ranker, by_id, test) > 0.8  # unseen kernels, same kind of rule
    # The ranker is symmetric: swapping chosen and rejected flips its accuracy.
    swapped = [p | {"chosen": p["rejected"], "rejected": p["chosen"]} for p in test]
    assert feature_ranker_accuracy(ranker, by_id, swapped) == pytest.approx(
        1.0 - feature_ranker_accuracy(ranker, by_id, test))
    assert 0.0 <= hand_ranker_accuracy(by_id, test) <= 1.0
