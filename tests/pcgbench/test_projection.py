"""The paper-scale projection's arithmetic (workflow_scripts/pcgbench/projection.py) on made-up costs: what a sample
costs by how it ends, the per-shard sums, the fit check, the suggested shard size, and how measured costs at the
timed size become costs at the paper's size. Nothing is timed here."""

import math

import pytest

from workflow_scripts.pcgbench import projection as pj
from workflow_scripts.pcgbench import shards

LIMITS = pj.Limits(run_timeout_s=600, timeout_floor_s=5, timeout_factor=2, build_threads=2)
# A passing sample: build 4 s, race-check build 2 s, race check 1 s, three runs (limits 20, 40, 60 s).
COST = pj.SampleCost(build_s=4, runs_s=(10, 20, 30), race_checked=True, race_build_s=2, race_check_s=1)


@pytest.mark.parametrize("outcome,reference,expected", [
    (pj.OK, False, (2, 1 + 1 + 60)),           # builds two at a time; the race check; every run within its limit
    (pj.OK, True, (2, 1 + 1 + 60)),            # the reference's own runs: limited by run_timeout_s
    (pj.TIMEOUT, False, (2, 1 + 600 + 20)),    # the race check's limit (run_timeout_s), then the first run's
    (pj.FIRST_RUN, False, (2, 1 + 1 + 10)),    # a wrong answer ends the sweep after its first run
    (pj.RACE, False, (2, 1 + 1)),              # race_detected: nothing timed
    (pj.BUILD_ONLY, False, (2, 0)),            # build_error, no_parallelism, tampering
    (pj.CHECK, False, (2, 60)),                # the suite's reference check: no race check
])  # fmt: skip
def test_a_sample_costs_its_build_share_race_check_and_runs_by_how_it_ends(outcome, reference, expected):
    assert pj.sample_seconds(COST, outcome, LIMITS, reference=reference) == pytest.approx(expected)


def test_a_run_past_its_limit_costs_the_limit_and_ends_the_sweep():
    # The reference's first run (700 s) passes run_timeout_s: it failed, so a sample's limit there is run_timeout_s.
    slow = pj.SampleCost(build_s=0, runs_s=(700, 10))
    assert LIMITS.run_limits(slow.runs_s, reference=False) == (600, 20)
    assert pj.sample_seconds(slow, pj.OK, LIMITS) == (0, 600)
    # Under run_timeout_s, a sample's limit is max(floor, factor x reference): 2 x 1 s < the floor of 5 s.
    assert LIMITS.run_limits((1.0, 100.0), reference=False) == (5, 200)
    with pytest.raises(ValueError, match="unknown outcome"):
        pj.sample_seconds(COST, "mystery", LIMITS)


def costs_of(problems, exec_models, per_problem_s):
    return {(p, m): pj.SampleCost(build_s=2, runs_s=(per_problem_s[p],)) for p in problems for m in exec_models}


def test_each_shard_sums_its_problems_samples_and_gpu_models_get_gpu_nodes():
    problems, exec_models = ["a", "b", "c"], ["serial", "cuda"]
    plan = shards.plan(exec_models, problems, by_model=True, problems_per_shard=2)
    costs = costs_of(problems, exec_models, {"a": 10, "b": 20, "c": 40})
    tasks = {(p, m): 1 for p in problems for m in exec_models}
    populations = {("lm", pj.GENERATION): pj.language_model_population(tasks, samples=4, timeout_fraction=0.25)}
    jobs = {job.shard: job for job in pj.project_jobs(plan, populations, costs, LIMITS, gpu_exec_models=["cuda"])}
    assert sorted(jobs) == ["cuda.0", "cuda.1", "serial.0", "serial.1"]
    # serial.0 holds a and b: 4 samples each, 3 passing (their run) and 1 timing out (limit max(5, 2 x run)).
    assert jobs["serial.0"].programs == 8
    assert jobs["serial.0"].build_s == pytest.approx(8 * 2 / 2)
    assert jobs["serial.0"].evaluate_s == pytest.approx(3 * 10 + 20 + 3 * 20 + 40)
    assert jobs["serial.1"].evaluate_s == pytest.approx(3 * 40 + 80)
    assert jobs["serial.0"].longest_job_s == jobs["serial.0"].evaluate_s
    assert (jobs["cuda.1"].kind, jobs["serial.1"].kind) == ("gpu", "cpu")


