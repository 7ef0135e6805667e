"""The problem data, prompts, toolchain answers and driver-output parsing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.pcgbench_suite.conftest import build_executable, parse_driver_output
from workflow_scripts.common.c_scanner import strip_comments_and_strings, uses_exec_model
from workflow_scripts.measure import driver_program, kokkos, machine_cache, suite, toolchains

PROBLEMS = suite.load_suite()
PROMPT_CASES = [(p.name, m) for p in PROBLEMS for m in suite.EXECUTION_MODELS]


def test_suite_loads_sorted_with_known_types():
    names = [p.name for p in PROBLEMS]
    assert names == sorted(names) and len(set(names)) == len(names)
    assert {p.problem_type for p in PROBLEMS} == set(suite.PROBLEM_TYPES)  # every type has a problem
    for p in PROBLEMS:
        assert p.sizes["small"] < p.sizes["timed"]
        assert p.name.startswith(p.problem_type + "_")


@pytest.mark.parametrize(("name", "exec_model"), PROMPT_CASES)
def test_prompt_parses_and_ends_in_signature(name, exec_model):
    problem = next(p for p in PROBLEMS if p.name == name)
    text = suite.prompt(problem, exec_model)
    assert text.endswith(problem.signature(exec_model) + " {\n")
    assert text.count("/*") == text.count("*/") == 1
    assert "Example:" in text and problem.description.split()[0] in text
    for header in suite.EXEC_MODEL_INCLUDES[exec_model]:
        assert f"#include <{header}>" in text
    # Brackets balance once the opening brace of the signature is closed by a body.
    code = strip_comments_and_strings(text + "}\n")
    assert code.count("(") == code.count(")") and code.count("{") == code.count("}")
    # A reference body exists and is what a model would write: no signature, ends with the closing brace.
    body = suite.reference_body(problem, exec_model)
    assert body.rstrip().endswith("}") and problem.signature(exec_model) not in body


@pytest.mark.parametrize(("name", "exec_model"), PROMPT_CASES)
def test_references_use_their_model(name, exec_model):
    problem = next(p for p in PROBLEMS if p.name == name)
    ok, why = uses_exec_model(exec_model, suite.reference_body(problem, exec_model))
    assert ok, f"{name}/{exec_model}: {why}"


@pytest.mark.parametrize("name", [p.name for p in PROBLEMS])
@pytest.mark.parametrize("exec_model", ["omp", "mpi", "mpi+omp", "kokkos"])
def test_serial_body_in_parallel_prompt_is_flagged(name, exec_model):
    problem = next(p for p in PROBLEMS if p.name == name)
    ok, why = uses_exec_model(exec_model, suite.serial_baseline_body(problem))
    assert not ok and why


@pytest.mark.parametrize(("exec_model", "body", "expected"), [
    ("omp", "  // #pragma omp parallel for\n  for (int i = 0; i < n; ++i) y[i] = x[i];\n}\n", False),
    ("omp", '  puts("#pragma omp parallel");\n}\n', False),
    ("omp", "  #pragma omp parallel for\n  for (int i = 0; i < n; ++i) y[i] = x[i];\n}\n", True),
    ("omp", "  #  pragma   omp   simd\n  for (int i = 0; i < n; ++i) y[i] = x[i];\n}\n", True),
    ("mpi", "  int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);\n  return r;\n}\n", False),
    ("mpi", "  double t = 0; MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n}\n", True),
    ("mpi+omp", "  MPI_Bcast(x.data(), n, MPI_INT, 0, MPI_COMM_WORLD);\n}\n", False),
    ("kokkos", "  Kokkos::View<double*> tmp(\"t\", 4);\n  Kokkos::deep_copy(tmp, 0.0);\n}\n", False),
    ("kokkos", "  Kokkos::parallel_for(n, KOKKOS_LAMBDA(int i) { y(i) = 0; });\n}\n", True),
    ("cuda", "  for (size_t i = 0; i < N; ++i) x[i] = 0;\n}\n", False),
    ("cuda", "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < N) x[i] = 0;\n}\n", True),
    ("hip", "  if (hipThreadIdx_x == 0) x[0] = 1;\n}\n", True),
    ("serial", "  return 0;\n}\n", True),
])
def test_uses_exec_model_cases(exec_model, body, expected):
    ok, why = uses_exec_model(exec_model, body)
    assert ok is expected and (why == "") is expected


def test_uses_exec_model_rejects_an_unknown_one():
    with pytest.raises(ValueError, match="unknown execution model"):
        uses_exec_model("openacc", "}")


def test_malformed_problem_names_file_and_field(tmp_path):
    src = PROBLEMS[0].directory
    for field, edit, message in [
        ("problem_type", lambda t: t.replace(f"problem_type: {PROBLEMS[0].problem_type}", "problem_type: quantum"),
         "field 'problem_type'"),
        ("sizes", lambda t: re.sub(r"small: \d+", "small: 1", t), "field 'sizes.small'"),
        ("name", lambda t: t.replace(f"name: {PROBLEMS[0].name}", "name: other_name"), "field 'name'"),
        ("extra", lambda t: t + "colour: blue\n", "field 'colour': unknown field"),
        ("signature", lambda t: re.sub(r"  gpu: .*", '  gpu: "void not_a_kernel(int x)"', t), "signatures.gpu"),
    ]:
        root = tmp_path / field
        shutil.copytree(src, root / src.name)
        yaml_path = root / src.name / "problem.yaml"
        yaml_path.write_text(edit(yaml_path.read_text()))
        with pytest.raises(ValueError, match=re.escape(message)) as err:
            suite.load_suite(root)
        assert "problem.yaml" in str(err.value)


def test_toolchain_status_reports_unavailable_not_failure():
    ok, why = toolchains.toolchain_status("hip")
    if shutil.which("hipcc") is None:
        assert not ok and "hipcc" in why
    if shutil.which("nvcc") is not None and not suite.Path("/dev/nvidia0").exists():
        assert toolchains.build_status("cuda") == (True, "")
        assert toolchains.toolchain_status("cuda") == (False, "no GPU: CUDA is build-only")
    assert toolchains.toolchain_status("serial") == (True, "")


def test_a_one_bit_answer_is_validated_on_many_small_inputs(tmp_path):
    problem = suite.get_problem("reduce_xor")
    assert problem.small_validations == 16
    argv, _ = driver_program.run_argv(problem, "serial", tmp_path / "x.exe", ranks=1, threads=1, seed=5, warmup=0, reps=1,
                             validations=2)  # fmt: skip
    sizes = [int(n) for n in argv[argv.index("--sizes") + 1].split(",")]
    assert sizes == [problem.sizes["small"]] * 16 + [problem.sizes["timed"]] * 2
    # A body that drops the last value: wrong on about half of the inputs, so caught among 16 (seeds differ).
    body = "  bool r = false;\n  for (std::size_t i = 0; i + 1 < x.size(); ++i) r = r != x[i];\n  return r;\n}\n"
    exe = build_executable(problem, "serial", body, tmp_path / "drop_last", tmp_path / "drivers")
    proc = subprocess.run([str(exe), *argv[1:]], capture_output=True, text=True, timeout=60)
    result = parse_driver_output(proc.stdout)
    assert not result.valid and result.validation[-1].size == problem.sizes["small"]


def test_small_validations_must_be_a_positive_integer(tmp_path):
    source = suite.DATA_ROOT / "reduce_xor"
    folder = tmp_path / "reduce_xor"
    shutil.copytree(source, folder)
    text = (folder / "problem.yaml").read_text().replace("small_validations: 16", "small_validations: 0")
    (folder / "problem.yaml").write_text(text)
    with pytest.raises(ValueError, match="small_validations"):
        suite.load_problem(folder)


def test_run_argv_per_model(tmp_path):
    problem = PROBLEMS[0]
    exe = tmp_path / "x.exe"
    argv, env = driver_program.run_argv(problem, "mpi+omp", exe, ranks=2, threads=3, seed=5, warmup=1, reps=4)
    assert argv[:3] == ["mpirun", "--allow-run-as-root", "--oversubscribe"] and argv[argv.index("-np") + 1] == "2"
    assert env["OMP_NUM_THREADS"] == "3" and str(exe) in argv
    assert argv[argv.index("--sizes") + 1] == f"{problem.sizes['small']},{problem.sizes['timed']}"
    argv, env = driver_program.run_argv(problem, "omp", exe, ranks=1, threads=2, seed=5, warmup=1, reps=4)
    assert argv[0] == str(exe) and env["OMP_NUM_THREADS"] == "2"
    assert argv[argv.index("--model") + 1] == "omp"
    with pytest.raises(ValueError, match="ranks"):
        driver_program.run_argv(problem, "omp", exe, ranks=2, threads=1, seed=5, warmup=1, reps=1)
    with pytest.raises(ValueError, match="threads"):
        driver_program.run_argv(problem, "serial", exe, ranks=1, threads=2, seed=5, warmup=1, reps=1)


GOOD = ('PCGBENCH_RESULT n0nce {"problem":"p","model":"omp","ranks":1,"threads":2,"seed":1,"timed_seed":77,'
        '"timed_size":10,"valid":true,"failure":"","validation":[{"size":3,"pass":true,"why":""},'
        '{"size":10,"pass":true,"why":""}],"times_s":[0.5,0.25],"baseline_times_s":[1.0,1.0],"threads_allowed":2,'
        '"cpu_per_wall":1.5,"baseline_cpu_per_wall":1.0,"prepare_cpu_s":0.1,"generate_cpu_s":0.08,"extra_threads":0,'
        '"call_timed_out":false}')


def test_parse_driver_output():
    result = parse_driver_output("noise\n" + GOOD + "\n", "n0nce")
    assert result.valid and result.times_s == (0.5, 0.25) and [c.size for c in result.validation] == [3, 10]
    assert (result.timed_seed, result.threads_allowed, result.cpu_per_wall) == (77, 2, 1.5)
    with pytest.raises(ValueError, match="found none"):
        parse_driver_output("Validation: PASS\n", "n0nce")
    with pytest.raises(ValueError, match="exactly one"):
        parse_driver_output(GOOD + "\n" + GOOD, "n0nce")
    # A run of several thread counts (run_argv's more_threads) prints a line per thread count.
    two = driver_program.parse_driver_results(GOOD + "\nnoise\n" + GOOD.replace('"threads":2', '"threads":4'), "n0nce")
    assert [r.threads for r in two] == [2, 4] and two[0].times_s == two[1].times_s
    with pytest.raises(ValueError, match="malformed"):
        parse_driver_output(GOOD.replace('"times_s"', '"tims"'), "n0nce")
    with pytest.raises(ValueError, match="without timings"):
        parse_driver_output(GOOD.replace("[0.5,0.25]", "[]"), "n0nce")


@pytest.mark.parametrize("line", [GOOD.replace("n0nce ", ""), GOOD.replace("n0nce", "guess"),
                                  GOOD.replace("n0nce", "-"), "PCGBENCH_RESULT", "PCGBENCH_RESULTn0nce {}"])
def test_a_result_line_without_the_runs_nonce_is_forged(line):
    """Any line that starts with the tag but not with the tag and the run's nonce was not printed by the driver,
    even beside the driver's own lines."""
    with pytest.raises(driver_program.ForgedResult, match="not printed by the driver"):
        driver_program.parse_driver_results(GOOD + "\n" + line + "\n", "n0nce")


