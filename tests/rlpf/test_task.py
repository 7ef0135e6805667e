"""The loop-parallelisation task: loops found, pragmas inserted, completions parsed, the split kept."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from workflow_scripts.common.c_scanner import top_level_loops
from workflow_scripts.rlpf.candidates import candidate_completions, reduction_clauses
from workflow_scripts.rlpf.program_body import apply_pragmas, parse_completion
from workflow_scripts.rlpf.reward_model import pairs_for
from workflow_scripts.rlpf.tasks import TaskConfig, build_tasks, split_kernels, strip_comments, training_tasks
from workflow_scripts.rlpf.train import dpo_rows, sft_rows

KERNELS = ["dense_la_gemv", "reduce_sum_of_min_pairs", "reduce_xor", "scan_prefix_sum", "graph_highest_degree",
           "transform_squaring"]


@pytest.fixture(scope="module")
def tasks():
    # With renamed variants: every check of the split below holds for them too.
    cfg = TaskConfig(kernels=KERNELS, held_out_kernels=2, task_sets=["omp", "serial"], renamings=1)
    return build_tasks(cfg, seed=7)


def test_top_level_loops_skip_nested_and_trailing_code():
    body = ("  int s = 0;\n  for (int i = 0; i < n; ++i)\n    for (int j = 0; j < n; ++j) s += a[i][j];\n"
            "  if (s) for (int k = 0; k < 3; ++k) s++;\n  for (int k = 0; k < n; ++k) {\n    b[k] = s;\n  }\n"
            "  return s;\n}\n")
    loops = top_level_loops(body)
    assert len(loops) == 2  # the nest counts once; the `if (...) for` does not start its own line
    assert body[loops[0][0]:loops[0][1]].count("for") == 2
    assert body[loops[1][0]:].lstrip().startswith("for (int k = 0; k < n; ++k) {")


def test_a_loop_whose_body_is_an_unbraced_if_ends_with_that_if():
    """The kernel of search_xor_contains: `for (...) if (...) { ...; }` twice. Its first loop used to run on to the
    next `;` outside brackets, swallowing the second loop (one top-level loop instead of two)."""
    from workflow_scripts.measure import suite

    body = strip_comments(suite.reference_body(suite.get_problem("search_xor_contains"), "serial"))
    loops = top_level_loops(body)
    assert len(loops) == 2
    assert [body[a:b].strip().splitlines()[-1].strip() for a, b in loops] == ["if (v == val) { in_x = true; break; }",
                                                                              "if (v == val) { in_y = true; break; }"]


def test_task_list_command_shows_its_usage():
    """The module docstring's `python -m workflow_scripts.rlpf.tasks OUT.json` command runs (here: its --help)."""
    done = subprocess.run([sys.executable, "-m", "workflow_scripts.rlpf.tasks", "--help"], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert done.returncode == 0 and "--tokenizer" in done.stdout


def test_apply_pragmas_inserts_before_each_loop_with_its_indentation():
    body = "  double a = 0.0;\n  for (int i = 0; i < n; ++i) a += x[i];\n  for (int i = 0; i < n; ++i) y[i] = a;\n}\n"
    out = apply_pragmas(body, ["#pragma omp parallel for reduction(+:a)", ""])
    assert out == ("  double a = 0.0;\n  #pragma omp parallel for reduction(+:a)\n  for (int i = 0; i < n; ++i) a += x[i];"
                   "\n  for (int i = 0; i < n; ++i) y[i] = a;\n}\n")
    assert apply_pragmas(body, ["", ""]) == body
    with pytest.raises(ValueError, match="2 top-level loops"):
        apply_pragmas(body, [""])


@pytest.mark.parametrize(("completion", "task_set", "expected"), [
    ("#pragma omp parallel for\n", "omp", ["#pragma omp parallel for", ""]),
    ("serial\n#pragma omp parallel for schedule(dynamic,1)\njunk after the last loop", "omp",
     ["", "#pragma omp parallel for schedule(dynamic,1)"]),
    ("#pragma omp parallel for reduction(+:acc) schedule(static)", "omp",
     ["#pragma omp parallel for reduction(+:acc) schedule(static)", ""]),
    ("int main() { return 0; }", "omp", None),
    ("#pragma omp parallel for; system(\"x\")", "omp", None),
    ("", "omp", None),
    ("#pragma GCC unroll 4\n#pragma GCC ivdep", "serial", ["#pragma GCC unroll 4", "#pragma GCC ivdep"]),
    ("#pragma omp parallel for", "serial", None),
])
def test_parse_completion(completion, task_set, expected):
    assert parse_completion(completion, 2, task_set) == expected


@pytest.mark.parametrize(("kernel", "clauses"), [
    ("reduce_sum_of_min_pairs", ["reduction(+:acc)"]),
    ("reduce_xor", ["reduction(+:count)"]),  # ParEval's logical XOR: the parity of the count of true values
    ("graph_highest_degree", ["reduction(max:best)"]),
    ("dense_la_gemv", []),  # its accumulator is declared inside the loop: private already
])
def test_reduction_clauses(kernel, clauses):
    from workflow_scripts.measure import suite

    body = strip_comments(suite.reference_body(suite.get_problem(kernel), "serial"))
    assert reduction_clauses(body, top_level_loops(body)[0]) == clauses


def test_candidates_include_serial_race_and_slow_schedule(tasks):
    task = next(t for t in tasks if t.task_id == "omp/reduce_sum_of_min_pairs")
    cands = candidate_completions(task, 10)
    assert cands[0] == "serial\n"
    assert "#pragma omp parallel for\n" in cands  # the race the validator must catch
    assert "#pragma omp parallel for reduction(+:acc) schedule(dynamic,1)\n" in cands
    assert all(parse_completion(c, task.n_loops, "omp") is not None for c in cands)


def test_split_is_seeded_by_kernel_and_disjoint(tasks):
    split = split_kernels(KERNELS, 2, seed=7)
    assert split == split_kernels(list(reversed(KERNELS)), 2, seed=7)  # order of the list does not matter
    assert sum(v == "held_out" for v in split.values()) == 2
    for t in tasks:  # both task sets of a kernel fall on the same side
        assert t.split == split[t.kernel]
    held = {t.kernel for t in tasks if t.split == "held_out"}
    assert held and held.isdisjoint({t.kernel for t in training_tasks(tasks)})


def test_held_out_kernels_never_reach_training_data(tasks):
    # Candidates measured for every task, held-out ones included, as a careless caller might pass them.
    rows = [{"task_id": t.task_id, "completion": c, "verdict": "ok", "reward": 0.1 * i}
            for t in tasks for i, c in enumerate(candidate_completions(t, 4))]
    candidates = pd.DataFrame(rows)
    held_prompts = {t.prompt for t in tasks if t.split == "held_out"}
    held_ids = {t.task_id for t in tasks if t.split == "held_out"}
    sft, dpo = sft_rows(tasks, candidates), dpo_rows(tasks, candidates, 0.05)
    assert sft and dpo
    for row in sft + dpo:
        assert row["task_id"] not in held_ids and row["prompt"] not in held_prompts
    assert {t.task_id for t in training_tasks(tasks)}.isdisjoint(held_ids)
    held_kernels = {t.kernel for t in tasks if t.split == "held_out"}
    assert any(t.origin for t in training_tasks(tasks))  # renamed variants are training tasks...
    assert not any(t.origin for t in tasks if t.kernel in held_kernels)  # ...of training kernels only


def test_config_errors_name_the_field():
    with pytest.raises(ValueError, match="held_out"):
        TaskConfig(kernels=KERNELS, held_out_kernels=len(KERNELS), task_sets=["omp"])
    with pytest.raises(ValueError, match="task_sets"):
        TaskConfig(kernels=KERNELS, held_out_kernels=1, task_sets=["cuda"])


def test_reward_model_pairs_come_from_one_split(tasks):
    rows = [{"task_id": t.task_id, "completion": c, "verdict": "ok", "reward": 0.1 * i}
            for t in tasks for i, c in enumerate(candidate_completions(t, 3))]
    candidates = pd.DataFrame(rows)
    held_ids = {t.task_id for t in tasks if t.split == "held_out"}
    train_pairs = pairs_for(tasks, candidates, "train", 0.05)
    test_pairs = pairs_for(tasks, candidates, "held_out", 0.05)
    assert train_pairs and test_pairs
    assert {p["task_id"] for p in test_pairs} <= held_ids
    assert held_ids.isdisjoint(p["task_id"] for p in train_pairs)
    assert all(p["chosen"] != p["rejected"] for p in train_pairs + test_pairs)
