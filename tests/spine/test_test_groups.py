"""The lists in tests/conftest.py that decide how `make test` schedules the tests name files that exist, and
every test file that launches several processes is either in the torch.distributed group or known not to start
torch.distributed."""

import re

from tests.conftest import EXCLUSIVE, REPO_ROOT, SLOW_FIRST, TORCH_DISTRIBUTED

# Files marked `multiprocess` whose processes are not torch.distributed ones: the sandbox's mpirun (its own network
# namespace) or generation servers.
MULTIPROCESS_WITHOUT_TORCH_DISTRIBUTED = {
    "tests/generate/test_resume.py",
    "tests/pcgbench/test_evaluate.py",
    "tests/pcgbench_suite/test_reference_speedups.py",
    "tests/pcgbench_suite/test_references.py",
}


def test_the_listed_test_files_exist():
    for entry in [*EXCLUSIVE, *SLOW_FIRST, *TORCH_DISTRIBUTED, *MULTIPROCESS_WITHOUT_TORCH_DISTRIBUTED]:
        assert (REPO_ROOT / entry.split("::")[0]).is_file(), entry
    assert len(set(SLOW_FIRST)) == len(SLOW_FIRST)


def test_every_multiprocess_test_file_is_placed():
    marked = {path.relative_to(REPO_ROOT).as_posix() for path in (REPO_ROOT / "tests").rglob("test_*.py")
              if re.search(r"pytest\.mark\.multiprocess", path.read_text())}  # fmt: skip
    assert marked, "no file is marked multiprocess"
    unplaced = marked - set(TORCH_DISTRIBUTED) - MULTIPROCESS_WITHOUT_TORCH_DISTRIBUTED
    assert not unplaced, f"add to tests/conftest.py TORCH_DISTRIBUTED if they start torch.distributed: {unplaced}"
