"""The loop-optimisation task a tiny code LM can learn on a CPU, and its seeded train/held-out split.

A task is one kernel (the serial reference of a PCGBench problem: a real, validated, timed kernel) in one
task set:

    openmp   the completion names an OpenMP pragma (or `serial`) for each top-level loop of the kernel;
             the harness inserts them, builds the kernel as an OpenMP sample and times it on 2 threads
             against the serial baseline, after validating it (a missing reduction or a race is caught).
    serial   the completion names serial optimisation hints per loop (`#pragma GCC unroll N`,
             `#pragma GCC ivdep`, `#pragma omp simd` with or without a reduction clause), timed on 1 thread.
             It is built as an OpenMP sample run with OMP_NUM_THREADS=1: the suite compiles serial samples
             without -fopenmp, which would silently drop `omp simd`, the one hint that changes what -O3 does
             on these kernels (it lets GCC vectorise a floating-point reduction, which -O3 alone may not
             reorder). The grammar admits no thread-level pragma, so the program stays sequential.

Prompt (what the model sees) and completion (what it writes), for a kernel with one top-level loop:

    // task: openmp, 2 threads; one line per top-level loop (1): a pragma or `serial`
    double sum_of_mins(std::vector<double> const& x, std::vector<double> const& y) {
      double acc = 0.0;
      ...
    }
    // pragmas:
    #pragma omp parallel for reduction(+:acc)          <- the completion

Line k of the completion applies to the k-th top-level loop; lines past the last loop are ignored; a line
that is neither `serial` nor an allowed pragma makes the whole completion malformed (scored as a build
failure: it is not a program).

That is task kind `pragma` (the default config). Kind `function` (the paper config) is full-function
generation on PCGBench tasks: the prompt is the PCGBench prompt of the kernel's problem for the task set's
execution model (serial or OpenMP), the completion a whole function body (extracted as the generation stage
extracts it), built, validated and timed by the same harness. Its candidates are the PCGBench reference body,
the serial baseline body, and the pragma candidates applied to the serial body (races and slow schedules
among them).

Renamed variants (training data augmentation, `renamings` per training kernel, kind `pragma` only). Most
training kernels call their accumulator `acc` or `best`, so a model trained on them learns the literal text
`reduction(+:acc)` instead of "name the variable the loop accumulates into". A variant renames the kernel's
local variables (every scalar or pointer declared in the body, loop indices and `n` included; never a
parameter, whose name is fixed by the harness's signature) with a seeded, collision-free choice from a fixed
pool of common C names, and applies the same renaming to the completions. Renaming locals consistently does
not change what the program computes, so the variant is the same kernel; its programs are still built and
measured as what they are (the cache key is the program text), and rule rlpf_candidates measures some of the
renamed candidates to check that they score as their originals. A variant is a training task of its kernel:
held-out kernels get none.

    python -m workflow_scripts.rlpf.task OUT.json     # (from Snakemake: rule rlpf_tasks)
"""

import dataclasses
import hashlib
import logging
import random
import re

from workflow_scripts.common.config import schema_default
from workflow_scripts.pcgbench import suite

logger = logging.getLogger(__name__)

TASK_SETS = {"openmp": "omp", "serial": "omp"}  # task set -> PCGBench execution model it is built as (see above)
FUNCTION_MODELS = {"openmp": "omp", "serial": "serial"}  # kind `function`: the PCGBench prompt's model
TASK_THREADS = {"openmp": 2, "serial": 1}
TASK_KINDS = ("pragma", "function")
SERIAL_LINE = "serial"
PROMPT_TAIL = "// pragmas:\n"
# What a completion line may be, per task set. Anything else is malformed (never compiled).
_PRAGMA_LINE = {
    "openmp": re.compile(r"^#pragma omp parallel for(?: [a-z_]+(?:\([A-Za-z0-9_+*^&|:, ]*\))?)*$"),
    "serial": re.compile(r"^#pragma (?:GCC unroll [0-9]{1,2}|GCC ivdep|omp simd(?: [a-z_]+\([A-Za-z0-9_+*^&|:, ]*\))*)$"),
}
_FOR = re.compile(r"\bfor\s*\(")
_DECL = re.compile(r"^\s*(?:const\s+)?(?:double|float|int|long long|long|unsigned|size_t|std::size_t)\s+([^;]+);",
                   re.M)  # fmt: skip


