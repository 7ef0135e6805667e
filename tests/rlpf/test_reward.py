"""The measured reward: graded verdicts from real builds and sandboxed runs, caching, constant groups."""

import hashlib
import json
import math

import pytest

from workflow_scripts.measure import (
    BUILD_ERROR,
    OK,
    PROTOCOL,
    RACE_DETECTED,
    WRONG_ANSWER,
    MeasureConfig,
    suite,
    toolchains,
)
from workflow_scripts.rlpf.candidates import candidate_completions
from workflow_scripts.rlpf.reward import (
    MALFORMED,
    Measurement,
    Measurer,
    PerformanceReward,
    RewardConfig,
    constant_groups,
    grade,
)
from workflow_scripts.rlpf.tasks import TaskConfig, build_tasks

# The reward's settings where they differ from the section measure's defaults (the tiny config's
# rlpf.reward.measure, with fewer repetitions): more validations, shorter limits.
RLPF_HARNESS = {"reps": 3, "validations": 3, "run_timeout_s": 20, "cpu_limit_s": 60}


def reward_config(cache_dir, **harness) -> RewardConfig:
    """A reward measuring with RLPF_HARNESS, `harness` keys changed."""
    return RewardConfig(cache_dir=cache_dir, measure=MeasureConfig(**RLPF_HARNESS | harness))


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """One real batch through the harness: malformed, build failure, wrong clause, correct parallel, baseline."""
    tasks = build_tasks(TaskConfig(kernels=["reduce_sum_of_min_pairs", "reduce_xor"], held_out_kernels=1,
                                   task_sets=["omp"]), seed=1)
    task = next(t for t in tasks if t.kernel == "reduce_sum_of_min_pairs")
    measurer = Measurer(reward_config(tmp_path_factory.mktemp("cache"), run_timeout_s=30))
    completions = {
        "malformed": "for (;;) {}",
        "build_error": "#pragma omp parallel for reduction(+:no_such_variable)",
        # A wrong clause: each thread sums into an uninitialised private copy and the result is never combined.
        "wrong": "#pragma omp parallel for private(acc)",
        # A missing reduction: a race on acc, which the completion's ThreadSanitizer build reports (race check).
        "race": "#pragma omp parallel for",
        "correct": "#pragma omp parallel for reduction(+:acc)",
        # One scheduling decision per iteration over 4M iterations: correct, and measured tens of times slower.
        "slow": "#pragma omp parallel for reduction(+:acc) schedule(dynamic,1)",
        "baseline": "serial",
    }
    results = dict(zip(completions, measurer.measure([(task, c) for c in completions.values()]), strict=True))
    return measurer, task, completions, results


def test_verdicts_of_real_programs(measured):
    _, _, _, r = measured
    assert r["malformed"].verdict == MALFORMED
    assert r["build_error"].verdict == BUILD_ERROR and "no_such_variable" in r["build_error"].detail
    assert r["wrong"].verdict == WRONG_ANSWER  # caught by validation
    assert 0 < len(r["wrong"].detail) <= 400  # what the driver reported, trimmed
    assert r["race"].verdict == RACE_DETECTED, r["race"]
    assert "ThreadSanitizer: data race" in r["race"].detail and "acc" not in r["correct"].detail
    assert r["correct"].verdict == OK and r["correct"].speedup > 0 and r["correct"].time_s > 0
    assert r["baseline"].verdict == OK and r["baseline"].speedup == 1.0
    assert r["slow"].verdict == OK and r["slow"].speedup < 0.8  # a slow choice is measured slow


def test_a_race_on_a_search_index_is_caught(tmp_path):
    """A missing reduction in search_closest_to_pi passed validation 4 times in 4 under the old run protocol
    (one validation, threads waiting passively, normal priority) and became an SFT target, and the stress
    validations still let it pass on a loaded machine; the race check reports it whatever the load. Without the
    race check, validation alone judges it (wrong_answer, or ok when the load serialised its threads)."""
    task = next(t for t in build_tasks(TaskConfig(kernels=["search_closest_to_pi", "reduce_xor"],
                                                  held_out_kernels=1, task_sets=["omp"]), seed=1)
                if t.kernel == "search_closest_to_pi")  # fmt: skip
    measurer = Measurer(reward_config(tmp_path, run_timeout_s=30))
    race, correct = measurer.measure([(task, "#pragma omp parallel for"), (task, "serial")])
    assert race.verdict == RACE_DETECTED, race
    assert correct.verdict == OK
    # Chunks of 4096 or 65536 iterations: at the small size (1001) one thread did all the work and the race check
    # saw nothing (these scored 0.45-0.96, ok in 26 of 27 evaluations); at the timed size every thread works.
    chunked = measurer.measure([(task, "#pragma omp parallel for schedule(dynamic,65536)"),
                                (task, "#pragma omp parallel for schedule(dynamic,4096)")])  # fmt: skip
    assert [m.verdict for m in chunked] == [RACE_DETECTED] * 2, chunked
    unchecked = Measurer(reward_config(tmp_path, run_timeout_s=30, race_check=False))
    assert unchecked.program_key(task, "x", "c") != measurer.program_key(task, "x", "c")  # not each other's cache
    [race] = unchecked.measure([(task, "#pragma omp parallel for")])
    assert race.verdict in (WRONG_ANSWER, OK)


