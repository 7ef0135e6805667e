"""PCGBench: the parallel code generation benchmark (problem suite, evaluation harness, metrics)."""