@dataclasses.dataclass(kw_only=True)
class TaskConfig:
    """Config section `rlpf.tasks`."""

    kernels: list[str]  # PCGBench problem names whose serial reference is a kernel
    held_out: int  # kernels kept out of every training set (chosen by a seeded shuffle)
    task_sets: list[str]  # "openmp" and/or "serial"
    # kernels whose prompt is longer are dropped (the tiny model has 256 positions)
    max_prompt_tokens: int = schema_default("rlpf.tasks.max_prompt_tokens")
    # "pragma": pragmas for the kernel's loops; "function": a whole PCGBench function body
    kind: str = schema_default("rlpf.tasks.kind")
    # renamed variants per training kernel and task set (local names changed; see above)
    renamings: int = schema_default("rlpf.tasks.renamings")

    def __post_init__(self) -> None:
        if len(set(self.kernels)) != len(self.kernels) or len(self.kernels) < 2:
            raise ValueError(f"rlpf.tasks.kernels must list at least 2 distinct problems, got {self.kernels}")
        if not 1 <= self.held_out < len(self.kernels):
            raise ValueError(f"rlpf.tasks.held_out must be in [1, {len(self.kernels) - 1}], got {self.held_out}")
        bad = [t for t in self.task_sets if t not in TASK_SETS]
        if bad or not self.task_sets:
            raise ValueError(f"rlpf.tasks.task_sets: unknown {bad}; allowed {sorted(TASK_SETS)}")
        if self.kind not in TASK_KINDS:
            raise ValueError(f"rlpf.tasks.kind must be one of {TASK_KINDS}, got {self.kind!r}")
        if self.max_prompt_tokens < 16:
            raise ValueError(f"rlpf.tasks.max_prompt_tokens must be >= 16, got {self.max_prompt_tokens}")
        if self.renamings < 0 or (self.renamings and self.kind != "pragma"):
            raise ValueError(f"rlpf.tasks.renamings must be >= 0, and 0 for kind 'function', got {self.renamings}")


@dataclasses.dataclass(frozen=True)
class Task:
    task_id: str  # "<task_set>/<kernel>"
    kernel: str  # PCGBench problem name
    task_set: str  # openmp | serial
    split: str  # train | held_out
    signature: str
    body: str  # the serial reference body (text after "{", closing "}" included), comments stripped
    n_loops: int
    prompt: str
    kind: str = "pragma"  # one of TASK_KINDS
    origin: str = ""  # a renamed variant: the task_id of the task it renames ("" for an original task)
    renaming: tuple[tuple[str, str], ...] = ()  # a renamed variant: (original name, new name) of each local

    @property
    def model(self) -> str:
        return (FUNCTION_MODELS if self.kind == "function" else TASK_SETS)[self.task_set]

    @property
    def threads(self) -> int:
        return TASK_THREADS[self.task_set]


# ---------------------------------------------------------------------------------------------------------
# Loops of a kernel body


def strip_comments(body: str) -> str:
    """Drop // comments and the lines they leave empty (the prompt is short; the kernel is unchanged)."""
    lines = []
    for line in body.splitlines():
        code = line.split("//", 1)[0].rstrip()
        if code.strip():
            lines.append(code)
    return "\n".join(lines) + "\n"


