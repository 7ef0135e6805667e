"""Does validation catch data races on a loaded machine, and does it ever reject a correct program?

    .venv/bin/python benchmarks/race_detection.py [--problems 8] [--models omp,mpi+omp] [--repeats 10]
                                                  [--load 2] [--stress-validations 8] [--stress-threads 8]
                                                  [--protocols plain,stress]

For the first `--problems` problems (by name) whose OpenMP or MPI+OpenMP reference reduces with a
non-idempotent operator (where generators.mutate makes its race mutants), it builds the reference and every
race mutant (generators.py: missing_reduction, data_race), plus, on the problems of `--search-problems`,
`racy_search`: the serial reference under a bare `#pragma omp parallel for`, an unsynchronised arg-min
(the RLPF reward's racy pragma on search_closest_to_pi). Then, with `--load`
busy-loop processes at priority `--load-nice` competing for the cores (-20: the priority of the harness's own
runs, i.e. another evaluation or reward running beside this one), it runs each program `--repeats` times under each protocol
(interleaved, so that load drifting reaches every protocol alike) at 1 rank x 2 threads:

    plain       the evaluation's protocol before stress validation: `validations` inputs at the timed threads
    stress      the same, then `--stress-validations` more validations of the timed input at `--stress-threads` threads per rank
                (defaults: the evaluation's, config section pcgbench.evaluate)
    race_check  the evaluation's protocol now: for omp, the program's ThreadSanitizer build first
                (run.check_races; a reported race fails it), then `stress`; for mpi+omp, `stress`

and counts racy passes (a mutant judged ok; target 0) and false failures (a reference judged anything but
ok; target 0), with the mean run wall time (the cost). With `--all-references`, it first race-checks the OpenMP
reference of every problem of the suite once (target: every one clean). Prints tables; writes nothing.

Measured on 2 cores on 2026-12-04, with the stress validations after the timing (`--protocols plain,stress`, 8
problems, 5 repeats): stress 0 racy passes in 150 mutant runs, 0 false failures in 90 reference runs; plain in the
same runs let 3 pass (1 missing_reduction of mpi+omp, 2 racy_search). The race check found real races in four of
the suite's own OpenMP references (since fixed). Earlier figures, the race check's table among them:
benchmarks/HISTORY.md.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.common.config import schema_defaults  # noqa: E402
from workflow_scripts.measure import (  # noqa: E402
    OK,
    RACE_CHECKED_EXEC_MODELS,
    TSAN,
    BuildCache,
    BuildConfig,
    BuildRequest,
    Problem,
    RunProtocol,
    SandboxLimits,
    check_races,
    load_suite,
    prompt,
    reference_body,
    run_program,
    serial_baseline_body,
)
from workflow_scripts.pcgbench import generators  # noqa: E402

RACE_MUTANTS = ("missing_reduction", "data_race")


def race_mutants(body: str, prompt_text: str) -> dict[str, str]:
    """{mutant: body} for every race mutant that applies to `body`."""
    out = {}
    for name in RACE_MUTANTS:
        made = generators.mutate(body, name, prompt_text)
        if made is not None:
            out[name] = made[0]
    return out


def racy_search(problem: Problem) -> str:
    """The serial reference with a bare `parallel for` on its first loop: a race on the shared best."""
    body = serial_baseline_body(problem)
    at = body.index("  for (")
    return body[:at] + "  #pragma omp parallel for\n" + body[at:]


def pick_problems(count: int, exec_models: list[str]) -> list[Problem]:
    chosen = []
    for problem in load_suite():
        if any(race_mutants(reference_body(problem, m), prompt(problem, m)) for m in exec_models):
            chosen.append(problem)
        if len(chosen) == count:
            break
    return chosen


def main() -> None:
    evaluate = schema_defaults("measure")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", type=int, default=8)
    ap.add_argument("--models", default="omp,mpi+omp")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--load", type=int, default=2, help="busy-loop processes competing for the cores")
    ap.add_argument("--load-nice", type=int, default=-20, help="their priority")
    ap.add_argument("--search-problems", default="search_closest_to_pi")
    ap.add_argument("--validations", type=int, default=evaluate["validations"])
    ap.add_argument("--stress-validations", type=int, default=evaluate["stress_validations"])
    ap.add_argument("--stress-threads", type=int, default=evaluate["stress_threads"])
    ap.add_argument("--protocols", default="plain,stress,race_check",
                    help="plain, stress, stress:TxK (T threads, K inputs) or race_check")
    ap.add_argument("--all-references", action="store_true", help="race-check every problem's OpenMP reference once")
    ap.add_argument("--nice", type=int, default=-20)
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "race_detection_cache")
    args = ap.parse_args()
    exec_models = args.models.split(",")
    protocols = args.protocols.split(",")

    problems = pick_problems(args.problems, exec_models)
    searches = [p for p in load_suite() if p.name in args.search_problems.split(",") if args.search_problems]
    print(f"problems ({len(problems)}): {', '.join(p.name for p in problems)}", flush=True)
    programs = []  # (problem, exec_model, label, body)
    for problem in problems:
        for exec_model in exec_models:
            ref = reference_body(problem, exec_model)
            programs.append((problem, exec_model, "reference", ref))
            for name, body in race_mutants(ref, prompt(problem, exec_model)).items():
                programs.append((problem, exec_model, name, body))
    for problem in searches:
        for exec_model in exec_models:
            if problem not in problems:
                programs.append((problem, exec_model, "reference", reference_body(problem, exec_model)))
            programs.append((problem, exec_model, "racy_search", racy_search(problem)))
    cache = BuildCache(BuildConfig(cache_dir=args.cache_dir, jobs=2))
    limits = SandboxLimits(wall_s=60.0, cpu_limit_s=240)
    if args.all_references:
        check_every_reference(cache, limits, args.nice)
    builds = cache.build_all([BuildRequest(problem=p, exec_model=m, body=b) for p, m, _, b in programs])
    checked = [i for i, (_, m, _, _) in enumerate(programs) if m in RACE_CHECKED_EXEC_MODELS]
    tsan_builds = dict(zip(checked, cache.build_all([BuildRequest(problem=programs[i][0], exec_model=programs[i][1],
                                                                  body=programs[i][3], sanitizer=TSAN)
                                                     for i in checked]), strict=True))  # fmt: skip
    for (problem, exec_model, label, _), build in zip(programs, builds, strict=True):
        if not build.ok:  # e.g. data_race moves a `schedule` clause onto a bare `parallel`: not a race then
            print(f"  not run (does not build): {problem.name}/{exec_model}/{label}: {build.log.splitlines()[-1:]}")
            if label == "reference":
                raise SystemExit(f"the reference of {problem.name}/{exec_model} does not build: {build.log[-500:]}")
    runs_of = [(prog, build, tsan_builds.get(i)) for i, (prog, build) in enumerate(zip(programs, builds, strict=True))
               if build.ok]  # fmt: skip

    def protocol(name: str) -> RunProtocol:
        """plain, stress (the flags' stress validations) or stress:TxK (K validations at T threads)."""
        threads, validations = 0, 0
        if name in ("stress", "race_check"):
            threads, validations = args.stress_threads, args.stress_validations
        elif name.startswith("stress:"):
            threads, validations = (int(v) for v in name.removeprefix("stress:").split("x"))
        return RunProtocol(warmup=1, reps=3, validations=args.validations, seed=1234, ranks=1, threads=2,
                           nice=args.nice, stress_validations=validations, stress_threads=threads)  # fmt: skip

    counts: dict[tuple[str, str, str], list[int]] = {}  # (protocol, model, label) -> [runs, passes]
    walls: dict[tuple[str, str], list[float]] = {}  # (protocol, model) -> run wall times of the references
    busy = f"import os; os.setpriority(os.PRIO_PROCESS, 0, {args.load_nice})\nwhile True: pass"
    load = [subprocess.Popen([sys.executable, "-c", busy]) for _ in range(args.load)]
    start = time.monotonic()
    try:
        for rep in range(args.repeats):
            for (problem, exec_model, label, _), build, tsan in runs_of:
                for name in protocols:
                    began = time.monotonic()
                    verdict, detail = None, ""
                    if name == "race_check" and tsan is not None:
                        if not tsan.ok:
                            raise SystemExit(f"{problem.name}/{exec_model}/{label}: the ThreadSanitizer build failed: "
                                             f"{tsan.log[-500:]}")
                        check = check_races(problem, exec_model, tsan, seed=1234, limits=limits, nice=args.nice)
                        verdict, detail = ("race_detected", check.detail) if check.status == "race" else (None, "")
                    if verdict is None:
                        run = run_program(problem, exec_model, build.exe, protocol(name), limits)
                        verdict, detail = run.verdict, run.detail
                    c = counts.setdefault((name, exec_model, label), [0, 0])
                    c[0] += 1
                    c[1] += verdict == OK
                    if label == "reference":
                        walls.setdefault((name, exec_model), []).append(time.monotonic() - began)
                        if verdict != OK:
                            print(f"  false failure: {name} {problem.name}/{exec_model}: {verdict} {detail[:200]}")
            print(f"repeat {rep + 1}/{args.repeats} done at {time.monotonic() - start:.0f} s", flush=True)
    finally:
        for p in load:
            p.kill()
            p.wait()

    print(f"\nload: {args.load} busy loops at nice {args.load_nice}; {args.repeats} repeats; 1 rank x 2 threads; validations "
          f"{args.validations}; protocol stress = {args.stress_validations} validations at {args.stress_threads} threads; "
          f"runs at nice {args.nice}")
    print(f"{'protocol':10} {'model':8} {'program':18} {'runs':>5} {'passes':>6}  meaning")
    for (name, exec_model, label), (runs, passes) in sorted(counts.items()):
        meaning = "false failures " + str(runs - passes) if label == "reference" else "racy passes " + str(passes)
        print(f"{name:10} {exec_model:8} {label:18} {runs:5d} {passes:6d}  {meaning}")
    for (name, exec_model), w in sorted(walls.items()):
        print(f"reference run wall, {name} {exec_model}: mean {statistics.mean(w):.2f} s, median {statistics.median(w):.2f} s")


def check_every_reference(cache: BuildCache, limits: SandboxLimits, nice: int) -> None:
    """Race-check the OpenMP and MPI+OpenMP reference of every problem once: a report on any is a false failure."""
    problems = load_suite()
    for exec_model in RACE_CHECKED_EXEC_MODELS:
        builds = cache.build_all([BuildRequest(problem=p, exec_model=exec_model, body=reference_body(p, exec_model),
                                               sanitizer=TSAN) for p in problems])  # fmt: skip
        found: dict[str, list[str]] = {}
        for problem, build in zip(problems, builds, strict=True):
            status = check_races(problem, exec_model, build, seed=1234, limits=limits, nice=nice).status
            found.setdefault(status, []).append(problem.name)
        print(f"race check of every {exec_model} reference ({len(problems)}): "
              + "; ".join(f"{status} {len(names)}" + (f" ({', '.join(names)})" if status != "clean" else "")
                          for status, names in sorted(found.items())), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
