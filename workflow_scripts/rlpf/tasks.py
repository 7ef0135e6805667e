"""The loop-optimisation tasks a tiny code LM can learn on a CPU, and their seeded train/held-out split.

A task is one kernel (the serial reference of a PCGBench problem: a real, validated, timed kernel) in one
task set:

    omp      the completion names an OpenMP pragma (or `serial`) for each top-level loop of the kernel;
             the harness inserts them, builds the kernel as an OpenMP sample and times it on 2 threads
             against the serial baseline, after validating it (a missing reduction or a race is caught).
    serial   the completion names serial optimisation hints per loop (`#pragma GCC unroll N`,
             `#pragma GCC ivdep`, `#pragma omp simd` with or without a reduction clause), timed on 1 thread.
             It is built as an OpenMP sample run with OMP_NUM_THREADS=1: the suite compiles serial samples
             without -fopenmp, which would silently drop `omp simd`, the one hint that changes what -O3 does
             on these kernels (it lets GCC vectorise a floating-point reduction, which -O3 alone may not
             reorder). The grammar admits no thread-level pragma, so the program stays sequential.

Prompt (what the model sees) and completion (what it writes), for a kernel with one top-level loop:

    // task: omp, 2 threads; one line per top-level loop (1): a pragma or `serial`
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

Renamed variants of training tasks (`renamings` per training kernel and task set; see rlpf/renaming.py) are
tasks too: the same kernel with its locals renamed; held-out kernels get none.

Modules: this one builds the task list; rlpf/program_body.py reads a completion into the program the harness
builds; rlpf/renaming.py renames a kernel's locals; rlpf/candidates.py lists and measures candidate completions.

Input: the config section `rlpf.tasks`, the PCGBench suite (data/pcgbench), the tokenizer of the model
(prompts longer than `max_prompt_tokens` are dropped). Output: the task list (JSON: digest, seed, tasks).

    snakemake results/rlpf/tasks.json              # rule rlpf_tasks (rules/rlpf.smk)
    python -m workflow_scripts.rlpf.tasks OUT.json [--config config/config.yaml] [--tokenizer DIR]
"""

import argparse
import dataclasses
import hashlib
import logging
import random

from workflow_scripts.common.c_scanner import strip_line_comments, top_level_loops
from workflow_scripts.common.config import schema_default
from workflow_scripts.measure import get_problem, reference_body
from workflow_scripts.measure import prompt as problem_prompt
from workflow_scripts.rlpf.renaming import choose_renaming, rename_identifiers

logger = logging.getLogger(__name__)

TASK_SETS = {"omp": "omp", "serial": "omp"}  # task set -> PCGBench execution model it is built as (see above)
# kind `function`: task set -> the execution model of the PCGBench prompt
FUNCTION_EXEC_MODELS = {"omp": "omp", "serial": "serial"}
TASK_THREADS = {"omp": 2, "serial": 1}
TASK_KINDS = ("pragma", "function")
PROMPT_TAIL = "// pragmas:\n"


@dataclasses.dataclass(kw_only=True)
class TaskConfig:
    """Config section `rlpf.tasks`."""

    kernels: list[str]  # PCGBench problem names whose serial reference is a kernel
    held_out_kernels: int  # kernels kept out of every training set (chosen by a seeded shuffle)
    task_sets: list[str]  # "omp" and/or "serial"
    # kernels whose prompt is longer are dropped (the tiny model has 256 positions)
    max_prompt_tokens: int = schema_default("rlpf.tasks.max_prompt_tokens")
    # "pragma": pragmas for the kernel's loops; "function": a whole PCGBench function body
    kind: str = schema_default("rlpf.tasks.kind")
    # renamed variants per training kernel and task set (local names changed; see above)
    renamings: int = schema_default("rlpf.tasks.renamings")

    def __post_init__(self) -> None:
        if len(set(self.kernels)) != len(self.kernels) or len(self.kernels) < 2:
            raise ValueError(f"rlpf.tasks.kernels must list at least 2 distinct problems, got {self.kernels}")
        if not 1 <= self.held_out_kernels < len(self.kernels):
            raise ValueError(f"rlpf.tasks.held_out_kernels must be in [1, {len(self.kernels) - 1}], got "
                             f"{self.held_out_kernels}")
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
    task_set: str  # omp | serial
    split: str  # train | held_out
    signature: str
    body: str  # the serial reference body (text after "{", closing "}" included), comments stripped
    n_loops: int
    prompt: str
    kind: str = "pragma"  # one of TASK_KINDS
    origin: str = ""  # a renamed variant: the task_id of the task it renames ("" for an original task)
    renaming: tuple[tuple[str, str], ...] = ()  # a renamed variant: (original name, new name) of each local

    @property
    def exec_model(self) -> str:
        """The PCGBench execution model the task's programs are built and run as (omp | serial)."""
        return (FUNCTION_EXEC_MODELS if self.kind == "function" else TASK_SETS)[self.task_set]

    @property
    def threads(self) -> int:
        return TASK_THREADS[self.task_set]