def _match(text: str, start: int, open_: str, close: str) -> int:
    """Index just past the bracket matching text[start] (== open_)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced {open_}{close} in kernel body")


def _statement_end(text: str, pos: int) -> int:
    """End of the statement starting at `pos` (a block, a nested for, or a simple statement)."""
    while text[pos].isspace():
        pos += 1
    if text[pos] == "{":
        return _match(text, pos, "{", "}")
    m = _FOR.match(text, pos)
    if m:
        return _statement_end(text, _match(text, m.end() - 1, "(", ")"))
    depth = 0
    for i in range(pos, len(text)):
        if text[i] in "({[":
            depth += 1
        elif text[i] in ")}]":
            depth -= 1
        elif text[i] == ";" and depth == 0:
            return i + 1
    raise ValueError("unterminated statement in kernel body")


def top_level_loops(body: str) -> list[tuple[int, int]]:
    """(line start, loop end) of each `for` at the function's top level that begins its own line.

    `body` starts after the signature's "{" (depth 0 is the function body). Loops nested in another
    statement or preceded by code on their line (`if (...) for`) are not candidates for a pragma.
    """
    loops, depth, i = [], 0, 0
    while i < len(body):
        ch = body[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and (m := _FOR.match(body, i)) and (i == 0 or not (body[i - 1].isalnum() or body[i - 1] == "_")):
            line_start = body.rfind("\n", 0, i) + 1
            end = _statement_end(body, _match(body, m.end() - 1, "(", ")"))
            if body[line_start:i].strip() == "":
                loops.append((line_start, end))
            i = end
            continue
        i += 1
    return loops


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
        from workflow_scripts.generate.extract import extract_body

        # Leading blank lines do not change the program; dropping them lets equal programs share one measurement.
        body = extract_body(task.prompt, completion).lstrip("\n")
        return body if body.strip() else None
    pragmas = parse_completion(completion, task.n_loops, task.task_set)
    return apply_pragmas(task.body, pragmas) if pragmas is not None else None


def completion_text(pragmas: list[str]) -> str:
    """The completion that names `pragmas` (one line per loop; "" is written as `serial`)."""
    return "".join((p or SERIAL_LINE) + "\n" for p in pragmas)


# ---------------------------------------------------------------------------------------------------------
# Candidate pragmas (the measured data SFT, DPO and the reward model learn from)


def reduction_clauses(body: str, loop: tuple[int, int]) -> list[str]:
    """`reduction(op:var)` for each scalar declared before the loop that the loop accumulates into.

    Recognised forms: `v += e`, `v -= e`, `v ^= e`, `v = v OP e` (OP in + * ^ | &), `if (e < v) v = e` (min)
    and `if (e > v) v = e` (max). A kernel that needs anything else gets no reduction candidate: the
    harness then sees the race when validating the plain `parallel for`.
    """
    before, loop_text = body[: loop[0]], body[loop[0] : loop[1]]
    scalars = []
    for decl in _DECL.findall(before):
        for part in decl.split(","):
            name = re.match(r"\s*\*?\s*([A-Za-z_]\w*)", part)
            if name and name.group(1) not in scalars:
                scalars.append(name.group(1))
    clauses = []
    for v in scalars:
        op = None
        if re.search(rf"\b{v}\s*([+\-^])=", loop_text):
            op = re.search(rf"\b{v}\s*([+\-^])=", loop_text).group(1)
        elif m := re.search(rf"\b{v}\s*=\s*{v}\s*([+*^|&])", loop_text):
            op = m.group(1)
        elif re.search(rf"if\s*\(\s*\w+\s*<\s*{v}\s*\)\s*{v}\s*=", loop_text):
            op = "min"
        elif re.search(rf"if\s*\(\s*\w+\s*>\s*{v}\s*\)\s*{v}\s*=", loop_text):
            op = "max"
        if op:
            clauses.append(f"reduction({op}:{v})")
    return clauses


def candidate_completions(task: Task, max_candidates: int) -> list[str]:
    """A deterministic list of completions worth measuring: all serial, and per loop a plain parallel for,
    with the detected reductions, and with schedules that are sometimes right and sometimes slow."""
    if task.kind == "function":
        problem = suite.get_problem(task.kernel)
        pragma_task = dataclasses.replace(task, kind="pragma")
        bodies = [suite.reference_body(problem, task.model), task.body]
        bodies += [program_body(pragma_task, c) for c in candidate_completions(pragma_task, max_candidates)[1:]]
        return list(dict.fromkeys(bodies))[:max_candidates]
    loops = top_level_loops(task.body)
    n = len(loops)
    cands = [completion_text([""] * n)]
    for k, loop in enumerate(loops):
        def on_loop(pragma: str, k: int = k) -> str:
            return completion_text([pragma if j == k else "" for j in range(n)])

        if task.task_set == "openmp":
            red = " ".join(reduction_clauses(task.body, loop))
            base = "#pragma omp parallel for" + (f" {red}" if red else "")
            cands += [on_loop(base), on_loop(base + " schedule(dynamic,1)"), on_loop(base + " schedule(static)")]
            if red:
                cands.append(on_loop("#pragma omp parallel for"))  # the missing reduction: a race
            inner = task.body[loop[0] : loop[1]]
            if len(_FOR.findall(inner)) > 1:
                cands.append(on_loop(base + " collapse(2)"))
        else:
            red = " ".join(reduction_clauses(task.body, loop))
            if red:  # vectorising a floating-point reduction is the hint that can beat -O3; without the clause
                cands.append(on_loop(f"#pragma omp simd {red}"))  # the vector lanes race on the accumulator
            cands += [on_loop("#pragma omp simd"), on_loop("#pragma GCC unroll 4"), on_loop("#pragma GCC ivdep"),
                      on_loop("#pragma GCC unroll 16")]  # fmt: skip
    seen = list(dict.fromkeys(cands))
    return seen[:max_candidates]


# ---------------------------------------------------------------------------------------------------------
# Renamed variants (training data augmentation; see the module docstring)

# New names are drawn from this fixed list of common C/C++ local names. It is generic, not tuned to the split: some
# of its names occur in suite kernels, held-out ones included (`count`, `best`, `running`), as they would in any code.
RENAME_POOL = ("acc", "sum", "total", "count", "result", "res", "best", "value", "val", "out", "agg", "cur", "tmp",
               "s", "t", "r", "v", "m", "c", "a", "b", "z", "w", "h", "k", "j", "p", "q", "u", "idx", "pos", "len",
               "size_n", "num", "cnt", "partial", "running", "local", "score", "top", "prod", "mask", "bits",
               "hits", "tally", "accum", "ans", "ret", "lim", "end", "stop", "bound", "row_ptr", "ptr", "it",
               "ii", "jj", "kk", "elem", "item", "x0", "y0", "lo", "hi", "mx", "mn", "extreme", "peak", "base_v")
_FOR_INDEX = re.compile(r"\bfor\s*\(\s*(?:const\s+)?(?:double|float|int|long long|long|unsigned|size_t|std::size_t)"
                        r"\s+([A-Za-z_]\w*)\s*=")  # fmt: skip
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _top_level_parts(decl: str) -> list[str]:
    """The comma-separated declarators of a declaration, split only outside brackets (`a = f(x, y), b`)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(decl):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(decl[start:i])
            start = i + 1
    return parts + [decl[start:]]


