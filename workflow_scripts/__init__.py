"""The project's Python package: all the workflow's logic, importable and unit-tested.

Rules in `rules/*.smk` call the `main` function of one module here; tests call the same functions.
"""
