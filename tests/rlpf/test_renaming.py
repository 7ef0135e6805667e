"""Renamed variants (training data augmentation): locals renamed consistently in the kernel, its prompt and its
completions; the renamed program still compiles and measures as its original; held-out kernels get none."""

import shutil
import subprocess

import pandas as pd
import pytest

from workflow_scripts.common.c_scanner import top_level_loops
from workflow_scripts.measure import OK, MeasureConfig, suite, toolchains
from workflow_scripts.rlpf.candidates import candidate_completions, measure_candidates, reduction_clauses
from workflow_scripts.rlpf.program_body import program_body
from workflow_scripts.rlpf.renaming import local_names, rename_completion, rename_identifiers
from workflow_scripts.rlpf.reward import Measurer, RewardConfig
from workflow_scripts.rlpf.tasks import (
    TaskConfig,
    build_tasks,
    strip_comments,
    task_from_dict,
    task_to_dict,
    training_tasks,
)
from workflow_scripts.rlpf.train import dpo_rows, sft_rows

KERNELS = ["reduce_sum_of_min_pairs", "reduce_xor", "graph_highest_degree", "search_closest_to_pi",
           "dense_la_gemv", "scan_prefix_sum", "transform_squaring"]


@pytest.fixture(scope="module")
def tasks():
    cfg = TaskConfig(kernels=KERNELS, held_out_kernels=2, task_sets=["omp", "serial"], renamings=2)
    return build_tasks(cfg, seed=11)


def test_rename_identifiers_swaps_at_once_and_leaves_members_alone():
    text = "  int i = n; j = i + std::max(i, p->i) + x.size(); size = i;\n"
    assert rename_identifiers(text, {"i": "j", "j": "i", "max": "min", "size": "len"}) == \
        "  int j = n; i = j + std::max(j, p->i) + x.size(); len = j;\n"


def test_local_names_exclude_parameters():
    body = strip_comments(suite.reference_body(suite.get_problem("graph_highest_degree"), "serial"))
    signature = suite.get_problem("graph_highest_degree").signatures["vector"]
    assert local_names(body, signature) == ["best", "row", "degree", "i", "j"]  # A and N are parameters


def test_variants_rename_body_prompt_and_candidates_consistently(tasks):
    by_id = {t.task_id: t for t in tasks}
    variants = [t for t in tasks if t.origin]
    assert len(variants) == 2 * len({t.task_id for t in training_tasks(tasks) if not t.origin})
    for v in variants:
        original = by_id[v.origin]
        renaming = dict(v.renaming)
        assert v.kernel == original.kernel and v.split == "train" and v.task_set == original.task_set
        assert renaming and set(renaming).isdisjoint(renaming.values())  # no new name is an old one
        assert v.body == rename_identifiers(original.body, renaming) != original.body
        assert v.n_loops == original.n_loops == len(top_level_loops(v.body))
        assert v.signature == original.signature and v.signature in v.prompt and v.body in v.prompt
        # The candidates of the variant are the original's with the clauses naming the new locals.
        assert candidate_completions(v, 8) == [rename_completion(v, c) for c in candidate_completions(original, 8)]
        for loop_v, loop_o in zip(top_level_loops(v.body), top_level_loops(original.body), strict=True):
            assert reduction_clauses(v.body, loop_v) == [rename_identifiers(c, renaming)
                                                            for c in reduction_clauses(original.body, loop_o)]
    # Seeded: the same config and seed give the same variants; another seed other names.
    cfg = TaskConfig(kernels=KERNELS, held_out_kernels=2, task_sets=["omp", "serial"], renamings=2)
    again = build_tasks(cfg, 11)
    assert again == tasks
    other = build_tasks(cfg, 12)
    assert [t.renaming for t in other if t.origin] != [t.renaming for t in variants]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_renamed_programs_still_compile(tasks):
    for v in (t for t in tasks if t.origin and t.task_set == "omp"):
        for completion in candidate_completions(v, 4):
            source = suite.sample_source(suite.get_problem(v.kernel), "omp", program_body(v, completion))
            out = subprocess.run(["g++", "-std=c++17", "-fopenmp", f"-I{toolchains.standard_header_dir('omp')}",
                                  "-fsyntax-only", "-x", "c++", "-"], input=source,
                                 text=True, capture_output=True)  # fmt: skip
            assert out.returncode == 0, (v.task_id, completion, out.stderr[-500:])


def test_held_out_kernels_get_no_variant_and_never_reach_training(tasks):
    held_kernels = {t.kernel for t in tasks if t.split == "held_out"}
    assert held_kernels and all(not t.origin for t in tasks if t.kernel in held_kernels)
    held_bodies = {t.body for t in tasks if t.split == "held_out"}
    rows = [{"task_id": t.task_id, "completion": c, "verdict": "ok", "reward": 0.1 * i}
            for t in tasks for i, c in enumerate(candidate_completions(t, 4))]
    sft, dpo = sft_rows(tasks, pd.DataFrame(rows)), dpo_rows(tasks, pd.DataFrame(rows), 0.05)
    by_id = {t.task_id: t for t in tasks}
    assert any(by_id[r["task_id"]].origin for r in sft) and any(by_id[r["task_id"]].origin for r in dpo)
    for row in sft + dpo:
        assert by_id[row["task_id"]].kernel not in held_kernels
        assert not any(body in row["prompt"] for body in held_bodies)


def test_tasks_round_trip_through_json(tasks):
    import json

    assert [task_from_dict(json.loads(json.dumps(task_to_dict(t)))) for t in tasks] == tasks


def test_config_refuses_renaming_whole_functions():
    with pytest.raises(ValueError, match="renamings"):
        TaskConfig(kernels=KERNELS, held_out_kernels=1, task_sets=["omp"], kind="function", renamings=1)


def test_derived_rows_are_renamed_and_a_measured_variant_matches_its_original(tmp_path):
    tasks = build_tasks(TaskConfig(kernels=["reduce_xor", "transform_squaring"], held_out_kernels=1,
                                       task_sets=["omp"], renamings=1), seed=5)  # fmt: skip
    harness = MeasureConfig(reps=3, validations=3, run_timeout_s=30, cpu_limit_s=60)  # as RLPF measures
    measurer = Measurer(RewardConfig(cache_dir=tmp_path / "cache", measure=harness))
    table = measure_candidates(tasks, measurer, max_candidates=2, verify_renamed=1)
    variant = next(t for t in tasks if t.origin)
    own, original = table[table.task_id == variant.task_id], table[table.task_id == variant.origin]
    assert list(own.completion) == [rename_completion(variant, c) for c in original.completion]
    assert (own.variant_of == variant.origin).all() and (original.variant_of == "").all()
    checked = own[~own.derived]
    assert len(checked) == 1  # the variant's best candidate, built and run as written
    was = original.set_index("completion").loc[rename_identifiers(
        checked.completion.iloc[0], {new: old for old, new in variant.renaming})]
    assert checked.verdict.iloc[0] == was.verdict == OK
    assert checked.key.iloc[0] != was.key  # a different program text: measured, not looked up
