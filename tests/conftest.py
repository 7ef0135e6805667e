"""Shared pytest set-up: offline Hugging Face, quiet tokenizers, the repository root, and workflow copies."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# No hub at run time, ever; tokenizers' thread pool fights pytest's processes on 2 cores.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")

# What a run writes or installs; never copied into a test's workflow.
_NOT_SOURCES = (".git", ".venv", ".snakemake", "results", "logs", "benchmarks_out", "__pycache__", ".pytest_cache")


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


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def workflow_dir(tmp_path) -> Path:
    """A temporary copy of the workflow (see copy_workflow) to run Snakemake in."""
    return copy_workflow(tmp_path / "repo")
