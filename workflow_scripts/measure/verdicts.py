"""The harness's verdict vocabulary: what happened to one sample, or one reference, in words every study shares.

Exactly these strings land in results.parquet (the evaluation), in the RLPF reward's and the performance-change
task's records, and in the reference check's rows (results/pcgbench/reference_speedups.csv: pcgbench/reference_check.py),
so that `wrong_answer` means the same wherever it is read. A failure of the harness or its sandbox is never one
of them (sandbox.SandboxFailure, SandboxUnavailable).
"""

# Verdicts of one sample (or reference).
BUILD_ERROR = "build_error"  # did not compile or link (a reference: it or its driver)
VERDICT_TIMEOUT = "timeout"  # the run passed its wall-clock limit (sandbox.TIMEOUT is how the run ended)
CRASH = "crash"  # died of a signal, exited non-zero, or printed no readable result line
WRONG_ANSWER = "wrong_answer"  # ran, and the driver's validator rejected the answer
KILLED_RESOURCE_LIMIT = "killed_resource_limit"  # stopped at a limit: CPU time, memory, file size, output
NO_PARALLELISM = "no_parallelism"  # built, but does not use its parallel model (suite.uses_exec_model): not run
OK = "ok"
# A ThreadSanitizer run of the program reported a data race (run.check_races): never timed, not a pass.
RACE_DETECTED = "race_detected"
# The record's prompt declares another interface than the problem its name names: not built, not scored.
PROMPT_MISMATCH = "prompt_mismatch"
# The sample tried to decide its own verdict or timing: its object defines what it was not asked for (a
# constructor, a clock, an allocator, a harness function: tampering.py) or its output holds a result line the
# driver did not print (run.run_program). Never timed, not a pass.
TAMPERING = "tampering"
# The sample used more cores than the run gave it (CPU time above threads x wall time in its timed calls, or
# work of its own during the baseline's): never a speedup (run.resource_overuse).
RESOURCE_OVERUSE = "resource_overuse"
VERDICTS = (PROMPT_MISMATCH, BUILD_ERROR, TAMPERING, VERDICT_TIMEOUT, CRASH, WRONG_ANSWER, RACE_DETECTED,
            RESOURCE_OVERUSE, KILLED_RESOURCE_LIMIT, NO_PARALLELISM, OK)

# Code not of the form asked for, so nothing is built: a generations record's output that cannot be written
# (pareval_format.py), an RLPF completion that is not a list of allowed pragmas (rlpf/reward.py). Not in VERDICTS:
# no evaluated sample has it.
MALFORMED = "malformed"

# What a reference can be here that no evaluated sample is (pcgbench/reference_check.py): not a verdict on the code,
# a statement about this machine, and never a failure.
BUILD_ONLY = "build_only"  # compiled; cannot run here (CUDA or HIP without a GPU)
UNAVAILABLE = "unavailable"  # no toolchain here (HIP without hipcc)