def test_rewards_are_graded_build_lt_wrong_lt_correct(measured):
    measurer, _, _, r = measured
    g = {name: grade(m, measurer.cfg) for name, m in r.items()}
    assert g["malformed"] == g["build_error"] == -1.0
    assert g["wrong"] == -0.6
    assert g["build_error"] < g["wrong"] < g["correct"]
    assert g["baseline"] == 0.0
    assert g["wrong"] < g["slow"] < g["baseline"]  # slow but correct: below the baseline, above any wrong program


def test_cache_by_content_measures_each_program_once(measured):
    """A failure is kept for good; a pass is measured again each time it comes back until it has passed
    CONFIRMATIONS runs (a racy program passes some runs), then reused."""
    from workflow_scripts.rlpf.reward import CONFIRMATIONS

    measurer, task, completions, r = measured
    assert r["correct"].passes == 1 and CONFIRMATIONS == 3
    before = measurer.n_measured
    again = measurer.measure([(task, completions["correct"]), (task, completions["correct"] + "\n\n")])
    assert measurer.n_measured == before + 1  # the same program (trailing blank lines do not change it), run once
    assert again[0] == again[1] and again[0].verdict == OK and again[0].passes == 2
    third = measurer.measure([(task, completions["correct"])])[0]
    assert third.passes == 3 and measurer.n_measured == before + 2
    assert measurer.measure([(task, completions["correct"])])[0] == third and measurer.n_measured == before + 2
    fresh = Measurer(measurer.cfg)  # another process reading the same cache directory
    assert fresh.measure([(task, completions["wrong"])])[0] == r["wrong"] and fresh.n_measured == 0
    assert fresh.measure([(task, completions["correct"])])[0] == third and fresh.n_measured == 0


def _ok(speedup):
    return Measurement(key="k", task_id="t", verdict=OK, speedup=speedup, time_s=1.0, baseline_time_s=1.0,
                       spread=0.0, detail="")


@pytest.mark.parametrize(("slow", "fast"), [(0.05, 0.5), (0.5, 0.99), (0.99, 1.0), (1.0, 1.3), (1.3, 4.0)])
def test_slower_correct_programs_score_lower(slow, fast):
    cfg = reward_config("unused")
    assert grade(_ok(slow), cfg) < grade(_ok(fast), cfg)
    assert grade(_ok(slow), cfg) > cfg.wrong_reward  # any correct program beats any wrong one
    assert grade(_ok(2.0), cfg) == pytest.approx(math.log(2.0))


def test_program_key_hashes_the_protocol_as_the_caches_were_written(tmp_path):
    """The key is the run protocol's fields in their historical order and form, so existing caches stay valid for
    a protocol without stress validations; with them (the default) it adds them, so that a cache written without
    them (which may hold racy programs measured ok), or with them before the timing, is not reused; so does the race
    check, where it runs (OpenMP tasks, on by default)."""
    from workflow_scripts.measure import placement_env

    tasks = build_tasks(TaskConfig(kernels=["transform_squaring", "reduce_xor"], held_out_kernels=1,
                                   task_sets=["omp"]), seed=1)  # fmt: skip
    for stress_validations in (0, 4):
        cfg = reward_config(tmp_path, reps=2, seed=7, stress_validations=stress_validations, stress_threads=8)
        harness = cfg.measure
        for task in tasks:
            fields = [harness.warmup, harness.reps, harness.validations, harness.seed, task.threads, harness.run_nice,
                      placement_env(task.exec_model), {}]  # fmt: skip
            if stress_validations:
                fields.append({"stress_validations": 4, "stress_threads": 8, "after_timing": True})
            if task.exec_model in toolchains.RACE_CHECKED_EXEC_MODELS:
                fields.append({"race_check": True})
            fields.append({"protocol": PROTOCOL})  # the measurement protocol's version (measure.run.PROTOCOL)
            protocol = json.dumps(fields)
            for body, program in (("body", "body"), (None, "MALFORMED\0c")):
                text = "\0".join([task.task_set, task.kernel, task.exec_model, protocol, program])
                assert Measurer(cfg).program_key(task, body, "c") == hashlib.sha256(text.encode()).hexdigest()
    assert MeasureConfig().stress_validations > 0  # the default protocol stress-validates


