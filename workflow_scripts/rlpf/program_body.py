"""A completion of an RLPF task read as the program the harness builds (and the completion that names pragmas).

Kind `pragma`: line k of the completion is the pragma (or `serial`) of the kernel's k-th top-level loop (the
format is in rlpf/tasks.py); `program_body` inserts the pragmas into the kernel's body, or returns None when a
line is neither `serial` nor a pragma the task set allows (a malformed completion is never compiled). Kind
`function`: the completion is a whole function body, extracted as the generation stage extracts it.

Input: a task (rlpf/tasks.py) and a completion (text). Output: the function body (text after the signature's
"{", closing "}" included) or None. No command of its own: the reward, candidates and evaluation steps call it.

    from workflow_scripts.rlpf.program_body import program_body
    body = program_body(task, "#pragma omp parallel for reduction(+:acc)\n")
"""

import re

from workflow_scripts.common.c_scanner import top_level_loops
from workflow_scripts.generate.extract import extract_body
from workflow_scripts.rlpf.tasks import Task

SERIAL_LINE = "serial"
# What a completion line may be, per task set. Anything else is malformed (never compiled).
_PRAGMA_LINE = {
    "omp": re.compile(r"^#pragma omp parallel for(?: [a-z_]+(?:\([A-Za-z0-9_+*^&|:, ]*\))?)*$"),
    "serial": re.compile(r"^#pragma (?:GCC unroll [0-9]{1,2}|GCC ivdep|omp simd(?: [a-z_]+\([A-Za-z0-9_+*^&|:, ]*\))*)$"),
}


def parse_completion(completion: str, n_loops: int, task_set: str) -> list[str] | None:
    """The pragma (or "" for serial) of each top-level loop, or None when the completion is malformed."""
    lines = [ln.strip() for ln in completion.strip().splitlines() if ln.strip()][:n_loops]
    if not lines:
        return None
    pragmas = []
    for line in lines:
        if line == SERIAL_LINE:
            pragmas.append("")
        elif _PRAGMA_LINE[task_set].match(line):
            pragmas.append(line)
        else:
            return None
    return pragmas + [""] * (n_loops - len(pragmas))


def apply_pragmas(body: str, pragmas: list[str]) -> str:
    """The body with pragma k inserted on its own line, at the loop's indentation, before top-level loop k."""
    loops = top_level_loops(body)
    if len(pragmas) != len(loops):
        raise ValueError(f"{len(pragmas)} pragmas for {len(loops)} top-level loops")
    out, last = [], 0
    for (line_start, _), pragma in zip(loops, pragmas, strict=True):
        out.append(body[last:line_start])
        if pragma:
            indent = re.match(r"[ \t]*", body[line_start:]).group(0)
            out.append(f"{indent}{pragma}\n")
        last = line_start
    out.append(body[last:])
    return "".join(out)


def program_body(task: Task, completion: str) -> str | None:
    """The function body a completion makes (what the harness builds), or None when it is malformed."""
    if task.kind == "function":
        # Leading blank lines do not change the program; dropping them lets equal programs share one measurement.
        body = extract_body(task.prompt, completion).lstrip("\n")
        return body if body.strip() else None
    pragmas = parse_completion(completion, task.n_loops, task.task_set)
    return apply_pragmas(task.body, pragmas) if pragmas is not None else None


def completion_text(pragmas: list[str]) -> str:
    """The completion that names `pragmas` (one line per loop; "" is written as `serial`)."""
    return "".join((p or SERIAL_LINE) + "\n" for p in pragmas)