def test_the_fit_check_and_the_largest_shard_size_that_fits():
    problems, exec_models = ["a", "b", "c", "d"], ["serial"]
    costs = costs_of(problems, exec_models, {p: 10 for p in problems})
    populations = {("lm", pj.GENERATION): pj.language_model_population({(p, "serial"): 1 for p in problems},
                                                                       samples=1, timeout_fraction=0.0)}  # fmt: skip
    runtime = {"cpu": 25.0, "gpu": 25.0}  # two problems (20 s of runs) fit, three (30 s) do not
    plan = shards.plan(exec_models, problems, by_model=True, problems_per_shard=3)
    jobs = pj.project_jobs(plan, populations, costs, LIMITS, gpu_exec_models=[])
    assert [pj.fits(j, runtime["cpu"]) for j in jobs] == [False, True]
    assert pj.largest_fitting_shard_size(exec_models, problems, populations, costs, LIMITS, gpu_exec_models=[],
                                         runtime_s=runtime) == 2  # fmt: skip
    assert pj.largest_fitting_shard_size(exec_models, problems, populations, costs, LIMITS, gpu_exec_models=[],
                                         runtime_s={"cpu": 5.0, "gpu": 5.0}) is None  # fmt: skip
    # The reference check is one job: its build and runs together must fit.
    check = pj.Job(generator="reference_check", task=pj.REFERENCE_CHECK, shard="serial.0", kind="cpu",
                   exec_models=("serial",), build_s=10, evaluate_s=20, programs=1)  # fmt: skip
    assert not pj.fits(check, 25.0) and pj.fits(check, 30.0)


def test_populations_count_distinct_programs_and_time_outs():
    lm = pj.language_model_population({("a", "omp"): 2}, samples=20, timeout_fraction=0.05)
    assert lm == {("a", "omp"): [(pj.OK, pytest.approx(38)), (pj.TIMEOUT, pytest.approx(2))]}
    expected = [{"problem": "a", "model": "omp", "expected_verdict": v}
                for v in ("ok", "ok", "timeout", "build_error", "race_detected")]  # fmt: skip
    bodies = ["ref", "ref", "loop", "regex", "race"]  # two identical reference bodies: one program
    assert pj.self_test_population(expected, bodies) == {
        ("a", "omp"): [(pj.BUILD_ONLY, 1.0), (pj.OK, 1.0), (pj.RACE, 1.0), (pj.TIMEOUT, 1.0)]}
    with pytest.raises(ValueError, match="timeout_fraction"):
        pj.language_model_population({}, samples=1, timeout_fraction=1.5)


def test_makespan_is_longest_first_onto_the_least_loaded_node():
    assert pj.makespan_s([5, 4, 3, 3, 3], 2) == 10  # LPT; the best is 9 (5+4 | 3+3+3)
    assert pj.makespan_s([5, 4, 3], 5) == 5
    with pytest.raises(ValueError, match="nodes"):
        pj.makespan_s([1], 0)


def test_exponents_and_the_extrapolation_by_parts_and_configuration_time():
    assert pj.exponent(1.0, 8.0, 2.0) == pytest.approx(3)
    assert pj.exponent(1.0, 1.0, 2.0) == pj.MIN_EXPONENT and pj.exponent(1.0, 0.0, 2.0) == pj.MIN_EXPONENT
    assert pj.exponent(1.0, 1e6, 2.0) == pj.MAX_EXPONENT and pj.exponent(0.0, 1.0, 2.0) == pj.MAX_EXPONENT
    # 2 calls each: sample and baseline calls 0.1 s in all, cubic; the rest 0.8 s, shallower than linear: linear.
    large = {"wall_s": 1.0, "sample_s": 0.05, "baseline_s": 0.05}
    small = {"wall_s": 0.45, "sample_s": 0.05 / 8, "baseline_s": 0.05 / 8}
    seconds, exponents = pj.extrapolate_run(large, small, size_ratio=2.0, paper_ratio=4.0, calls=2)
    assert exponents == pytest.approx({"sample": 3.0, "baseline": 3.0, "rest": 1.0})
    assert seconds == pytest.approx(0.1 * 64 + 0.1 * 64 + 0.8 * 4)
    assert pj.config_seconds(10, 1, 4, calls=7, efficiency=0) == 10  # upper bound: the 1-resource run
    assert pj.config_seconds(10, 1, 4, calls=7, efficiency=0.5) == pytest.approx(10 - 7 * (1 - 1 / 2))
    assert pj.config_seconds(10, 1, 2, calls=7, efficiency=0.5) == 10  # n x efficiency <= 1: no gain


