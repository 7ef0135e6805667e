"""The configured selection of the suite's problems (config key pcgbench.problems): `all`, `one_per_type` (the
first problem by name of each problem type present) or an explicit list of problem names. The prompts, the shards'
plan and the reference check all select with it."""

from workflow_scripts.measure import Problem


def select_problems(problems: list[Problem], selection: str | list[str]) -> list[Problem]:
    """The problems named by `selection` ("all", "one_per_type" or a list of names), sorted by name."""
    if selection == "all":
        return list(problems)
    if selection == "one_per_type":
        first: dict[str, Problem] = {}
        for problem in sorted(problems, key=lambda p: p.name):
            first.setdefault(problem.problem_type, problem)
        return sorted(first.values(), key=lambda p: p.name)
    if isinstance(selection, str):
        raise ValueError(f"pcgbench.problems must be 'all', 'one_per_type' or a list of names, got {selection!r}")
    by_name = {p.name: p for p in problems}
    unknown = sorted(set(selection) - set(by_name))
    if unknown:
        raise ValueError(f"pcgbench.problems: unknown problem(s) {unknown}; the suite has {sorted(by_name)}")
    return [by_name[name] for name in sorted(set(selection))]
