"""The plan of the re-scoring of ParEval's released LLM outputs (the step is pareval_released.py): its config
section (`pcgbench.pareval_released`), its shards over the released files, where each job writes, its cluster
resources and its evaluation settings. rules/pcgbench.smk lays out the study's jobs with these; the step scores one
(file, shard).
"""


import dataclasses
import functools
from pathlib import Path

from workflow_scripts.measure import load_suite
from workflow_scripts.pcgbench import shards
from workflow_scripts.pcgbench.evaluation import EvaluateConfig
from workflow_scripts.pcgbench.pareval_results import RELEASED_ROOT

TASKS = ("translation", "generation")
CPU_EXEC_MODELS = ("serial", "omp", "mpi", "mpi+omp", "kokkos")
# The execution models a released file of each task holds outputs of (ParEval's translation pairs' targets: serial
# to OpenMP and MPI, CUDA to Kokkos): a shard of none of them is not planned for that file.
TASK_EXEC_MODELS = {"translation": ("omp", "mpi", "kokkos"), "generation": CPU_EXEC_MODELS}
# In the results folder (the rules name them results(...)):
STUDY_DIR = "pcgbench/pareval_released"
KEY = "pcgbench.pareval_released"


@dataclasses.dataclass(frozen=True, kw_only=True)
class ReleasedOutput:
    """One output of a released file: `file` (<task>/<generator>), its execution model, ParEval's record name, the
    output's index in the record."""

    file: str
    model: str
    record: str
    output: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class ParEvalReleasedConfig:
    """Config section pcgbench.pareval_released, whole (its defaults are the schema's, filled in by the Snakefile;
    `from_config(schema_defaults("pcgbench.pareval_released"))` outside it). The schema validates the types; this
    checks what it cannot: that the fixed outputs belong to the files and models scored."""

    files: tuple[str, ...]  # <task>/<generator> under data/pareval_released
    models: tuple[str, ...]  # execution models scored
    outputs: str | tuple[ReleasedOutput, ...]  # "all", or the fixed sample
    by_model: bool  # one shard per execution model
    problems_per_shard: int  # 0: every problem in one shard
    measure: dict  # keys of the section `measure` changed for this study
    bootstrap_resamples: int  # draws of the table's bootstrap intervals (pareval_table.py)

    def __post_init__(self) -> None:
        for i, name in enumerate(self.files):
            task, _, generator = name.partition("/")
            if task not in TASKS or not generator:
                raise ValueError(f"{KEY}.files[{i}]: {name!r} is not <task>/<generator> with task one of {TASKS}")
        for i, out in enumerate(self.outputs if not isinstance(self.outputs, str) else ()):
            if out.file not in self.files:
                raise ValueError(f"{KEY}.outputs[{i}].file: {out.file!r} is not among {KEY}.files {list(self.files)};"
                                 " add it there or drop the output")  # fmt: skip
            if out.model not in self.models:
                raise ValueError(f"{KEY}.outputs[{i}].model: {out.model!r} is not among {KEY}.models "
                                 f"{list(self.models)}; add it there or drop the output")  # fmt: skip

    @classmethod
    def from_config(cls, section: dict) -> "ParEvalReleasedConfig":
        outputs = section["outputs"]
        return cls(files=tuple(section["files"]), models=tuple(section["models"]),
                   outputs=outputs if isinstance(outputs, str) else tuple(ReleasedOutput(**o) for o in outputs),
                   by_model=section["shards"]["by_model"], problems_per_shard=section["shards"]["problems_per_shard"],
                   measure=dict(section["measure"]), bootstrap_resamples=section["bootstrap_resamples"])  # fmt: skip

    def keys(self, file: str) -> set[tuple[str, str, int]] | None:
        """The fixed outputs of `file` as (execution model, record, index), or None (every output)."""
        if isinstance(self.outputs, str):
            return None
        return {(o.model, o.record, o.output) for o in self.outputs if o.file == file}


def released_path(file: str, root: Path = RELEASED_ROOT) -> Path:
    """data/pareval_released/<task>/<generator>.json.xz of the config's name <task>/<generator>."""
    return root / f"{file}.json.xz"


@functools.cache
def _suite_problems() -> tuple[str, ...]:
    return tuple(problem.name for problem in load_suite())


def plan(cfg: ParEvalReleasedConfig) -> list[shards.Shard]:
    """The shards of every file's scoring (the same for every file: a file's outputs of a shard's models and
    problems)."""
    return shards.plan(list(cfg.models), list(_suite_problems()), by_model=cfg.by_model,
                       problems_per_shard=cfg.problems_per_shard)  # fmt: skip


def layout(pcgbench_config: dict) -> shards.Layout:
    """Where the scoring jobs write (shards.Layout: one shard writes in the file's folder, several in shards/)."""
    return shards.Layout(tuple(s.name for s in plan(ParEvalReleasedConfig.from_config(pcgbench_config["pareval_released"]))))


def file_folder(results: str) -> str:
    """A file's folder, as the rules' pattern (wildcards task and generator)."""
    return f"{results}/{STUDY_DIR}/{{task}}/{{generator}}"


def agreement_files(pcgbench_config: dict, results: str) -> list[str]:
    """Every scoring job's agreement.csv: the table's inputs (per file, the shards holding a model its task has)."""
    cfg = ParEvalReleasedConfig.from_config(pcgbench_config["pareval_released"])
    places = shards.Layout(tuple(s.name for s in plan(cfg)))
    return [places.file(file_folder(results), shard.name, "agreement.csv").format(task=task, generator=generator)
            for task, _, generator in (f.partition("/") for f in cfg.files) for shard in plan(cfg)
            if set(shard.exec_models) & set(TASK_EXEC_MODELS[task])]  # fmt: skip


# Resources that grow with a retried job's attempt, as in profiles/slurm's default-resources (shards.py).
_PER_ATTEMPT = ("mem_mb", "runtime")


def cluster_resources(pcgbench_config: dict, local: dict[str, int]) -> dict:
    """A scoring job's resources: `local` (mem_mb, timing_slot) and, for a cluster, pcgbench.cluster.cpu's requests
    (every model scored here runs on a CPU), mem_mb and runtime growing with a retry's attempt."""
    requests = {**local, "gpu": 0, **pcgbench_config["cluster"]["cpu"]}

    def request(key: str):
        value = requests[key]
        return (lambda wildcards, attempt: value * attempt) if key in _PER_ATTEMPT else value

    return {key: request(key) for key in sorted(requests)}


def evaluation_config(evaluate: dict, overrides: dict, seed: int) -> EvaluateConfig:
    """The evaluation's settings with pcgbench.pareval_released.measure's keys over them."""
    return EvaluateConfig(**evaluate, seed=seed).overridden(overrides, key=f"{KEY}.measure")