def test_shared_type_headers_exist_and_key_the_driver_cache(tmp_path, monkeypatch):
    """Problem headers may include a per-type header from drivers/ (fft.hpp, graph.hpp): each one exists, and editing
    it changes the driver cache key, so no stale driver object is reused."""
    included = set()
    for problem in suite.load_suite():
        for line in (problem.directory / "problem.hpp").read_text().splitlines():
            if line.startswith("#include"):
                header = line.split('"')[1]
                assert header.startswith("drivers/") and (suite.DATA_ROOT / header).is_file(), (problem.name, line)
                included.add(header)
    assert {"drivers/fft.hpp", "drivers/graph.hpp"} <= included
    problem = suite.get_problem("fft_forward")
    key = driver_program._driver_key(problem, "serial", ["g++"], "source")
    fake = tmp_path / "drivers"
    shutil.copytree(suite.DRIVERS_DIR, fake)
    (fake / "fft.hpp").write_text((fake / "fft.hpp").read_text() + "\n// edited\n")
    monkeypatch.setattr(suite, "DRIVERS_DIR", fake)
    assert driver_program._driver_key(problem, "serial", ["g++"], "source") != key


def test_standard_headers_come_before_the_prompt_precompiled(tmp_path):
    # A body written for a ParEval prompt may call std::accumulate or std::sort without including anything.
    problem = suite.get_problem("reduce_average")
    assert suite.sample_source(problem, "serial", "}").startswith(f'#include "{suite.STANDARD_HEADER_FILE}"\n')
    folder = toolchains.standard_header_dir("serial")
    header = (folder / suite.STANDARD_HEADER_FILE).read_text()
    assert all(f"#include <{h}>" in header for h in ("algorithm", "numeric", "cmath", "random", "vector"))
    assert (folder / (suite.STANDARD_HEADER_FILE + ".gch")).exists()
    assert f"-I{folder}" in toolchains.compile_sample_argv(problem, "serial", tmp_path / "s.cpp", tmp_path / "s.o")
    assert not (toolchains.standard_header_dir("cuda") / (suite.STANDARD_HEADER_FILE + ".gch")).exists()  # nvcc: text


