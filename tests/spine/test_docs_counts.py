"""The counts the docs state are the suite's and the configs', computed here: docs/cluster.md said "420 prompts"
long after the suite grew to 476 (68 problems x 7 execution models).

Every "<number> prompts", "<number> problems", "ParEval's <number>", ... in README.md and docs/*.md must be one
of the counts that phrase can mean (COUNTED), each computed from workflow_scripts.pcgbench and the configs. A
count the docs need that is none of these is added to COUNTED with how it is computed, never typed in."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from workflow_scripts.common.config import load_config
from workflow_scripts.measure import suite
from workflow_scripts.pcgbench import shards, translation
from workflow_scripts.pcgbench.pareval_format import numbered_names

REPO = Path(__file__).resolve().parents[2]
DOCS = ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]


@cache
def counts() -> dict[str, int]:
    """Every count the docs state, by what it counts."""
    problems = suite.load_suite()
    models = suite.EXECUTION_MODELS
    tasks = Counter(translation.pair_name(*pair) for p in problems for pair in translation.pareval_pairs(p))
    pareval = len(numbered_names())
    tiny = load_config(REPO / "config" / "config.yaml")
    tiny_problems = [p for p in problems if p.name in tiny["pcgbench"]["problems"]]
    paper = load_config(REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml")
    types = {p.problem_type for p in problems}
    return {
        "problems": len(problems),
        "ParEval's problems": pareval,
        "the suite's own problems": len(problems) - pareval,
        "problem types": len(types),
        "ParEval's problems per type": pareval // len(types),
        "execution models": len(models),
        "prompts": len(problems) * len(models),
        "translation tasks": sum(tasks.values()),
        **{f"{pair} tasks": n for pair, n in tasks.items()},
        "ParEval's problems without the serial pairs": pareval - tasks["serial->omp"],
        "ParEval's problems without cuda->kokkos": pareval - tasks["cuda->kokkos"],
        "the tiny config's problems": len(tiny_problems),
        "the tiny config's prompts of the pretrained model": len(tiny_problems) * len(
            tiny["generate"]["models"]["smollm2_135m"]["execution_models"]),
        "the tiny config's problems with ParEval's serial translation pairs": sum(
            ("serial", "omp") in translation.pareval_pairs(p) for p in tiny_problems),
        "problems per shard at paper scale": paper["pcgbench"]["shards"]["problems_per_shard"],
        "shards per generator at paper scale": len(shards.plan_for(paper["pcgbench"])),
    }


# A phrase of the docs that states a count, and the counts it may state.
COUNTED = {
    r"\b(\d+) prompts\b": ["prompts", "the tiny config's prompts of the pretrained model", "the tiny config's problems"],
    r"\b(\d+) problems\b": ["problems", "ParEval's problems", "the suite's own problems", "the tiny config's problems",
                            "ParEval's problems without the serial pairs", "ParEval's problems without cuda->kokkos",
                            "the tiny config's problems with ParEval's serial translation pairs",
                            "problems per shard at paper scale"],
    r"\b(\d+) (?:problem )?types\b": ["problem types"],
    r"\btypes x (\d+)\b(?! =)": ["ParEval's problems per type"],  # not "12 problem types x 2 = 24 prompts"
    r"\b(\d+) execution models\b": ["execution models"],
    r"\b(\d+) (?:translation )?tasks\b": ["translation tasks", "serial->omp tasks", "serial->mpi tasks",
                                          "cuda->kokkos tasks"],
    r"\bParEval's (\d+)\b(?! ranks)": ["ParEval's problems", "translation tasks"],
    r"\b(\d+) of the suite's own\b": ["the suite's own problems"],
    r"\bthe suite's own (\d+)\b": ["the suite's own problems"],
    r"\b(\d+) per generator\b": ["shards per generator at paper scale"],
}  # fmt: skip


def stated_counts() -> list[tuple[str, str, int, list[str]]]:
    """(doc:line, phrase, number, what it may count) of every count the docs state (a line break may split one)."""
    found = []
    for doc in DOCS:
        text = (REPO / doc).read_text()
        for pattern, meanings in COUNTED.items():
            for match in re.finditer(pattern.replace(" ", r"\s+"), text):
                line = text.count("\n", 0, match.start()) + 1
                found.append((f"{doc}:{line}", " ".join(match.group(0).split()), int(match.group(1)), meanings))
    return found


def test_every_count_the_docs_state_is_computed():
    wrong = [f"{where}: '{phrase}' is none of {', '.join(f'{m} ({counts()[m]})' for m in meanings)}"
             for where, phrase, number, meanings in stated_counts() if number not in {counts()[m] for m in meanings}]
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize(("count", "value"), [("prompts", 476), ("problems", 68), ("ParEval's problems", 60),
                                              ("translation tasks", 143)])  # fmt: skip
def test_the_counts_are_what_the_docs_were_checked_against(count, value):
    """A guard on counts() itself: today's suite. When the suite grows this fails beside the docs' test, and both
    are updated together."""
    assert counts()[count] == value


def test_a_stale_count_is_caught():
    stale = [m for p, meanings in COUNTED.items() for m in meanings if re.search(p, "its 420 prompts x 20")]
    assert stale and 420 not in {counts()[m] for m in stale}
    assert any(phrase == "476 prompts" for _, phrase, _, _ in stated_counts())
