"""Each default is written once, in the config schema: a config dataclass either has no default for a
schema key or takes the schema's (`schema_default`), and its fields and the schema's keys agree."""

import ast
import dataclasses
import importlib
import importlib.util
import inspect
import json
import textwrap
import typing
from pathlib import Path

import pytest

from workflow_scripts.common.config import fill_defaults, place_results, schema_section

# The measurement engine's settings, which PCGBench's evaluation config holds beside its own section's
MEASURE_FIELDS = set(schema_section("measure")["properties"])

# (module, dataclass, config section, {field: schema key where the names differ}, fields that are not in the section)
PAIRS = [
    ("corpus.build", "CorpusConfig", "corpus",
     {"near_dup_threshold": "near_dedup.threshold", "minhash_permutations": "near_dedup.num_perm",
      "shingle_tokens": "near_dedup.shingle_tokens"}, set()),
    ("corpus.sources", "FetchConfig", "corpus", {}, set()),
    ("disttrain.models", "GPTConfig", "disttrain.survey.model", {}, set()),
    ("disttrain.models", "CNNConfig", "disttrain.survey.cnn", {}, set()),
    ("disttrain.survey.strategies", "SurveyConfig", "disttrain.survey", {}, {"model", "cnn", "seed"}),
    ("generate.generate", "SamplingConfig", "generate.sampling", {}, set()),
    ("generate.hf_backend", "HFBackendConfig", "generate.models.*", {}, set()),
    ("generate.openai_backend", "OpenAIBackendConfig", "generate.models.*", {}, set()),
    ("jorge.hparam", "GridConfig", "jorge.sgd_grid", {}, set()),
    ("jorge.numerics", "NumericsConfig", "jorge.numerics", {}, set()),
    ("jorge.step_cost", "StepCostConfig", "jorge.step_cost", {}, set()),
    ("jorge.tasks", "BenchmarkTaskConfig", "jorge.tasks.*", {}, {"name"}),
    ("jorge.cost_model", "ProjectionConfig", "jorge.projection", {}, set()),
    ("jorge.cost_model", "GPUAssumedConfig", "jorge.projection.gpu_assumed", {}, set()),
    ("jorge.cost_model", "ProjectionModelConfig", "jorge.projection.models.*", {}, {"name"}),
    ("hpccoder.perfchange", "PerfChangeConfig", "hpccoder.perfchange", {}, set()),
    ("hpccoder.pragma", "PragmaConfig", "hpccoder.pragma", {}, set()),
    ("hpccoder.pretrain", "ModelConfig", "hpccoder.model", {}, set()),
    ("hpccoder.pretrain", "TrainingConfig", "hpccoder.training", {}, {"torch_threads"}),
    ("hpccoder.tokenizer", "TokenizerConfig", "hpccoder.tokenizer", {}, {"init_from"}),
    ("monitoring.synthetic", "SyntheticConfig", "monitoring.synthetic", {}, set()),
    ("monitoring.loaders", "RealDataConfig", "monitoring.real", {}, set()),
    ("monitoring.features", "FeatureConfig", "monitoring.features", {}, set()),
    ("monitoring.models", "GBMConfig", "monitoring.models.gbm", {}, set()),
    ("monitoring.models", "MLPConfig", "monitoring.models.mlp", {}, set()),
    ("monitoring.models", "PerformanceModelConfig", "monitoring.models", {}, {"gbm", "mlp"}),  # nested: GBMConfig, MLPConfig
    ("monitoring.analysis", "AnalysisConfig", "monitoring.analysis", {}, set()),
    ("measure.settings", "MeasureConfig", "measure", {"seed": "<top>.seed"}, {"suite_root"}),
    # PCGBench's evaluation: the engine's fields (section measure) and its own (pcgbench.evaluate)
    ("pcgbench.evaluation", "EvaluateConfig", "pcgbench.evaluate", {"seed": "<top>.seed"}, {"suite_root"} | MEASURE_FIELDS),
    # the evaluation's settings (EvaluateConfig's fields) and which configurations
    ("pcgbench.reference_check", "CheckConfig", "pcgbench.evaluate", {"seed": "<top>.seed"},
     {"suite_root", "fixed"} | MEASURE_FIELDS),
    ("rlpf.held_out", "HeldOutConfig", "rlpf.held_out", {}, set()),
    # measure: the section measure's settings (a MeasureConfig) under rlpf.reward.measure's overrides (from_config)
    ("rlpf.reward", "RewardConfig", "rlpf.reward", {}, {"cache_dir", "measure"}),
    ("rlpf.reward_model", "RewardModelConfig", "rlpf.reward_model", {}, set()),
    ("rlpf.tasks", "TaskConfig", "rlpf.tasks", {}, set()),
    ("rlpf.train", "TrainConfig", "rlpf.sft", {}, set()),
]