def local_names(body: str, signature: str) -> list[str]:
    """Names the body declares (scalars, pointers, loop indices), in order of first declaration; no parameter."""
    params = set(_IDENT.findall(signature))
    names = []
    for decl in _DECL.findall(body):
        for part in _top_level_parts(decl):
            m = re.match(r"\s*\*?\s*([A-Za-z_]\w*)", part)
            if m:
                names.append(m.group(1))
    names += _FOR_INDEX.findall(body)
    return [n for n in dict.fromkeys(names) if n not in params]


def rename_identifiers(text: str, renaming: dict[str, str]) -> str:
    """`text` with every identifier in `renaming` replaced at once (swaps are safe); a member or qualified name
    (`x.size`, `p->n`, `std::max`) is not a local and is left alone."""
    if not renaming:
        return text
    pattern = re.compile(r"(?<![\w.])(?<!->)(?<!::)(" + "|".join(map(re.escape, renaming)) + r")\b")
    return pattern.sub(lambda m: renaming[m.group(1)], text)


def choose_renaming(body: str, signature: str, rng: random.Random) -> dict[str, str]:
    """A collision-free renaming of the body's locals: each gets a pool name that no identifier of the
    signature or body uses (so no local is captured by another, and no parameter, type or call is shadowed)."""
    taken = set(_IDENT.findall(signature)) | set(_IDENT.findall(body))
    free = [n for n in RENAME_POOL if n not in taken]
    names = local_names(body, signature)
    if len(free) < len(names):
        return {}
    return dict(zip(names, rng.sample(free, len(names)), strict=True))


def renamed_variant(task: Task, variant: int, seed: int) -> Task | None:
    """Variant `variant` (1, 2, ...) of an original pragma task, or None when the kernel declares no local."""
    rng = random.Random(f"{seed}:{task.kernel}:{variant}")  # the same renaming in every task set of the kernel
    renaming = choose_renaming(task.body, task.signature, rng)
    if not renaming:
        return None
    body = rename_identifiers(task.body, renaming)
    return dataclasses.replace(task, task_id=f"{task.task_id}@r{variant}", body=body, origin=task.task_id,
                               prompt=make_prompt(task.task_set, task.signature, body, task.n_loops),
                               renaming=tuple(renaming.items()))  # fmt: skip


def rename_completion(task: Task, completion: str) -> str:
    """An original task's completion written for its renamed variant `task` (the clauses name the new locals)."""
    return rename_identifiers(completion, dict(task.renaming))


# ---------------------------------------------------------------------------------------------------------
# Tasks and the split


def make_prompt(task_set: str, signature: str, body: str, n_loops: int) -> str:
    what = "a pragma or `serial`" if task_set == "openmp" else "a hint pragma or `serial`"
    threads = TASK_THREADS[task_set]
    header = f"// task: {task_set}, {threads} thread{'s' if threads > 1 else ''}; one line per top-level loop ({n_loops}): {what}\n"
    return header + signature + " {\n" + body + PROMPT_TAIL