def test_race_check_builds_read_the_standard_headers_precompiled(tmp_path):
    # clang reads a precompiled header only when named: the race-check compile names it, and builds with it.
    if not toolchains.race_check_status()[0]:
        pytest.skip(toolchains.race_check_status()[1])
    problem = suite.get_problem("reduce_average")
    pch = toolchains.standard_header_dir("omp", toolchains.TSAN) / (suite.STANDARD_HEADER_FILE + ".pch")
    assert pch.exists()
    src, obj = tmp_path / "s.cpp", tmp_path / "s.o"
    argv = toolchains.compile_sample_argv(problem, "omp", src, obj, toolchains.TSAN)
    assert argv[argv.index("-include-pch") + 1] == str(pch)
    body = "  return std::accumulate(x.begin(), x.end(), 0.0) / x.size();\n}\n"  # <numeric> from the header
    src.write_text(suite.sample_source(problem, "omp", body))
    proc = subprocess.run(argv, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert obj.exists()


def test_a_race_check_build_without_its_tools_says_what_is_missing(monkeypatch):
    monkeypatch.setattr(toolchains, "race_check_status", lambda: (False, "no clang++: install clang"))
    with pytest.raises(RuntimeError, match="no clang"):
        toolchains.standard_header_dir("omp", toolchains.TSAN)
    assert toolchains.standard_header_dir("omp").exists()  # the regular build does not need clang


def test_machine_cache_refuses_a_folder_others_can_write(monkeypatch):
    with tempfile.TemporaryDirectory() as name:  # in the system's temporary folder, which others can enter
        folder = Path(name)
        folder.chmod(0o777)
        monkeypatch.setenv("PCGBENCH_MACHINE_CACHE", str(folder))
        with pytest.raises(RuntimeError, match="not writable by others"):
            machine_cache.machine_cache_dir()
        folder.chmod(0o700)
        assert machine_cache.machine_cache_dir() == folder.resolve() and folder.stat().st_mode & 0o777 == 0o755


@pytest.mark.skipif(os.geteuid() != 0, reason="the confined compiler is another user only in root mode")
def test_machine_cache_and_kokkos_refuse_a_folder_the_confined_compiler_cannot_reach(tmp_path, monkeypatch):
    closed = tmp_path / "home"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)
    monkeypatch.setenv("PCGBENCH_MACHINE_CACHE", str(closed / "cache"))
    with pytest.raises(RuntimeError, match=f"lies below {closed}.*PCGBENCH_MACHINE_CACHE"):
        machine_cache.machine_cache_dir()
    with pytest.raises(RuntimeError, match=f"lies below {closed}.*PCGBENCH_KOKKOS_PREFIX"):
        kokkos.ensure_kokkos(closed / "kokkos")


