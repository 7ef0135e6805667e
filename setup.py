"""Build hook: a wheel carries the project files its package reads, config/ (the schema with every default)
and data/ (the PCGBench problems), as workflow_scripts/_project/ (workflow_scripts/common/project_files.py finds
them). The metadata and pins are in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PROJECT_FOLDERS = ("config", "data")


class BuildPyWithProjectFiles(build_py):
    def run(self):
        super().run()
        if self.editable_mode:  # an editable install reads the checkout itself
            return
        target = Path(self.build_lib) / "workflow_scripts" / "_project"
        for folder in PROJECT_FOLDERS:
            shutil.copytree(Path(__file__).parent / folder, target / folder, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))  # fmt: skip


setup(cmdclass={"build_py": BuildPyWithProjectFiles})
