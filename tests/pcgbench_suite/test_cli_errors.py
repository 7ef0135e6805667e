"""The PCGBench command line's answers to mistakes in its input: one line naming the file, record, field and
fix, exit status 2, no traceback (but with --debug, and always for a bug), and nothing written: not --out, not
the folder it is run from. None of these tests builds or runs a sample: every input is refused before that."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workflow_scripts.measure import suite, toolchains
from workflow_scripts.pcgbench import __main__ as cli
from workflow_scripts.pcgbench import evaluation
from workflow_scripts.pcgbench.pareval_format import GenerationsError, closest_names, prompt_record
from workflow_scripts.pcgbench.paths import user_cache_dir

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """An empty folder to run the command from, and a user cache inside it (nothing may land elsewhere)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    return tmp_path


def record(name: str = "reduce_average", exec_model: str = "serial", outputs=("return 0.0;\n}",)) -> dict:
    problem = suite.get_problem("reduce_average")
    return dict(prompt_record(problem, exec_model), name=name, outputs=list(outputs))


def write(path: Path, data) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def evaluate_error(workdir: Path, generations: Path, capsys, *extra: str) -> str:
    """Run `evaluate` in-process; require exit status 2 and that nothing was written; return stderr."""
    before = sorted(workdir.iterdir())
    status = cli.main(["evaluate", str(generations), "--out", str(workdir / "out"), *extra])
    err = capsys.readouterr().err
    assert status == 2, err
    assert sorted(workdir.iterdir()) == before  # no --out, no ./results, no cache
    assert "Traceback" not in err
    return [line for line in err.splitlines() if line.startswith("error: ")][0]


def test_not_json_is_one_line_naming_file_and_position(workdir, capsys):
    gen = write(workdir / "gen.json", "[{not json")
    line = evaluate_error(workdir, gen, capsys)
    assert line.startswith(f"error: {gen}: not valid JSON (line 1, column 3)")
    assert "a JSON list of records" in line  # the fix: what the file should hold


def test_outputs_a_string_names_record_field_and_fix(workdir, capsys):
    gen = write(workdir / "gen.json", [record(), dict(record(), outputs="return 0.0;")])
    line = evaluate_error(workdir, gen, capsys)
    assert f"{gen}: record 1: field 'outputs' must be a list, got str" in line
    assert '"outputs": [' in line


def test_missing_file_and_folder_are_one_line(workdir, capsys):
    assert evaluate_error(workdir, workdir / "nope.json", capsys) == f"error: {workdir / 'nope.json'}: no such file"
    (workdir / "folder.json").mkdir()
    assert "cannot be read" in evaluate_error(workdir, workdir / "folder.json", capsys)


def test_unknown_problem_names_the_closest_and_leaves_out_alone(workdir, capsys):
    gen = write(workdir / "gen.json", [record("reduce_averag", m) for m in ("serial", "omp")])
    line = evaluate_error(workdir, gen, capsys)
    assert "1 problem name(s) unknown" in line  # one name, however many models
    assert "no problem 'reduce_averag' here (closest: reduce_average" in line


def test_existing_out_is_left_as_it_was(workdir, capsys):
    out = workdir / "out"
    out.mkdir()
    (out / "samples.jsonl").write_text("earlier\n")
    gen = write(workdir / "gen.json", [record("reduce_averag")])
    assert cli.main(["evaluate", str(gen), "--out", str(out)]) == 2
    assert "closest: reduce_average" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["samples.jsonl"] and (out / "samples.jsonl").read_text() == "earlier\n"


def test_prompt_file_with_empty_outputs_says_to_generate_first(workdir, capsys):
    gen = write(workdir / "gen.json", [record(outputs=()), record(exec_model="omp", outputs=())])
    line = evaluate_error(workdir, gen, capsys)
    assert "nothing to evaluate: 2 record(s) have empty 'outputs'" in line and "generated function bodies" in line


def test_problem_type_of_another_problem_names_the_fix(workdir, capsys):
    gen = write(workdir / "gen.json", [dict(record(), problem_type="scan")])
    line = evaluate_error(workdir, gen, capsys)
    assert "record 0: field 'problem_type' is 'scan'" in line and "correct its 'name' or its 'problem_type'" in line


def test_out_that_is_a_file_and_a_missing_reference_are_refused(workdir, capsys):
    gen = write(workdir / "gen.json", [record()])
    (workdir / "afile").write_text("")
    assert cli.main(["evaluate", str(gen), "--out", str(workdir / "afile")]) == 2
    assert "--out" in capsys.readouterr().err
    line = evaluate_error(workdir, gen, capsys, "--reference-results", str(workdir / "ref.parquet"))
    assert line.startswith(f"error: --reference-results {workdir / 'ref.parquet'}: no such file")