def test_serial_and_openmp_samples_link_one_driver_and_say_their_model(tmp_path):
    """A problem's serial samples link its OpenMP driver (toolchains.driver_exec_model): one object, built once; every
    executable names the model it was run as, and a serial one runs one thread."""
    problem = suite.get_problem("transform_relu")
    drivers = tmp_path / "drivers"
    assert driver_program.build_driver(problem, "serial", drivers) == driver_program.build_driver(problem, "omp", drivers)
    assert [p.name for p in (drivers / problem.name).iterdir()] == ["omp"]
    for exec_model, threads in (("serial", 1), ("omp", 2)):
        exe = build_executable(problem, exec_model, suite.reference_body(problem, exec_model), tmp_path / exec_model, drivers)
        argv, env = driver_program.run_argv(problem, exec_model, exe, ranks=1, threads=threads, seed=3, warmup=0, reps=1)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=os.environ | env)
        result = parse_driver_output(proc.stdout)
        assert result.valid and (result.exec_model, result.threads) == (exec_model, threads), proc.stderr


def test_links_use_gold_where_binutils_has_it_and_serial_links_openmp(tmp_path):
    problem = suite.get_problem("transform_relu")
    gold = shutil.which("ld.gold") is not None
    for exec_model, sanitizer in (("serial", None), ("omp", None), ("omp", toolchains.TSAN)):
        argv = toolchains.link_argv(problem, exec_model, tmp_path / "s.o", tmp_path / "d.o", tmp_path / "x", sanitizer)
        assert ("-fuse-ld=gold" in argv) == gold and "-fopenmp" in argv