def split_kernels(kernels: list[str], held_out: int, seed: int) -> dict[str, str]:
    """{kernel: "train" | "held_out"}: a seeded shuffle of the sorted names, the first `held_out` held out."""
    order = sorted(kernels)
    random.Random(seed).shuffle(order)
    return {k: ("held_out" if i < held_out else "train") for i, k in enumerate(order)}


def build_tasks(cfg: TaskConfig, seed: int, token_count=None) -> list[Task]:
    """Every (task set, kernel) task with its split. `token_count(text) -> int` drops over-long prompts."""
    split = split_kernels(cfg.kernels, cfg.held_out, seed)
    tasks = []
    for kernel in cfg.kernels:
        problem = suite.get_problem(kernel)
        body = strip_comments(suite.reference_body(problem, "serial"))
        n_loops = len(top_level_loops(body))
        if n_loops == 0 and cfg.kind == "pragma":
            logger.warning("%s: no top-level loop that starts its own line; dropped", kernel)
            continue
        signature = problem.signatures["vector"]
        for task_set in cfg.task_sets:
            if cfg.kind == "function":
                prompt = suite.prompt(problem, FUNCTION_MODELS[task_set])
            else:
                prompt = make_prompt(task_set, signature, body, n_loops)
            if token_count is not None and token_count(prompt) > cfg.max_prompt_tokens:
                logger.warning("%s/%s: prompt of %d tokens > %d; dropped", task_set, kernel, token_count(prompt),
                               cfg.max_prompt_tokens)  # fmt: skip
                continue
            task = Task(task_id=f"{task_set}/{kernel}", kernel=kernel, task_set=task_set, split=split[kernel],
                        signature=signature, body=body, n_loops=n_loops, prompt=prompt, kind=cfg.kind)  # fmt: skip
            tasks.append(task)
            if task.split != "train":
                continue  # a held-out kernel is never renamed: no variant of it may reach training
            for variant in range(1, cfg.renamings + 1):
                renamed = renamed_variant(task, variant, seed)
                if renamed is None or (token_count is not None and token_count(renamed.prompt) > cfg.max_prompt_tokens):
                    continue
                tasks.append(renamed)
    return tasks


def training_tasks(tasks: list[Task]) -> list[Task]:
    """The only tasks any training step may see (SFT, DPO, RL, the reward model), renamed variants included."""
    return [t for t in tasks if t.split == "train"]


def original_tasks(tasks: list[Task]) -> list[Task]:
    """The tasks that are not renamed variants."""
    return [t for t in tasks if not t.origin]


def task_to_dict(task: Task) -> dict:
    return dataclasses.asdict(task)


def task_from_dict(row: dict) -> Task:
    fields = {f.name: row[f.name] for f in dataclasses.fields(Task) if f.name in row}
    fields["renaming"] = tuple(tuple(pair) for pair in fields.get("renaming", ()))  # JSON gives lists
    return Task(**fields)


def tasks_digest(tasks: list[Task]) -> str:
    return hashlib.sha256("\0".join(t.task_id + t.split + t.prompt for t in tasks).encode()).hexdigest()[:16]


def main(out_path, *, tasks_cfg: dict, tokenizer_dir, seed: int) -> list[Task]:
    """Write the task list (prompts, bodies, split) to `out_path` (JSON)."""
    from transformers import AutoTokenizer

    from workflow_scripts.common import Provenance, write_json

    prov = Provenance.start(step="rlpf.tasks", config=tasks_cfg, seed=seed)
    cfg = TaskConfig(**tasks_cfg)
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    tasks = build_tasks(cfg, seed, token_count=lambda text: len(tokenizer(text)["input_ids"]))
    for split in ("train", "held_out"):
        names = sorted({t.kernel for t in tasks if t.split == split})
        logger.info("%s kernels (%d): %s", split, len(names), ", ".join(names))
    logger.info("%d renamed training variants", sum(bool(t.origin) for t in tasks))
    if not training_tasks(tasks) or len(training_tasks(tasks)) == len(tasks):
        raise ValueError("rlpf.tasks: the split left no training or no held-out task; change kernels or held_out")
    write_json(out_path, {"digest": tasks_digest(tasks), "seed": seed, "tasks": [task_to_dict(t) for t in tasks]})
    prov.finish([out_path])
    return tasks


if __name__ == "__main__":
    from workflow_scripts.common import configure_logging

    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(smk.output.tasks, tasks_cfg=smk.params.tasks, tokenizer_dir=smk.input.model, seed=smk.params.seed)
