"""What a judged sample's processes may do between their calls (drivers/judge.hpp; measure/run.py resource_overuse):
no thread beyond their runtime's and the team a call was given, and no more CPU than preparing the inputs takes.

The bodies that break the bounds on the real path are in the hack catalogue (a thread started through an address found
in memory); here, how the judge's figures are read and judged, at the edges of the bounds.
"""

import json

import pytest

from workflow_scripts.measure.driver_program import parse_driver_results
from workflow_scripts.measure.run import PREPARE_CPU_FACTOR, PREPARE_CPU_SLACK_S, resource_overuse


def result_line(**fields) -> str:
    """A result line as the judge prints it (drivers/main.hpp print_result), unsigned (no nonce), with `fields` set."""
    line = {"problem": "reduce_average", "model": "serial", "ranks": 1, "threads": 1, "seed": 1, "timed_seed": 2,
            "timed_size": 4000000, "valid": True, "failure": "", "validation": [], "times_s": [0.01] * 3,
            "baseline_times_s": [0.01] * 3, "threads_allowed": 1, "cpu_per_wall": 1.0, "baseline_cpu_per_wall": 1.0,
            "prepare_cpu_s": 0.12, "generate_cpu_s": 0.08, "extra_threads": 0}  # fmt: skip
    line.update(fields)
    return "PCGBENCH_RESULT - " + json.dumps(line) + "\n"


def judged(**fields) -> str | None:
    [result] = parse_driver_results(result_line(**fields))
    return resource_overuse(result)


def test_an_honest_runs_figures_pass():
    # The references' worst ratio of prepare CPU to the judge's generation, measured (benchmarks/prepare_cpu.py): ~4.
    assert judged() is None
    assert judged(prepare_cpu_s=4 * 0.3, generate_cpu_s=0.3) is None
    assert judged(prepare_cpu_s=0.0036, generate_cpu_s=0.0003) is None  # tiny inputs: within the slack


@pytest.mark.parametrize("generate_s", [0.0, 0.08, 0.3])
def test_cpu_between_the_calls_beyond_the_bound_is_resource_overuse(generate_s):
    allowed = PREPARE_CPU_FACTOR * generate_s + PREPARE_CPU_SLACK_S
    assert judged(prepare_cpu_s=allowed * 0.99, generate_cpu_s=generate_s) is None
    why = judged(prepare_cpu_s=allowed * 1.01 + 0.001, generate_cpu_s=generate_s)
    assert why is not None and "between its calls" in why and f"{generate_s:.3f} s" in why


def test_a_thread_beyond_the_runtimes_is_resource_overuse():
    why = judged(extra_threads=1)
    assert why is not None and "1 thread(s) beyond its runtime's" in why


def test_gpu_runs_are_not_held_to_the_judges_bounds():
    # threads_allowed 0: a GPU model's run, with its runtime's threads and no judge
    assert judged(threads_allowed=0, extra_threads=3, prepare_cpu_s=99.0) is None


@pytest.mark.parametrize("field", ["prepare_cpu_s", "generate_cpu_s", "extra_threads"])
def test_a_line_without_the_judges_figures_is_malformed(field):
    text = result_line()
    line = json.loads(text[len("PCGBENCH_RESULT - "):])
    del line[field]
    with pytest.raises(ValueError, match="malformed"):
        parse_driver_results("PCGBENCH_RESULT - " + json.dumps(line) + "\n")


def test_infinite_figures_are_malformed():
    with pytest.raises(ValueError, match="malformed"):
        parse_driver_results(result_line().replace('"prepare_cpu_s": 0.12', '"prepare_cpu_s": 1e999'))