def test_constant_groups_are_detected():
    prompts = ["a", "a", "a", "b", "b", "b", "c"]
    rewards = [0.5, 0.5, 0.5, -1.0, 0.2, 0.2, 0.3]
    assert constant_groups(prompts, rewards) == ["a"]  # "c" has one completion: no group to compare


def test_performance_reward_reports_constant_groups(measured):
    measurer, task, completions, r = measured
    reward = PerformanceReward(measurer, [task])
    prompts = [task.prompt] * 4
    out = reward(prompts, [completions["wrong"]] * 2 + [completions["correct"]] * 2, task_id=[task.task_id] * 4)
    assert out[0] == out[1] == -0.6 and out[2] > -0.5
    assert reward.history[-1]["constant_groups"] == 0
    reward(prompts, [completions["build_error"]] * 4, task_id=[task.task_id] * 4)
    assert reward.history[-1]["constant_groups"] == 1 and reward.history[-1]["groups"] == 1


def test_config_refuses_unordered_grades():
    with pytest.raises(ValueError, match="build_error_reward < wrong_reward < slow_floor_reward"):
        RewardConfig(cache_dir="x", measure=MeasureConfig(), wrong_reward=-0.4, slow_floor_reward=-0.5)


def test_serial_task_set_builds_hints_on_one_thread(tmp_path):
    tasks = build_tasks(TaskConfig(kernels=["reduce_sum_of_min_pairs", "transform_squaring"], held_out_kernels=1,
                                   task_sets=["serial"]), seed=1)
    task = next(t for t in tasks if t.kernel == "reduce_sum_of_min_pairs")
    # Built with OpenMP's simd support (so `omp simd` is not silently dropped), run on one thread.
    assert task.exec_model == "omp" and task.threads == 1
    assert "#pragma omp simd reduction(+:acc)\n" in candidate_completions(task, 6)
    measurer = Measurer(reward_config(tmp_path / "cache", reps=2))
    unroll, simd, omp_line = measurer.measure([(task, "#pragma GCC unroll 4"), (task, "#pragma omp simd reduction(+:acc)"),
                                             (task, "#pragma omp parallel for")])  # fmt: skip
    assert unroll.verdict == OK and unroll.speedup > 0
    assert simd.verdict == OK and simd.speedup > 0
    assert omp_line.verdict == MALFORMED  # a serial task accepts hints only: no thread-level parallelism


def test_function_kind_measures_whole_pcgbench_bodies(tmp_path):
    """The paper config's task kind on one problem: PCGBench prompt in, whole body out, the harness's verdicts."""

    tasks = build_tasks(TaskConfig(kernels=["reduce_sum_of_min_pairs", "transform_squaring"], held_out_kernels=1,
                                   task_sets=["omp"], kind="function"), seed=1)  # fmt: skip
    task = next(t for t in tasks if t.kernel == "reduce_sum_of_min_pairs")
    problem = suite.get_problem(task.kernel)
    assert task.kind == "function" and task.exec_model == "omp" and task.prompt == suite.prompt(problem, "omp")
    cands = candidate_completions(task, 4)
    assert cands[:2] == [suite.reference_body(problem, "omp"), task.body]  # the reference, the serial baseline
    completions = cands[:2] + [
        "  return 0.0;\n}\n",  # builds, wrong answer
        "  return acc\n}\n",  # does not build
        "```cpp\n" + problem.signature("omp") + " {\n" + task.body + "```\n",  # a chat answer: extracted
    ]
    measurer = Measurer(reward_config(tmp_path / "cache", reps=2))
    reference, serial, wrong, broken, chat = measurer.measure([(task, c) for c in completions])
    assert reference.verdict == OK and reference.speedup > 0 and reference.time_s > 0
    assert serial.verdict == OK and serial.speedup == 1.0  # the baseline itself
    assert chat == serial  # the same body, whatever the wrapping
    assert wrong.verdict == WRONG_ANSWER and broken.verdict == BUILD_ERROR