def test_a_nan_in_a_vector_answer_is_wrong_and_located(tmp_path):
    """The vector comparison's fast pass (no early exit) and its element loop agree: a NaN fails, at its index."""
    problem = suite.get_problem("transform_relu")
    body = "  for (auto& v : x) v = v > 0 ? v : 0;\n  x[7] = std::nan(\"\");\n}\n"
    exe = build_executable(problem, "serial", body, tmp_path / "nan", tmp_path / "drivers")
    argv, env = driver_program.run_argv(problem, "serial", exe, ranks=1, threads=1, seed=3, warmup=0, reps=1)
    result = parse_driver_output(subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout)
    assert not result.valid and "element 7:" in result.failure and "nan" in result.failure


ALL_CLOSE_CHECK = r"""
#define PCG_MODEL_SERIAL
#define PCG_MODEL_NAME "serial"
#include "drivers/common.hpp"
int main() {
  // Every length up to 11 (whole SIMD blocks and a tail of each length), one perturbed element at every position,
  // against the element-wise definition (close_value).
  const double kinds[][2] = {{0.5, 0.5}, {0.5, 0.5 + 0.9e-6}, {0.5, 0.5 + 1.1e-6}, {-3e6, -3e6 * (1 + 0.9e-6)},
                             {-3e6, -3e6 * (1 + 1.1e-6)}, {2.0, NAN}, {NAN, 2.0}, {NAN, NAN}, {INFINITY, INFINITY},
                             {1.0, INFINITY}, {-INFINITY, 1.0}, {0.0, -0.0}, {1e300, -1e300}};
  int agree = 0, disagree = 0, failed = 0;
  for (std::size_t n = 1; n <= 11; ++n)
    for (std::size_t at = 0; at < n; ++at)
      for (const auto& kind : kinds) {
        std::vector<double> want(n, 0.25), got(n, 0.25 + 1e-9);
        want[at] = kind[0];
        got[at] = kind[1];
        bool expected = true;
        for (std::size_t i = 0; i < n; ++i) expected &= pcg::close_value(want[i], got[i], pcg::kTol);
        const bool fast = pcg::all_close(want.data(), got.data(), n, pcg::kTol);
        (fast == expected ? agree : disagree)++;
        failed += !expected;
      }
  std::printf("%d %d %d\n", agree, disagree, failed);
}
"""


