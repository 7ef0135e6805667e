"""Every ParEval problem's `sizes.paper` is ParEval's own problem size (its drivers/problem-sizes.json, copied
unchanged into pareval_files/), or the size converted below where N builds another input here than in ParEval's
driver: the paper scale cannot drift from ParEval's again."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml

from workflow_scripts.measure import suite

FILES = Path(__file__).parent / "pareval_files"
SIZES_SHA256 = "8bbdccc733cab5030975c1c46d45e3aa6ae5efb59cffb10c2bab33a7abda37db"  # pareval_files/README.md
PAREVAL = yaml.safe_load((suite.DATA_ROOT / "pareval.yaml").read_text())
PAREVAL_SIZES = json.loads((FILES / "problem-sizes.json").read_text())

# Problems whose N builds another input here than ParEval's N does there: ParEval's serial size -> the size here.
CONVERSIONS = {
    # ParEval: A is N x N/4, B N/4 x N/2 (N^3 / 8 multiply-adds); here M, K, N are n, n + 3, n - 1.
    "dense_la_gemm": lambda n: n // 2,
    # ParEval: A is N x N with 0.1 N^2 nonzeros (SPARSE_LA_SPARSITY); here n rows of 0-12 nonzeros, 6 on average.
    "sparse_la_spmv": lambda n: int(0.1 * n * n) // 6,
}


def serial_size(pareval_name: str) -> int:
    """ParEval's serial size of a problem (its file names it `<number>_<name>`; the sizes are `(1<<k)`)."""
    (key,) = [k for k in PAREVAL_SIZES if k.split("_", 1)[1] == pareval_name]
    match = re.fullmatch(r"\(1<<(\d+)\)", PAREVAL_SIZES[key]["serial"])
    assert match, f"{key}: unexpected size {PAREVAL_SIZES[key]['serial']!r}"
    return 1 << int(match.group(1))


def test_the_copy_is_parevals_file_unchanged():
    assert hashlib.sha256((FILES / "problem-sizes.json").read_bytes()).hexdigest() == SIZES_SHA256
    assert len(PAREVAL_SIZES) == len(PAREVAL["problems"]) == 60


@pytest.mark.parametrize("pareval_name", sorted(PAREVAL["problems"]))
def test_paper_size_is_parevals(pareval_name):
    name = PAREVAL["problems"][pareval_name]["problem"]
    problem = suite.get_problem(name)
    expected = CONVERSIONS.get(name, lambda n: n)(serial_size(pareval_name))
    assert problem.sizes["paper"] == expected, f"{name}: ParEval's {pareval_name} is {serial_size(pareval_name)}"
    assert problem.sizes["small"] < problem.sizes["timed"]


def test_conversions_keep_parevals_work():
    """The converted sizes do ParEval's work within 2%: gemm's multiply-adds, spmv's nonzeros (6 per row)."""
    n = serial_size("dense_la_gemm")
    m = suite.get_problem("dense_la_gemm").sizes["paper"]
    assert m * (m + 3) * (m - 1) == pytest.approx(n * (n // 4) * (n // 2), rel=0.02)
    n = serial_size("sparse_la_spmv")
    assert 6 * suite.get_problem("sparse_la_spmv").sizes["paper"] == pytest.approx(int(0.1 * n * n), rel=0.02)


def test_the_suites_own_problems_are_the_rest():
    """The problems ParEval lacks (pareval.yaml's extras) have paper sizes of their own (those of ParEval's problems
    of their kind)."""
    mapped = {entry["problem"] for entry in PAREVAL["problems"].values()}
    own = {p.name for p in suite.load_suite()} - mapped
    assert own == set(PAREVAL["extras"]) and len(own) == 8
    assert all("paper" in suite.get_problem(name).sizes for name in own)