def test_paper_costs_from_measurements_at_the_timed_size():
    scan = {
        # measured at the paper size: 10 s where 5 s were predicted -> extrapolations are calibrated x 2
        "a": {"wall_timed_s": 1.0, "sample_timed_s": 0.1, "scale": 10.0, "method": pj.PAPER_MEASURED,
              "wall_paper_s": 10.0, "predicted_paper_s": 5.0},
        "b": {"wall_timed_s": 2.0, "sample_timed_s": 0.2, "scale": 4.0, "method": "timed x 16^0.5",
              "wall_paper_s": 8.0, "predicted_paper_s": 8.0},
    }  # fmt: skip
    serial = {q: {"build_s": 1.0, "wall_1_s": s["wall_timed_s"], "sample_1_s": s["sample_timed_s"]} for q, s in scan.items()}
    # omp, measured on a: its call as the serial one's, 0.5 s more per run (fixed), stress validations of 8 calls
    omp = {"a": {"build_s": 0.5, "race_build_s": 1.0, "race_check_s": 0.3, "wall_1_s": 1.5, "sample_1_s": 0.1,
                 "stress_s": 0.8}}  # fmt: skip
    measured = {"scan": scan, "models": {"serial": serial, "omp": omp}, "gpu_builds": {"cuda": {"a": 5.0}}}
    types = {"a": "reduce", "b": "sort"}
    costs = pj.paper_costs(measured, types, ["serial", "omp", "mpi", "hip"], max_cores=4, calls_per_config=7)
    assert pj.extrapolation_calibration(scan) == 2.0
    assert costs[("b", "serial")].runs_s == pytest.approx((2.0 * 4.0 * 2.0,))
    # omp on b at 4 cores: one run of threads 1, 2, 4, each the 1-thread time 2 x 8 + 0.5, and 8 calls of 0.2 x 8
    b_omp = costs[("b", "omp")]
    assert b_omp.runs_s == pytest.approx((3 * 16.5 + 8 * 1.6,))
    assert (b_omp.build_s, b_omp.race_build_s, b_omp.race_check_s, b_omp.race_checked) == (0.5, 1.0, 0.3, True)
    # mpi, measured nowhere, takes the serial numbers: ranks 1, 2, 4 in three runs, no launch cost measured
    assert costs[("a", "mpi")].runs_s == pytest.approx((10.0, 10.0, 10.0))
    # hip: CUDA's build; its run an assumption (the serial run at the paper size), flagged as not measured
    assert costs[("b", "hip")].build_s == 5.0 and costs[("b", "hip")].runs_s == pytest.approx((16.0,))
    assert not costs[("b", "hip")].runs_measured
    assert pj.config_seconds(16.5, 1.6, 4, calls=7, efficiency=1.0) < 16.5


def scan_entry(n_paper, timed, second, exponents, **extra):
    """A serial scan entry measured at 100 and 200 (`timed`, `second`: (wall, sample call, baseline call) s)."""
    return {"n_timed": 100, "n_second": 200, "n_paper": n_paper, "wall_timed_s": timed[0], "sample_timed_s": timed[1],
            "baseline_timed_s": timed[2], "wall_second_s": second[0], "sample_second_s": second[1],
            "baseline_second_s": second[2], "exponents": exponents, "predicted_paper_s": 1.0, "wall_paper_s": 1.0,
            "scale": 1.0, "method": "from 200", **extra}  # fmt: skip


@pytest.mark.parametrize("n_paper,expected_s", [
    (400, 2 * 1.6 * 8 + 1.2 * 2),     # above both: from 200, calls cubic, the rest linear
    (50, 2 * 0.2 / 8 + 0.6 / 2),      # below both: from 100
    (150, 2 * 0.2 * 1.5**3 + 0.6 * 1.5),  # between: the exponents join the two runs, either gives it
])  # fmt: skip
def test_a_stored_scan_is_extrapolated_again_to_a_changed_paper_size(n_paper, expected_s):
    # 2 calls each: at 100 the sample's and baseline's calls 0.2 s each and the rest 0.6 s; at 200 8x and 2x that.
    cubic = scan_entry(1600, (1.0, 0.1, 0.1), (4.4, 0.8, 0.8), {"sample": 3.0, "baseline": 3.0, "rest": 1.0})
    entry = pj.rescale_scan({"a": cubic}, {"a": n_paper}, calls=2)["a"]
    assert entry["n_paper"] == n_paper and entry["old_paper"]["n_paper"] == 1600
    assert entry["wall_paper_s"] == entry["predicted_paper_s"] == pytest.approx(expected_s)
    assert entry["scale"] == pytest.approx(expected_s / 1.0)
    assert entry["exponent"] == pytest.approx(math.log(expected_s) / math.log(n_paper / 100))


def test_rescaling_starts_from_the_nearer_run_and_leaves_unchanged_sizes_alone():
    # The rest grew 0.6 -> 0.9 s (n^0.58, clamped to n^1): the runs at 100 and 200 do not join; 110 is reached from 100.
    flat = scan_entry(1600, (0.6, 0.0, 0.0), (0.9, 0.0, 0.0), {"sample": 1.0, "baseline": 1.0, "rest": 1.0})
    measured = scan_entry(1600, (1.0, 0.1, 0.1), (2.0, 0.2, 0.2), {"sample": 1.0, "baseline": 1.0, "rest": 1.0},
                          method=pj.PAPER_MEASURED, wall_paper_s=20.0, predicted_paper_s=10.0, scale=20.0)  # fmt: skip
    scan = {"flat": flat, "measured": measured, "other": dict(measured)}
    assert pj.extrapolation_calibration(scan) == 2.0
    rescaled = pj.rescale_scan(scan, {"flat": 110, "measured": 1600}, calls=2)
    assert rescaled["flat"]["wall_paper_s"] == pytest.approx(0.6 * 1.1)
    assert rescaled["flat"]["method"].startswith("rescaled from 100")
    assert rescaled["measured"] is measured and rescaled["other"] is scan["other"]  # same size, or not named: as is
    # A run measured at the old paper size no longer calibrates anything once its size changes.
    moved = pj.rescale_scan(scan, {"measured": 800, "other": 800}, calls=2)
    assert moved["measured"]["old_paper"] == {"n_paper": 1600, "wall_paper_s": 20.0, "method": pj.PAPER_MEASURED}
    assert pj.extrapolation_calibration(moved) == 1.0