def test_the_vector_comparisons_fast_pass_agrees_with_the_element_wise_definition(tmp_path):
    """all_close (two pairs at a time with SSE2 on x86-64, then a scalar tail) says what close_value says of every
    element: NaN on either side, infinities, the tolerance's edge, relative at large values, at every lane and tail."""
    src, exe = tmp_path / "all_close.cpp", tmp_path / "all_close"
    src.write_text(ALL_CLOSE_CHECK)
    subprocess.run(["g++", *suite.CXX_FLAGS, f"-I{suite.DATA_ROOT}", str(src), "-o", str(exe)], check=True)
    agree, disagree, failed = map(int, subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split())
    assert disagree == 0 and agree == 66 * 13
    assert 0 < failed < agree  # both verdicts occur


def test_a_problem_header_whose_check_reads_its_input_says_so():
    # The driver hands a timed call's input itself to the baseline unless CheckReadsInput<Data> says the check reads
    # it (drivers/common.hpp): a check that named its input without saying so would read a moved-from input.
    named, declared = set(), set()
    for header in sorted(suite.DATA_ROOT.glob("*/problem.hpp")):
        text = header.read_text()
        check = re.search(r"inline bool check\(const Data&\s*(\w*)\s*,", text)
        assert check, f"{header}: no check(const Data&, ...)"
        if check.group(1):
            named.add(header.parent.name)
        if "struct CheckReadsInput<Data> : std::true_type" in text:
            declared.add(header.parent.name)
    assert named == declared and named, (named, declared)


def test_the_rules_depend_on_the_selected_problems_files(monkeypatch, repo_root):
    """The PCGBench rules' `suite` input (paths.suite_files): the selected problems' folders, whole, and the shared
    drivers and name map; a selection by rule ("all", "one_per_type") depends on every folder."""
    from workflow_scripts.pcgbench.paths import suite_files

    monkeypatch.chdir(repo_root)  # the rules' paths are relative to the workflow's folder
    chosen = suite_files(["reduce_average", "fft_conjugate"])
    assert "data/pcgbench/reduce_average/problem.hpp" in chosen and "data/pcgbench/fft_conjugate/problem.yaml" in chosen
    assert "data/pcgbench/reduce_average/ref_omp.cpp" in chosen and "data/pcgbench/drivers/main.hpp" in chosen
    assert "data/pcgbench/pareval.yaml" in chosen and not any("dense_la_axpy" in path for path in chosen)
    everything = suite_files("one_per_type")
    assert set(chosen) < set(everything) and all((repo_root / path).is_file() for path in everything)
    folders = {path.split("/")[2] for path in everything if path.count("/") == 3} - {"drivers"}
    assert folders == {problem.name for problem in suite.load_suite()}


def test_any_bytes_in_a_result_line_are_a_value_error():
    """A run's output is the sample's to shape: whatever its result line holds, reading it raises ValueError alone
    (run_program's CRASH or TAMPERING), never an exception that would stop an evaluation."""
    import random

    rng = random.Random(45)
    tricky = ['"ranks":Infinity', '"ranks":1e999', '"ranks":NaN', '"times_s":[1e999]', '"validation":[1]',
              '"validation":"x"', '"times_s":{"a":1}', '"ranks":[1]', '"threads":null', '"cpu_per_wall":-Infinity']
    lines = [GOOD.replace('"ranks":1', t) if t.startswith('"ranks"') else GOOD.replace('"times_s":[0.5,0.25]', t)
             if t.startswith('"times_s"') else GOOD.replace('"threads":2', t) if t.startswith('"threads"')
             else GOOD.replace('"cpu_per_wall":1.5', t) if t.startswith('"cpu_per_wall"')
             else GOOD.replace('"validation":[{"size":3,"pass":true,"why":""},{"size":10,"pass":true,"why":""}]', t)
             for t in tricky]  # fmt: skip
    lines.append("PCGBENCH_RESULT n0nce " + "[" * 100_000)
    for _ in range(300):  # random bytes, and GOOD with bytes flipped
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        lines.append("PCGBENCH_RESULT n0nce " + raw.decode(errors="surrogateescape"))
        good = bytearray(GOOD.encode())
        for _ in range(3):
            good[rng.randrange(len(good))] = rng.randrange(256)
        lines.append(good.decode(errors="surrogateescape"))
    for line in lines:
        try:
            driver_program.parse_driver_results(line, "n0nce")
        except ValueError:
            pass
