"""Where PCGBench's Snakemake rules find their inputs (rules/pcgbench.smk calls these; no logic in .smk).

Generators are the self-test ones (reference, serial, mutants; made by rule pcgbench_self_test_generations)
or language models whose generations rules/generate.smk writes to results/generate/pcgbench/<name>.json.
"""

SELF_TEST_GENERATORS = ("reference", "serial", "mutants")


def evaluated_generators(pcgbench_config: dict) -> list[str]:
    """Every generator whose generations are evaluated: the self-test ones, then the language models."""
    return list(pcgbench_config["generators"]) + list(pcgbench_config["language_models"])


def generations_path(generator: str) -> str:
    if generator in SELF_TEST_GENERATORS:
        return f"results/pcgbench/generations/{generator}.json"
    return f"results/generate/pcgbench/{generator}.json"


def reference_results_input(generator: str, pcgbench_config: dict) -> dict[str, str]:
    """{"reference": its results.parquet} when the reference is evaluated and `generator` is another one:
    the other generators' run time limits scale with the reference's run times."""
    if generator == "reference" or "reference" not in pcgbench_config["generators"]:
        return {}
    return {"reference": "results/pcgbench/reference/results.parquet"}
