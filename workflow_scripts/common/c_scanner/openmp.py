"""OpenMP directives: their clauses, and the clause edits the studies make (HPC-Coder's pragma data set and
performance-change versions, PCGBench's mutants).

Every function is linear in its text's length. The patterns the studies used were rewritten where a search
could rescan a long stretch from many starts (a `[^)]*\\)` with no ")" after it, a lazy `[^\\n]*?` followed by
`\\s*`), each to find exactly what the pattern found.
"""

from __future__ import annotations

import re

# `#pragma omp parallel for`, at a directive's "#" (its first line; a continuation before `for` does not count).
_PARALLEL_FOR_START = re.compile(r"#[ \t]*pragma[ \t]+omp[ \t]+parallel[ \t]+for\b")
_PARALLEL_FOR_LINE = re.compile(r"(#[ \t]*pragma[ \t]+omp[ \t]+parallel[ \t]+for\b)([^\n]*)")
_PARALLEL_LINE = re.compile(r"(#[ \t]*pragma[ \t]+omp[ \t]+parallel\b)([^\n]*)")
# A clause and its argument. Linear as it is: a "(" that an argument's scan passes opens a flat group, whose
# own scan ends at its ")", so no stretch is scanned from two clauses.
_CLAUSE = re.compile(r"([a-z_]+)\s*(?:\(((?:[^()]|\([^()]*\))*)\))?")


def is_parallel_for_directive(text: str, start: int) -> bool:
    """Whether the directive whose "#" is at text[start] reads `#pragma omp parallel for` on its first line."""
    return bool(_PARALLEL_FOR_START.match(text, start))


def omp_clauses(text: str) -> list[tuple[str, str | None]]:
    """(name, argument or None) of each clause of an OpenMP directive's text (`parallel for reduction(+:s)`
    -> ("parallel", None), ("for", None), ("reduction", "+:s")): a lower-case word and, when a "(" follows, what
    lies up to its ")" (one level of nested parentheses allowed; more, or an unclosed one: no argument)."""
    return [(clause.group(1), clause.group(2)) for clause in _CLAUSE.finditer(text)]


def _without_clause(line: str, name: str) -> str:
    """`line` without its `name(...)` clauses and the whitespace before them: `re.sub(r"\\s*name\\s*\\([^)]*\\)",
    "", line)`, read once. A match starts where a whitespace run starts (never inside one) and ends at a ")", so
    nothing after the last ")" is searched."""
    last = line.rfind(")") + 1
    return re.sub(rf"(?<!\s)\s*{name}\s*\([^)]*\)", "", line[:last]) + line[last:]


def with_schedule(body: str, schedule: str) -> str:
    """`body` with `schedule` (" schedule(static)") right after each `#pragma omp parallel for`, and the
    line's other schedule clauses removed."""
    return _PARALLEL_FOR_LINE.sub(lambda m: m.group(1) + schedule + _without_clause(m.group(2), "schedule"), body)


def with_one_thread(body: str) -> str:
    """`body` with ` num_threads(1)` at the end of each `#pragma omp parallel` line (in place of its own
    num_threads clauses): after the other clauses, as `parallel num_threads(1) for` would not parse."""
    return _PARALLEL_LINE.sub(
        lambda m: m.group(1) + _without_clause(m.group(2), "num_threads").rstrip() + " num_threads(1)", body)


# ---------------------------------------------------------------------------------------------------------
# Reductions (PCGBench's missing-reduction and data-race mutants)

_PARALLEL_FOR_HEAD = re.compile(r"#\s*pragma\s+omp\s+parallel\s+for")
_PARALLEL_HEAD = re.compile(r"(#\s*pragma\s+omp\s+parallel)\s+for")
# From a `parallel for`'s end: the rest of its line up to a non-space (or nothing), then `reduction (`.
_TO_REDUCTION = re.compile(r"((?:[^\n]*?[^\s])??)\s*reduction\s*\(")
_REDUCTION_OPEN = re.compile(r"reduction\s*\((\s*)")


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def without_first_reduction(body: str) -> str | None:
    """`body` without the first `reduction(...)` clause (and the spaces before it) of a `#pragma omp parallel
    for`, or None when there is none: `(#\\s*pragma\\s+omp\\s+parallel\\s+for[^\\n]*?)\\s*reduction\\s*\\([^)]*\\)`
    replaced by its group. A failed line's later `parallel for`s would fail too, so the search goes on after it."""
    pos = 0
    while head := _PARALLEL_FOR_HEAD.search(body, pos):
        found = _TO_REDUCTION.match(body, head.end())
        if found:
            close = body.find(")", found.end())
            return None if close < 0 else body[: found.end(1)] + body[close + 1 :]
        pos = _line_end(body, head.end())
    return None


def without_for_of_first_reduction(body: str) -> str | None:
    """`body` with `for` dropped from the first `#pragma omp parallel for` whose line has a `reduction` after it
    (the loop's iterations are no longer shared: every thread runs them all), or None when there is none."""
    pos = 0
    while head := _PARALLEL_HEAD.search(body, pos):
        line_end = _line_end(body, head.end())
        if body.find("reduction", head.end(), line_end) >= 0:
            return body[: head.end(1)] + body[head.end() :]
        pos = line_end
    return None


def reduction_operators(directive: str) -> list[str]:
    """The operator of each `reduction(op: ...)` clause of a directive's text, in order (`+`, `max`, ...):
    what `reduction\\s*\\(\\s*([^:]+?)\\s*:` finds."""
    found, pos = [], 0
    while head := _REDUCTION_OPEN.search(directive, pos):
        colon = directive.find(":", head.end())
        if colon < 0:  # every later clause needs a ":" too
            break
        operator = directive[head.end() : colon].rstrip()
        if not operator and head.group(1):  # only spaces before the ":": the pattern keeps the last of them
            operator = directive[colon - 1]
        if operator:
            found.append(operator)
            pos = colon + 1
        else:
            pos = head.start() + 1
    return found
