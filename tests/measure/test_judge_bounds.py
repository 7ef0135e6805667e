"""What a judged sample's processes may do between their calls (drivers/judge.hpp; measure/run.py resource_overuse):
no thread beyond their runtime's and the team a call was given, and no more CPU than preparing the inputs takes.

First the real path: a body that starts a thread of its own through an address it finds in memory (no call the
inspection names, and the system-call filter lets threads be made), which works only between the calls, where no
clock of a call runs. Then how the judge's figures are read and judged, at the edges of the bounds.
"""

import json

import pytest

from workflow_scripts.measure import (
    RESOURCE_OVERUSE,
    BuildCache,
    BuildConfig,
    BuildRequest,
    RunProtocol,
    SandboxLimits,
    run_program,
    suite,
)
from workflow_scripts.measure.driver_program import parse_driver_results
from workflow_scripts.measure.run import PREPARE_CPU_FACTOR, PREPARE_CPU_SLACK_S, resource_overuse

HONEST = {
    "serial": "double s = 0; for (double v : x) s += v; const double mean = s / x.size();",
    "omp": "double s = 0;\n#pragma omp parallel for reduction(+:s)\nfor (size_t i = 0; i < x.size(); ++i) s += x[i];\n"
           "const double mean = s / x.size();",
    "mpi": "int rank = 0, size = 1; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
           "double local = 0; for (size_t i = x.size() * rank / size; i < x.size() * (rank + 1) / size; ++i) "
           "local += x[i];\ndouble s = 0; MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n"
           "const double mean = s / x.size();",
}
HONEST["mpi+omp"] = HONEST["mpi"]
# reduce_average's body: its first call walks the dynamic linker's list of loaded objects (from the executable's
# _DYNAMIC, DT_DEBUG) to libc's symbol table, finds pthread_create by a name built at run time, and starts a thread
# that works whenever no call of the body is under way (and sleeps while one is, so no call's CPU time shows it).
THREAD_FOUND_IN_MEMORY = r"""double pcg_fast(std::vector<double> const&); return pcg_fast(x); }
struct PcgDyn { long tag; unsigned long val; };
struct PcgSym { unsigned name; unsigned char info, other; unsigned short shndx; unsigned long value, size; };
struct PcgLink { unsigned long addr; char* name; PcgDyn* ld; PcgLink* next; PcgLink* prev; };
struct PcgDebug { int version; PcgLink* map; };
extern "C" PcgDyn _DYNAMIC[];
static volatile int pcg_in_call = 0;
static volatile double pcg_sink = 0;
static void* pcg_worker(void*) {
  for (;;) {
    if (pcg_in_call) { timespec t{0, 200000}; nanosleep(&t, nullptr); continue; }
    double a = pcg_sink; for (int i = 0; i < 100000; ++i) a += 1e-9 * i; pcg_sink = a;
  }
  return nullptr;
}
static bool pcg_same(const char* a, const char* b) { while (*a && *a == *b) ++a, ++b; return *a == *b; }
static bool pcg_has(const char* s, const char* part) {
  for (; *s; ++s) { const char* a = s; const char* b = part; while (*b && *a == *b) ++a, ++b; if (!*b) return true; }
  return false;
}
static void* pcg_find(const char* want) {
  PcgDebug* debug = nullptr;
  for (PcgDyn* d = _DYNAMIC; d->tag != 0; ++d) if (d->tag == 21) debug = (PcgDebug*)d->val;
  for (PcgLink* m = debug ? debug->map : nullptr; m; m = m->next) {
    PcgSym* sym = nullptr; const char* str = nullptr;
    for (PcgDyn* d = m->ld; d && d->tag != 0; ++d) {
      const unsigned long at = d->val < m->addr ? m->addr + d->val : d->val;  // the vDSO's are not relocated
      if (d->tag == 6) sym = (PcgSym*)at;
      if (d->tag == 5) str = (const char*)at;
    }
    if (!m->name || !pcg_has(m->name, "libc.so") || !sym || !str || (const char*)sym >= str) continue;
    for (PcgSym* s = sym; (const char*)s < str; ++s)
      if (s->name && s->value && pcg_same(str + s->name, want)) return (void*)(m->addr + s->value);
  }
  return nullptr;
}
double pcg_fast(std::vector<double> const& x) {
  static bool started = false;
  if (!started) {
    started = true;
    char name[] = {'p','t','h','r','e','a','d','_','c','r','e','a','t','e',0};
    typedef int (*Start)(unsigned long*, void*, void* (*)(void*), void*);
    Start start = (Start)pcg_find(name);
    unsigned long id = 0;
    if (start) start(&id, nullptr, pcg_worker, nullptr);
  }
  pcg_in_call = 1;
  {honest}
  pcg_in_call = 0;
  return mean;
}
"""