# Section keys that a rule or a caller reads itself, not a dataclass.
READ_ELSEWHERE = {
    "generate.models.*": {"backend", "sampling", "execution_models"},  # the backend's dataclass; generate.main
    "hpccoder.perfchange": {"enabled"},  # rules/hpccoder.smk
    "disttrain.survey": {"projection"},  # the projection step reads it
}

SIMPLE_TYPES = {"integer": {"int"}, "number": {"float", "int"}, "boolean": {"bool"}, "string": {"str", "Path"},
                "array": {"list", "tuple"}, "object": {"dict"}}


def _key_schema(section: str, key: str) -> tuple[dict, str] | None:
    """The schema of `key` in `section` (a dotted key may reach into a subsection), and its full name."""
    if key.startswith("<top>."):
        section, key = "", key.removeprefix("<top>.")
    sub, _, name = key.rpartition(".")
    section = ".".join(filter(None, [section, sub]))
    properties = schema_section(section).get("properties", {})
    if name not in properties:
        return None
    return schema_section(".".join(filter(None, [section, name]))) | {
        k: v for k, v in properties[name].items() if k != "$ref"}, ".".join(filter(None, [section, name]))


def _fields(module: str, name: str):
    cls = getattr(importlib.import_module(f"workflow_scripts.{module}"), name)
    return cls, dataclasses.fields(cls), typing.get_type_hints(cls)


