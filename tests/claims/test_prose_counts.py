"""Counts of PCGBench's problems, prompts and tasks written in hand-made prose (the report's front page, the claims
file, the paper config's comments) are held to the suite: each must be ParEval's count (its problems that the
suite maps, data/pcgbench/pareval.yaml) or the whole suite's, so a problem added to the suite cannot leave a stale
count on the report. The counts a run makes (its prompts, its problems) are computed into the pages instead."""

import re
from pathlib import Path

import pytest

from workflow_scripts.measure import suite
from workflow_scripts.pcgbench import pareval_format

REPO = Path(__file__).resolve().parents[2]
PROSE = ("rules/captions/workflow.rst", "data/claims.yaml", "data/headlines.yaml", "config/paper.yaml")
COUNT = re.compile(r"\b(\d+) (problems|prompts|tasks|execution models|types)\b")


def suite_counts() -> dict[str, set[int]]:
    """The counts prose may state, by noun: ParEval's (the problems of the suite that ParEval has) and the suite's."""
    models, types = len(suite.EXECUTION_MODELS), len(suite.PROBLEM_TYPES)
    pareval, everything = len(pareval_format.pareval_names()), len(suite.load_suite())
    return {"problems": {pareval, everything}, "prompts": {pareval * models, everything * models},
            "tasks": {pareval * models, everything * models}, "execution models": {models}, "types": {types}}


def stale_counts(text: str, allowed: dict[str, set[int]]) -> list[str]:
    """The counts in `text` that look like a count of the whole suite (within a quarter of one; a shard's
    "10 problems" or a task set's "143 translation tasks" is not) and are not one."""
    found = COUNT.findall(" ".join(text.split()))
    return [f"{count} {noun}" for count, noun in found if int(count) not in allowed[noun]
            and any(abs(int(count) - size) <= size / 4 for size in allowed[noun])]  # fmt: skip


@pytest.mark.parametrize("path", PROSE)
def test_counts_in_prose_are_the_suites(path):
    text = (REPO / path).read_text(encoding="utf-8")
    if path.startswith("config/"):  # a config's prose is its comments
        text = "\n".join(line.partition("#")[2] for line in text.splitlines())
    allowed = suite_counts()
    stale = stale_counts(text, allowed)
    assert stale == [], f"{path} states {stale}; the suite has {allowed} (compute the count, or leave it out)"


def test_the_check_catches_a_stale_count():
    allowed = suite_counts()
    assert stale_counts("config/paper.yaml runs all 60 x 7: 420 tasks (61 problems), 10 problems a shard", allowed) == [
        "61 problems"]
    assert stale_counts(f"the suite has {max(allowed['prompts']) + 7} prompts", allowed) != []