@pytest.fixture(scope="module")
def thread_builds(tmp_path_factory):
    problem = suite.get_problem("reduce_average")
    requests = [BuildRequest(problem, model, THREAD_FOUND_IN_MEMORY.replace("{honest}", HONEST[model]))
                for model in HONEST]
    builds = BuildCache(BuildConfig(cache_dir=tmp_path_factory.mktemp("judge_bounds"), jobs=2)).build_all(requests)
    return dict(zip(HONEST, builds, strict=True))


@pytest.mark.parametrize("model", list(HONEST))
def test_a_thread_started_through_an_address_found_in_memory_is_resource_overuse(thread_builds, model):
    build = thread_builds[model]
    assert build.ok, build.log
    assert build.finding is None, build.finding  # nothing the inspection reads names it: the judge must see it
    protocol = RunProtocol(warmup=1, reps=3, validations=1, seed=1234, ranks=2 if model.startswith("mpi") else 1,
                           threads=1, more_threads=(2,) if model == "omp" else (), nice=-20)  # fmt: skip
    run = run_program(suite.get_problem("reduce_average"), model, build.exe, protocol,
                      SandboxLimits(wall_s=60.0, cpu_limit_s=60))  # fmt: skip
    assert run.verdict == RESOURCE_OVERUSE, run.detail
    assert "beyond its runtime's" in run.detail
    # The calls themselves look honest (the thread sleeps through them): only the census between them shows it.
    for result in run.driver_results:
        assert result.cpu_per_wall < 1.25 * result.threads_allowed


def result_line(**fields) -> str:
    """A result line as the judge prints it (drivers/main.hpp print_result), unsigned (no nonce), with `fields` set."""
    line = {"problem": "reduce_average", "model": "serial", "ranks": 1, "threads": 1, "seed": 1, "timed_seed": 2,
            "timed_size": 4000000, "valid": True, "failure": "", "validation": [], "times_s": [0.01] * 3,
            "baseline_times_s": [0.01] * 3, "threads_allowed": 1, "cpu_per_wall": 1.0, "baseline_cpu_per_wall": 1.0,
            "prepare_cpu_s": 0.12, "generate_cpu_s": 0.08, "extra_threads": 0, "call_timed_out": False}  # fmt: skip
    line.update(fields)
    return "PCGBENCH_RESULT - " + json.dumps(line) + "\n"


def judged(**fields) -> str | None:
    [result] = parse_driver_results(result_line(**fields))
    return resource_overuse(result)


def test_an_honest_runs_figures_pass():
    # The references' worst ratio of prepare CPU to the judge's generation, measured (benchmarks/prepare_cpu.py): 4.75.
    assert judged() is None
    assert judged(prepare_cpu_s=4.75 * 0.3, generate_cpu_s=0.3) is None
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


@pytest.mark.parametrize("field", ["prepare_cpu_s", "generate_cpu_s", "extra_threads", "call_timed_out"])
def test_a_line_without_the_judges_figures_is_malformed(field):
    text = result_line()
    line = json.loads(text[len("PCGBENCH_RESULT - "):])
    del line[field]
    with pytest.raises(ValueError, match="malformed"):
        parse_driver_results("PCGBENCH_RESULT - " + json.dumps(line) + "\n")


def test_infinite_figures_are_malformed():
    with pytest.raises(ValueError, match="malformed"):
        parse_driver_results(result_line().replace('"prepare_cpu_s": 0.12', '"prepare_cpu_s": 1e999'))


def test_references_whose_threads_allocate_keep_their_verdict_under_the_filter(tmp_path):
    """sort_by_last_digit's MPI+OpenMP reference merges with std::inplace_merge on 8 stress threads per rank: its threads'
    first allocations made glibc open /sys/devices/system/cpu/online to cap its arenas, which the filter refused
    (tampering) until the run's environment gave the cap (driver_program.run_argv, MALLOC_ARENA_MAX)."""
    from workflow_scripts.measure import OK, MeasureConfig

    problem = suite.get_problem("sort_by_last_digit")
    [build] = BuildCache(BuildConfig(cache_dir=tmp_path, jobs=2)).build_all(
        [BuildRequest(problem, "mpi+omp", suite.reference_body(problem, "mpi+omp"))])
    cfg = MeasureConfig()
    run = run_program(problem, "mpi+omp", build.exe, cfg.protocol(ranks=2, threads=1), cfg.limits())
    assert run.verdict == OK, run.detail