def _default_expressions(cls) -> dict[str, ast.expr]:
    """field name -> the expression written after `=` in the class body."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    return {node.target.id: node.value for node in body
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None}


def _is_schema_default(expr: ast.expr, full_key: str) -> bool:
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "schema_default"
            and len(expr.args) == 1 and isinstance(expr.args[0], ast.Constant) and expr.args[0].value == full_key)


@pytest.mark.parametrize(("module", "name", "section", "renames", "elsewhere"), PAIRS,
                         ids=[f"{m}.{n}" for m, n, *_ in PAIRS])
def test_dataclass_and_schema_agree(module, name, section, renames, elsewhere):
    """Every field is a schema key of the same simple type, and a schema default is not written again.

    A field may keep a Python default only where the schema has none for its key: the entries of a map
    (generate.models, jorge.tasks) share one schema among several kinds, so a schema default would add
    keys to entries of the other kind.
    """
    cls, fields, hints = _fields(module, name)
    written = _default_expressions(cls)
    problems = []
    for f in fields:
        if f.name in elsewhere:
            continue
        key = renames.get(f.name, f.name)
        found = _key_schema(section, key)
        if found is None:
            problems.append(f"field {f.name}: no key '{key}' in schema section {section}")
            continue
        sub, full_key = found
        expected = SIMPLE_TYPES.get(sub["type"]) if isinstance(sub.get("type"), str) else None
        hint = hints[f.name]
        origin = typing.get_origin(hint) or hint
        if expected and getattr(origin, "__name__", None) not in expected:
            problems.append(f"field {f.name}: type {hint} but the schema says {sub['type']}")
        if f.name in written and "default" in sub and not _is_schema_default(written[f.name], full_key):
            problems.append(f"field {f.name}: default written in Python ({ast.unparse(written[f.name])}) "
                            f"and in the schema; take the schema's with schema_default({full_key!r}) or give none")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("section", sorted({section for _, _, section, *_ in PAIRS}))
def test_schema_keys_have_fields(section):
    """Every key of a section reaches one of its dataclasses (or is listed in READ_ELSEWHERE)."""
    taken = set(READ_ELSEWHERE.get(section, ()))
    for module, name, paired_section, renames, _ in PAIRS:
        if paired_section == section:
            taken |= {renames.get(f.name, f.name).split(".")[0] for f in _fields(module, name)[1]}
    missing = set(schema_section(section).get("properties", {})) - taken
    assert not missing, f"{section} keys that no dataclass takes: {sorted(missing)}"


# *Config dataclasses with defaults that are not one config section, and why.
UNPAIRED = {
    "jorge.train.OptimizerConfig": "one class for the four jorge.optimizers.<name> sections, which have no defaults",
    "measure.build_cache.BuildConfig": "the build cache's settings, filled from section measure by MeasureConfig.build_config",
}


def test_every_config_dataclass_is_paired():
    """A *Config dataclass with defaults belongs in PAIRS (or UNPAIRED, with the reason)."""
    import pkgutil

    import workflow_scripts

    paired = {f"{m}.{n}" for m, n, *_ in PAIRS} | set(UNPAIRED)
    unpaired = []
    for info in pkgutil.walk_packages(workflow_scripts.__path__, "workflow_scripts."):
        if info.ispkg or "dataclass" not in Path(importlib.util.find_spec(info.name).origin).read_text():
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if not (inspect.isclass(obj) and obj.__module__ == info.name and name.endswith("Config")
                    and dataclasses.is_dataclass(obj)):
                continue
            has_defaults = any(f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
                               for f in dataclasses.fields(obj))
            if has_defaults and f"{info.name.removeprefix('workflow_scripts.')}.{name}" not in paired:
                unpaired.append(f"{info.name}.{name}")
    assert not unpaired, unpaired


@pytest.mark.parametrize("files", [["config.yaml"], ["config.yaml", "paper.yaml"]], ids=["tiny", "paper"])
def test_load_config_resolves_as_the_snakefile(files):
    """`load_config` gives what `snakemake [--configfile config/paper.yaml]` gives the rules."""
    from snakemake.common.configfile import load_configfile
    from snakemake.utils import update_config, validate

    from workflow_scripts.common.config import SCHEMA_PATH, load_config

    paths = [SCHEMA_PATH.parents[1] / name for name in files]
    expected = {}
    for path in paths:
        update_config(expected, load_configfile(str(path)))
    validate(expected, str(SCHEMA_PATH))  # the Snakefile's three steps: validate, fill every depth, place results
    place_results(fill_defaults(expected))
    assert load_config(*paths) == expected


def test_defaults_are_filled_at_every_depth_and_set_values_are_kept():
    from workflow_scripts.common.config import schema_defaults

    filled = fill_defaults({"pcgbench": {"evaluate": {"max_cores": 99}}})
    assert filled["pcgbench"]["evaluate"]["max_cores"] == 99
    assert filled["pcgbench"]["evaluate"]["ks"] == schema_defaults("pcgbench.evaluate")["ks"]
    assert filled["rlpf"]["reward"] == schema_defaults("rlpf.reward")  # an absent section: all its defaults
    assert filled["seed"] == schema_defaults("")["seed"]


def _leaf_paths(tree: dict, prefix: tuple = ()) -> list[tuple]:
    paths = []
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            paths += _leaf_paths(value, prefix + (key,))
        else:
            paths.append(prefix + (key,))
    return paths


@pytest.mark.parametrize("files", [["config.yaml"], ["config.yaml", "paper.yaml"]], ids=["tiny", "paper"])
def test_config_files_set_only_what_differs_from_the_defaults(files):
    """A key whose removal leaves the resolved config unchanged repeats a default: delete it from the file
    (paper.yaml is read over config.yaml, so it repeats neither the schema nor config.yaml)."""
    import copy

    import yaml

    from workflow_scripts.common.config import SCHEMA_PATH, _merge

    raw = [yaml.safe_load((SCHEMA_PATH.parents[1] / name).read_text()) for name in files]

    def resolved(top: dict) -> dict:
        config = {}
        for layer in raw[:-1] + [top]:
            _merge(config, copy.deepcopy(layer))
        return fill_defaults(config)

    full = resolved(raw[-1])
    repeated = []
    for path in _leaf_paths(raw[-1]):
        if path in {("seed",), ("results",)}:
            continue  # the seed is required, and where a config's outputs go is written out in every config file
        trimmed = copy.deepcopy(raw[-1])
        parent = trimmed
        for key in path[:-1]:
            parent = parent[key]
        del parent[path[-1]]
        if resolved(trimmed) == full and type(_get(resolved(trimmed), path)) is type(_get(full, path)):
            repeated.append(".".join(map(str, path)))
    assert not repeated, f"{files[-1]} repeats defaults: {repeated}"


def _get(tree: dict, path: tuple):
    for key in path:
        tree = tree[key]
    return tree


def test_pcgbench_command_line_defaults_are_the_schema_defaults(monkeypatch, tmp_path):
    """`python -m workflow_scripts.pcgbench evaluate` without options evaluates with the workflow's defaults."""
    import workflow_scripts.pcgbench.evaluation as evaluation
    from workflow_scripts.measure import suite
    from workflow_scripts.pcgbench import __main__ as cli
    from workflow_scripts.pcgbench.pareval_format import prompt_record
    from workflow_scripts.pcgbench.paths import user_cache_dir

    # A generations file the command accepts (it checks its input before evaluating), in a folder of the test's own.
    monkeypatch.chdir(tmp_path)
    record = dict(prompt_record(suite.get_problem("reduce_average"), "serial"), outputs=["return 0.0;\n}"])
    (tmp_path / "generations.json").write_text(json.dumps([record]))

    built = []

    def capture(generations, out, cfg, **kwargs):
        built.append(cfg)
        raise SystemExit(0)

    monkeypatch.setattr(evaluation, "evaluate_generations", capture)
    with pytest.raises(SystemExit):
        cli.main(["evaluate", "generations.json", "--out", "out"])
    given, defaults = dataclasses.asdict(built[0]), dataclasses.asdict(evaluation.EvaluateConfig())
    # Where the build cache lives is no setting of the evaluation: the command line keeps it in the user's cache
    # (it writes nothing into the folder it is run from), the workflow under results/.
    assert given.pop("cache_dir") == user_cache_dir() / "build_cache" and defaults.pop("cache_dir")
    assert given == defaults
