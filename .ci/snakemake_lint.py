"""Run `snakemake --lint` and fail on any advice the workflow has not declined on purpose.

    .venv/bin/python .ci/snakemake_lint.py            # what `make lint` runs

Snakemake 9's command line prints its lints as text only (`--lint json` is accepted and ignored), so the
titles are read from the `    * <title>:` lines under each `Lints for ...` heading. Each declined title is
listed below with the reason; anything else is printed and makes the exit status 1.
"""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

DECLINED = {
    # The software of every rule is the project's pinned virtual environment (requirements.txt, with torch held
    # to its CPU build by constraints.txt) plus the Debian packages the Makefile installs; no conda channel or
    # container registry is reachable where this workflow is built and tested, so a per-rule `conda:` or
    # `container:` would name an environment nobody could create.
    "Specify a conda environment or container for each rule.",
    # The Snakefile sets PYTHONPATH (so script jobs, local or on cluster nodes, import workflow_scripts from
    # the workflow's folder); it never requires the user to set it, which is what `envvars:` would assert.
    "Environment variable PYTHONPATH used but not asserted with envvars directive",
    # The RLPF rules pass the model *source* they load as a param (rules/rlpf.smk RLPF_MODEL: a folder, a .gguf
    # file, or a {pypi|gguf, sha256} mapping that the script checks); their input lists that source's files, which
    # is the same path when the source is a folder the workflow makes (the default: the HPC-Coder model).
    "Param model is a prefix of input or output file but hardcoded",
}


def lint_titles(text: str) -> list[tuple[str, str]]:
    """(where, title) for every lint in snakemake's text output."""
    found, where = [], "?"
    for line in text.splitlines():
        if line.startswith("Lints for "):
            where = line.removeprefix("Lints for ").rstrip(":")
        elif match := re.match(r"^    \* (.+?):?$", line):
            found.append((where, match.group(1)))
    return found


def is_declined(title: str) -> bool:
    return any(title.startswith(declined) for declined in DECLINED)


def main() -> int:
    snakemake = Path(sys.executable).with_name("snakemake")
    proc = subprocess.run([str(snakemake), "--lint", "--cores", "1"], cwd=REPO, capture_output=True, text=True)
    lints = lint_titles(proc.stdout + proc.stderr)
    if proc.returncode != 0 and not lints:
        print(proc.stdout + proc.stderr)
        print("snakemake --lint failed before linting (see above)")
        return 1
    unexpected = [(where, title) for where, title in lints if not is_declined(title)]
    for where, title in unexpected:
        print(f"{where}: {title}")
    declined = len(lints) - len(unexpected)
    print(f"snakemake --lint: {len(unexpected)} lint(s) to fix, {declined} declined on purpose (see {Path(__file__).relative_to(REPO)})")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