def test_out_where_one_cannot_write_is_refused(workdir, capsys):
    gen = write(workdir / "gen.json", [record()])
    if os.geteuid() == 0:  # root writes in a folder of mode 0555; /proc refuses even root
        locked = Path("/proc")
    else:
        locked = workdir / "locked"
        locked.mkdir(mode=0o555)
    line = evaluate_error(workdir, gen, capsys, "--out", str(locked / "pcgbench-test" / "out"))
    assert f"cannot write in {locked}" in line


@pytest.mark.parametrize("argv, expected", [
    (["--ks", "1,a"], "argument --ks: expected comma-separated integers"),
    (["--reps", "0"], "argument --reps: must be > 0"),
    (["--jobs", "two"], "argument --jobs: expected a int"),
])  # fmt: skip
def test_bad_numbers_are_argparse_errors(workdir, capsys, argv, expected):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["evaluate", "gen.json", "--out", "out", *argv])
    assert exit_.value.code == 2 and expected in capsys.readouterr().err


@pytest.mark.parametrize("argv, expected", [
    (["evaluate", "gen.json", "--out", "out", "--reps", "-1"], "error: argument --reps: must be > 0, got -1"),
    (["evaluate", "gen.json", "--out", "out", "--size", "huge"], "error: argument --size: invalid choice: 'huge'"),
    (["evaluate", "gen.json"], "error: the following arguments are required: --out"),
    (["check-references", "--threads", "0"], "error: argument --threads: must be > 0"),
    (["evaluat"], "error: argument command: invalid choice: 'evaluat'"),
])  # fmt: skip
def test_a_bad_option_is_one_line_without_the_usage(workdir, capsys, argv, expected):
    """The usage above the error (19 lines for evaluate) hid the line that says what is wrong."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    [line] = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2 and line.startswith(expected) and line.endswith("--help` lists the options)")


def test_the_input_is_checked_before_the_machine(workdir, capsys, monkeypatch, caplog):
    """A missing generations file is reported as missing, not as a race-check library or a Kokkos build this
    machine lacks: nothing of the machine is looked at (or announced) before the input is read."""
    from workflow_scripts.measure import machine_cache

    def no_machine(*args):
        raise AssertionError("the machine was checked before the input")

    monkeypatch.setattr(toolchains, "race_check_status", no_machine)
    monkeypatch.setattr(machine_cache, "machine_cache_dir", no_machine)
    with caplog.at_level("INFO"):
        line = evaluate_error(workdir, workdir / "nope.json", capsys)
    assert line == f"error: {workdir / 'nope.json'}: no such file" and not caplog.records
    gen = write(workdir / "gen.json", [record("reduce_averag")])
    assert "closest: reduce_average" in evaluate_error(workdir, gen, capsys)


def test_a_file_output_in_a_missing_folder_is_refused_and_nothing_is_made(workdir, capsys):
    """export-prompts /nonexistent/x.json made /nonexistent/ and succeeded: a mistyped path left a folder tree."""
    target = workdir / "missing" / "deeper" / "p.json"
    assert cli.main(["export-prompts", str(target), "--problems", "reduce_average"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == f"error: OUT {target}: no folder {target.parent}; create it first, or give a file in an existing folder"
    assert cli.main(["check-references", "--csv", str(target), "--problems", "reduce_average"]) == 2
    assert capsys.readouterr().err.startswith(f"error: --csv {target}: no folder")
    assert sorted(p.name for p in workdir.iterdir()) == []


def test_unknown_problem_and_model_flags_name_the_closest(workdir, capsys):
    assert cli.main(["export-prompts", "p.json", "--problems", "reduce_average,reduce_averag"]) == 2
    assert "--problems: unknown problem(s) 'reduce_averag' (closest: reduce_average" in capsys.readouterr().err
    assert cli.main(["export-prompts", "p.json", "--models", "omp,opm"]) == 2
    assert "--models: unknown execution model(s) 'opm' (closest: omp" in capsys.readouterr().err
    assert not (workdir / "p.json").exists()


def test_debug_shows_the_traceback(workdir):
    gen = write(workdir / "gen.json", "[")
    with pytest.raises(GenerationsError, match="not valid JSON"):
        cli.main(["evaluate", str(gen), "--out", str(workdir / "out"), "--debug"])


def test_a_bug_keeps_its_traceback(workdir, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("a bug in the harness")

    monkeypatch.setattr(evaluation, "evaluate_generations", broken)
    gen = write(workdir / "gen.json", [record()])
    with pytest.raises(KeyError):
        cli.main(["evaluate", str(gen), "--out", str(workdir / "out")])


def test_evaluate_builds_in_the_user_cache_not_the_current_folder(workdir, monkeypatch):
    given = {}

    def capture(generations, out, cfg, **kwargs):
        given.update(out=out, cache_dir=cfg.cache_dir)
        return {"skipped_models": {}, "verdict_counts": {}}

    monkeypatch.setattr(evaluation, "evaluate_generations", capture)
    gen = write(workdir / "gen.json", [record()])
    assert cli.main(["evaluate", str(gen), "--out", str(workdir / "out")]) == 0
    assert given["cache_dir"] == workdir / "xdg-cache" / "pcgbench" / "build_cache"
    assert sorted(p.name for p in workdir.iterdir()) == ["gen.json"]  # not even the cache: evaluate_generations makes it


def test_user_cache_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_cache_dir() == tmp_path / "pcgbench"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG specification: a relative path is ignored
    assert user_cache_dir() == Path.home() / ".cache" / "pcgbench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert user_cache_dir() == Path.home() / ".cache" / "pcgbench"


def test_help_states_the_cache_and_the_jobs_default(workdir, capsys):
    with pytest.raises(SystemExit):
        cli.main(["evaluate", "--help"])
    text = "".join(capsys.readouterr().out.split())  # argparse wraps lines, and paths at their hyphens
    assert f"(default:{workdir / 'xdg-cache' / 'pcgbench' / 'build_cache'}:" in text
    assert "$XDG_CACHE_HOME/pcgbench,else~/.cache/pcgbench" in text
    assert "$PCGBENCH_MACHINE_CACHE" in text
    assert "parallelcompiles(default:2)" in text


def test_closest_names_follow_the_record_numbering():
    problems = suite.load_suite()
    assert closest_names("reduce_averag", problems)[0] == "reduce_average"
    assert closest_names("27_reduce_averag", problems)[0] == "27_reduce_average"  # ParEval's numbered name
    assert closest_names("zzzz", problems) == []


def test_the_command_prints_no_traceback(tmp_path):
    """As a user runs it: a separate process, from a folder that is not the checkout."""
    gen = write(tmp_path / "gen.json", [dict(record(), outputs="return 0.0;")])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "workflow_scripts.pcgbench", "evaluate", str(gen), "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: {gen}: record 0: field 'outputs' must be a list, got str; it holds a list of generated function "
        'bodies, e.g. "outputs": ["return 0;\\n}"]']
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen.json"]


def test_says_what_a_cold_machine_cache_builds_before_the_wait(tmp_path, monkeypatch, caplog):
    import workflow_scripts.measure as measure
    from workflow_scripts.measure import machine_cache

    cache = tmp_path / "machine"
    # The engine's own modules and the API's names the command reads (its API is what __main__ imports)
    for module in (machine_cache, measure):
        monkeypatch.setattr(module, "machine_cache_dir", lambda: cache)
    monkeypatch.setenv("PCGBENCH_KOKKOS_PREFIX", str(tmp_path / "no-kokkos"))
    monkeypatch.setattr(measure, "toolchain_status", lambda exec_model: (True, ""))
    gen = write(tmp_path / "gen.json", [record(exec_model=m) for m in ("serial", "omp", "mpi", "kokkos")])
    with caplog.at_level("INFO"):
        cli._announce_first_builds(gen, suite.DATA_ROOT)
    [line] = [r.getMessage() for r in caplog.records if "machine build cache" in r.getMessage()]
    assert str(cache) in line and "precompile the standard headers" in line
    assert "compile 3 driver object(s)" in line  # serial shares omp's driver
    assert f"build Kokkos 3.4.1 into {tmp_path / 'no-kokkos'}" in line
    # Once built, nothing is announced.
    (cache / "std_headers" / "k").mkdir(parents=True)
    (cache / "std_headers" / "k" / "done").write_text("")
    for exec_model in ("omp", "mpi", "kokkos"):
        (cache / "drivers" / "reduce_average" / exec_model).mkdir(parents=True)
        (cache / "drivers" / "reduce_average" / exec_model / "driver-0123.o").write_text("")
    (tmp_path / "no-kokkos").mkdir()
    (tmp_path / "no-kokkos" / "pcgbench-kokkos.stamp").write_text("")
    caplog.clear()
    with caplog.at_level("INFO"):
        cli._announce_first_builds(gen, suite.DATA_ROOT)
    assert not [r for r in caplog.records if "machine build cache" in r.getMessage()]