# ---------------------------------------------------------------------------------------------------------
# Prompts, renamed variants and the split


def strip_comments(body: str) -> str:
    """Drop // comments and the lines they leave empty (the prompt is short; the kernel is unchanged)."""
    lines = [line.rstrip() for line in strip_line_comments(body).splitlines()]
    return "\n".join(line for line in lines if line.strip()) + "\n"


def make_prompt(task_set: str, signature: str, body: str, n_loops: int) -> str:
    """The pragma task's prompt: a header naming the task set and the number of loops, the kernel, the tail."""
    what = "a pragma or `serial`" if task_set == "omp" else "a hint pragma or `serial`"
    threads = TASK_THREADS[task_set]
    header = f"// task: {task_set}, {threads} thread{'s' if threads > 1 else ''}; one line per top-level loop ({n_loops}): {what}\n"
    return header + signature + " {\n" + body + PROMPT_TAIL


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


def split_kernels(kernels: list[str], held_out_kernels: int, seed: int) -> dict[str, str]:
    """{kernel: "train" | "held_out"}: a seeded shuffle of the sorted names, the first `held_out_kernels` of them
    held out."""
    order = sorted(kernels)
    random.Random(seed).shuffle(order)
    return {k: ("held_out" if i < held_out_kernels else "train") for i, k in enumerate(order)}


def build_tasks(cfg: TaskConfig, seed: int, token_count=None) -> list[Task]:
    """Every (task set, kernel) task with its split. `token_count(text) -> int` drops over-long prompts."""
    split = split_kernels(cfg.kernels, cfg.held_out_kernels, seed)
    tasks = []
    for kernel in cfg.kernels:
        problem = get_problem(kernel)
        body = strip_comments(reference_body(problem, "serial"))
        n_loops = len(top_level_loops(body))
        if n_loops == 0 and cfg.kind == "pragma":
            logger.warning("%s: no top-level loop that starts its own line; dropped", kernel)
            continue
        signature = problem.signatures["vector"]
        for task_set in cfg.task_sets:
            if cfg.kind == "function":
                prompt = problem_prompt(problem, FUNCTION_EXEC_MODELS[task_set])
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
    from workflow_scripts.common import Provenance, write_json
    from workflow_scripts.common.model_source import load_tokenizer, resolve

    prov = Provenance.start(step="rlpf.tasks", config=tasks_cfg, seed=seed)
    cfg = TaskConfig(**tasks_cfg)
    tokenizer = load_tokenizer(resolve(tokenizer_dir, key="rlpf.base_model"))
    tasks = build_tasks(cfg, seed, token_count=lambda text: len(tokenizer(text)["input_ids"]))
    for split in ("train", "held_out"):
        names = sorted({t.kernel for t in tasks if t.split == split})
        logger.info("%s kernels (%d): %s", split, len(names), ", ".join(names))
    logger.info("%d renamed training variants", sum(bool(t.origin) for t in tasks))
    if not training_tasks(tasks) or len(training_tasks(tasks)) == len(tasks):
        raise ValueError("rlpf.tasks: the split left no training or no held-out task; change kernels or held_out_kernels")
    write_json(out_path, {"digest": tasks_digest(tasks), "seed": seed, "tasks": [task_to_dict(t) for t in tasks]})
    prov.finish([out_path])
    return tasks


if __name__ == "__main__":
    from workflow_scripts.common import configure_logging, snakemake_step

    if "snakemake" in globals():
        from workflow_scripts.common.model_source import step_model

        smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
        model = step_model(smk, key="rlpf.base_model")
        main(smk.output.tasks, tasks_cfg=smk.params.tasks, tokenizer_dir=model, seed=smk.params.seed)
    else:
        from workflow_scripts.common.config import load_config

        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("out", help="the task list to write (JSON)")
        parser.add_argument("--config", default="config/config.yaml", help="reads rlpf.tasks and seed from it")
        parser.add_argument("--tokenizer", default=None,
                            help="model or tokenizer folder (default: the config's <results>/hpccoder/model)")
        args = parser.parse_args()
        configure_logging()
        config = load_config(args.config)
        tokenizer_dir = args.tokenizer or f"{config['results']}/hpccoder/model"
        main(args.out, tasks_cfg=config["rlpf"]["tasks"], tokenizer_dir=tokenizer_dir, seed=config["seed"])
