// PCGBench driver main(), shared by every execution model; the model is chosen by PCG_MODEL_<MODEL>.
//
// The sample is linked into this process, so nothing it could write may decide its verdict or its speedup
// (data/pcgbench/README.md, "What a sample cannot forge"). With --secret-stdin (every run of generated code:
// run.run_program), before any code of the sample runs (the harness refuses a sample object with constructors:
// tampering.py), rank 0 reads the run's secret from standard input, one line "<nonce> <timed_seed>" written by
// the harness and read nowhere else: the nonce signs every result line (a line the sample printed lacks it), the
// timed seed draws the timed inputs (not derivable from the command line, so no body can compute their answers
// ahead). Without it (trusted runs of the references and tests) the nonce is "-" and the timed seed follows --seed.
//
// 1. For every size in --sizes (a small one first, the timed one last), generate the input from the seed
//    (identical on every MPI rank), compute the serial baseline's answer and the solution's answer, and
//    validate (on rank 0; the verdict is broadcast). OpenMP models given --threads-sweep T1,T2,... validate
//    each input at each of those thread counts (its baseline answer computed once).
// 2. If every validation passed: at each thread count of the sweep in turn, `warmup` untimed calls (on the input of
//    the call before) then `reps` timed repetitions, each on a fresh input at the timed size, never seen before
//    (drawn from the timed seed, outside the timed region): a call of the solution (all ranks, barrier before and
//    after) followed by a call of the serial baseline on the same input (rank 0), and then the solution's answer
//    checked against the baseline's (warm-ups' too), so a body that remembers answers either computes or fails. Interleaved
//    (ABAB...), so that load drifting during the run reaches both alike and their ratio, the speedup, does not
//    move with it. Around each timed call the process's CPU time is read beside the wall time: a sample that uses
//    more threads than it was given shows CPU time above threads x wall time (judged by the harness:
//    run.resource_overuse), as does anything of the sample still running during the baseline's call.
//    OpenMP models with --stress-threads T --stress-validations K then validate K more times on the input
//    timed last, with T threads per rank (T above the cores: see the comment there); a failure there
//    makes the run invalid, its timings dropped.
// 3. Rank 0 prints one line per thread count: PCGBENCH_RESULT <nonce> {json}, each with the whole validation.
//    Exit status 0 whenever those lines were printed.
//
// With --check-validator the driver instead corrupts the baseline's answer at the first size in each way
// of pcg::Corruption and prints PCGBENCH_VALIDATOR {json} saying whether check() rejected it
// ("rejected" | "accepted" | "unchanged": the corruption left the answer as it was | "not_applicable").
#pragma once

#ifndef PCG_MODEL_NAME
#error "PCG_MODEL_NAME must be defined"
#endif
#ifndef PCG_PROBLEM_NAME
#error "PCG_PROBLEM_NAME must be defined"
#endif

namespace pcg {

struct Runtime {
  int rank = 0, ranks = 1, threads = 1;
  Runtime(int& argc, char**& argv) {
#ifdef PCG_USES_MPI
#if defined(PCG_MODEL_MPI_OMP)
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#else
    MPI_Init(&argc, &argv);
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif
#if defined(PCG_MODEL_KOKKOS)
    Kokkos::initialize(argc, argv);
    threads = Kokkos::DefaultExecutionSpace::concurrency();
#elif defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)
    threads = omp_get_max_threads();
#endif
    (void)argc; (void)argv;
  }
  ~Runtime() {
#if defined(PCG_MODEL_KOKKOS)
    Kokkos::finalize();
#endif
#ifdef PCG_USES_MPI
    MPI_Finalize();
#endif
  }
  bool root() const { return rank == 0; }
  void barrier() const {
#ifdef PCG_USES_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
  }
  bool broadcast(bool v) const {
#ifdef PCG_USES_MPI
    int x = v ? 1 : 0;
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return x != 0;
#else
    return v;
#endif
  }
  std::uint64_t broadcast(std::uint64_t v) const {
#ifdef PCG_USES_MPI
    unsigned long long x = v;
    MPI_Bcast(&x, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    return x;
#else
    return v;
#endif
  }
  double max_over_ranks(double v) const {
#ifdef PCG_USES_MPI
    double x = v;
    MPI_Allreduce(&v, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return x;
#else
    return v;
#endif
  }
};

// The run's secret (see the top of this file). Internal linkage: a sample cannot name it.
struct Secret {
  std::string nonce = "-";
  std::uint64_t timed_seed = 0;
  bool given = false;
};

static Secret read_secret(const Runtime& rt, const Args& args) {
  Secret s;
  if (args.secret_stdin && rt.root()) {
    char line[160] = {0};
    if (std::fgets(line, sizeof line, stdin) != nullptr) {
      char nonce[129] = {0};
      unsigned long long timed_seed = 0;
      if (std::sscanf(line, "%128s %llu", nonce, &timed_seed) == 2) {
        s.nonce = nonce;
        s.timed_seed = timed_seed;
        s.given = true;
      }
    }
  }
  s.given = rt.broadcast(s.given);
  // Without a secret, timed inputs follow the seed (far from the validations' seed + i).
  s.timed_seed = s.given ? rt.broadcast((std::uint64_t)s.timed_seed) : args.seed + 1000003ULL;
  return s;
}

// The threads each process of a timed call may keep busy: what it was given (OpenMP: the sweep's count; Kokkos:
// its concurrency), one for serial and MPI ranks. 0: not checked (GPU models, whose runtimes run threads of their own).
static int threads_allowed(int sweep_threads, const Runtime& rt) {
#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)
  (void)rt;
  return sweep_threads;
#elif defined(PCG_MODEL_KOKKOS)
  (void)sweep_threads;
  return rt.threads;
#elif defined(PCG_GPU)
  (void)sweep_threads, (void)rt;
  return 0;
#else
  (void)sweep_threads, (void)rt;
  return 1;
#endif
}

inline std::string times_json(const std::vector<double>& t) {
  std::string s = "[";
  for (std::size_t i = 0; i < t.size(); ++i) s += (i ? "," : "") + show(t[i]);
  return s + "]";
}

inline int check_validator(const Args& args, const Runtime& rt) {
  const std::size_t n = args.sizes.front();
  Data input = generate(n, args.seed);
  Data want = input;
  call_baseline(want);
  std::string out = "{";
  const Corruption kinds[] = {Corruption::OffByOne, Corruption::MissingElement, Corruption::Race};
  for (int k = 0; k < 3; ++k) {
    Data got = want;
    bool applied = corrupt_output(result(got), kinds[k]);
    if (!applied) {
      // A scalar answer: the baseline's answer on an input with one element (missing) or half of the
      // elements (lost updates) dropped.
      got = input;
      std::size_t keep = kinds[k] == Corruption::MissingElement ? n - 1 : n / 2;
      applied = truncate(got, keep);
      if (applied) call_baseline(got);
    }
    std::string verdict, why;
    if (!applied) verdict = "not_applicable";
    else if (result(got) == result(want)) verdict = "unchanged";  // e.g. the dropped elements did not matter
    else if (check(input, want, got, why)) verdict = "accepted";
    else verdict = "rejected";
    out += std::string(k ? "," : "") + "\"" + corruption_name(kinds[k]) + "\":{\"verdict\":\"" + verdict +
           "\",\"why\":\"" + json_escape(why) + "\"}";
  }
  if (rt.root()) std::printf("PCGBENCH_VALIDATOR %s}\n", out.c_str());
  return 0;
}

// A harness whose Kokkos or GPU solution writes its answer somewhere `check` does not read (a bool buffer standing
// for a std::vector<bool>) defines collect_output(Data&): called after every validated call, never inside a
// timed region, since the conversion is the harness's work, not the solution's. Other harnesses define nothing.
template <class D>
auto collect_output_if_defined(D& d, int) -> decltype(collect_output(d)) { return collect_output(d); }
template <class D>
void collect_output_if_defined(D&, long) {}

}  // namespace pcg

int main(int argc, char** argv) {
  pcg::Runtime rt(argc, argv);
  const pcg::Args args = pcg::parse_args(argc, argv);
  if (args.check_validator) return pcg::check_validator(args, rt);
  // First, before any call of the sample (and on every rank before its first one: the broadcast waits for rank 0).
  const pcg::Secret secret = pcg::read_secret(rt, args);
  // The thread counts per rank this process validates and times, in this order (parse_args allows a sweep for
  // the OpenMP models only).
  const std::vector<int> sweep = args.threads_sweep.empty() ? std::vector<int>{rt.threads} : args.threads_sweep;
  auto set_threads = [](int threads) {
#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
  };
  // The OpenMP threads wait actively between parallel regions (timing.placement_env): once a region has run with
  // more threads than the next phase needs, they would spin through it, holding cores that the harness's compiles
  // could use (measured: an idle worker burns its whole core). Releasing them (OpenMP 5.0's pause, 0.25 ms) ends
  // that; the next region with more threads makes them again (0.04 ms, in a warm-up or an untimed validation).
  auto release_threads = [] {
#if (defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)) && \
    (_OPENMP >= 201811 || (defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10))
    omp_pause_resource_all(omp_pause_soft);
#endif
  };

  std::string validation = "[";
  bool all_ok = true;
  std::string failure;
  // Buffers reused from one validation to the next (see the timed loop below for why).
  pcg::Data input, want, got;
  // One validation: the solution's answer on `input` against the serial baseline's (`want`).
  auto validate = [&](std::size_t n, const std::string& where) {
    got = input;
    pcg::call_solution(got);
    pcg::collect_output_if_defined(got, 0);
    std::string why;
    bool ok = rt.root() ? pcg::check(input, want, got, why) : true;
    ok = rt.broadcast(ok);
    validation += std::string(validation.size() > 1 ? "," : "") + "{\"size\":" + std::to_string(n) +
                  ",\"pass\":" + (ok ? "true" : "false") + ",\"why\":\"" + pcg::json_escape(why) + "\"}";
    if (!ok) {
      all_ok = false;
      if (failure.empty()) failure = where + ": " + why;
    }
    return ok;
  };
  // Every input is validated at every thread count of the sweep: its baseline answer is computed once.
  for (std::size_t i = 0; i < args.sizes.size() && all_ok; ++i) {
    input = pcg::generate(args.sizes[i], args.seed + i);
    want = input;
    if (rt.root()) pcg::call_baseline(want);
    for (int threads : sweep) {
      set_threads(threads);
      const std::string at = sweep.size() > 1 ? " at " + std::to_string(threads) + " threads" : "";
      if (!validate(args.sizes[i], "size " + std::to_string(args.sizes[i]) + at))
        break;  // no point in running larger sizes of a wrong solution
    }
    if (sweep.size() > 1) release_threads();  // not spinning through the next input's generation and baseline
  }
  const std::size_t timed = args.sizes.back();
  std::vector<std::vector<double>> times_s(sweep.size()), baseline_times_s(sweep.size());
  // Per thread count: the CPU time over wall time of a timed call (the largest over the ranks) and of a baseline call
  // (rank 0), each the median over the timed repetitions: a sample that keeps more cores busy does so in every call,
  // and one odd call (a reading taken as the scheduler moved a thread) does not make the verdict.
  std::vector<double> cpu_per_wall(sweep.size(), 0.0), baseline_cpu_per_wall(sweep.size(), 0.0);
  if (all_ok && args.reps > 0) {  // --reps 0: validate only (the race check's ThreadSanitizer run)
    // Every timed call gets a fresh input, drawn outside the timed region (each seed used once in the run); the
    // solution's copy goes into the validations' buffers (`got`: their pages already in, so the call does not
    // page-fault them in).
    std::uint64_t next_seed = secret.timed_seed;
    for (std::size_t c = 0; c < sweep.size() && all_ok; ++c) {
      set_threads(sweep[c]);
      std::vector<double> cpu_ratios, baseline_cpu_ratios;  // per timed call: CPU time / wall time
      for (int r = 0; r < args.warmup + args.reps; ++r) {
        // A warm-up call is not timed: it runs on the input of the call before (validated or timed), whose answer
        // `want` holds; a generation per call (12 ms for 4M doubles, most of it page faults) is for timed calls only.
        const bool fresh = r >= args.warmup;
        const std::uint64_t input_seed = fresh ? next_seed++ : 0;
        if (fresh) input = pcg::generate(timed, input_seed);
        got = input;
        rt.barrier();
        const pcg::ThreadClocks k0 = pcg::thread_clocks();
        const double t0 = pcg::now_s();
        pcg::call_solution(got);
        pcg::escape(&pcg::result(got));
        rt.barrier();
        const double t1 = pcg::now_s();
        const pcg::ThreadClocks k1 = pcg::thread_clocks();
        pcg::collect_output_if_defined(got, 0);
        std::string why;
        bool ok = true;
        if (rt.root() && !fresh) {
          ok = pcg::check(input, want, got, why);  // `want` already holds this input's answer
        } else if (rt.root()) {  // the other ranks wait at the broadcast
          // The baseline works on the input itself (moved, not copied: 3 ms of a 13 ms call's overhead at 4M
          // doubles) unless the input is read again: by the check (CheckReadsInput), by the next thread count's
          // warm-up, or by the stress validations after the last timed call.
          const bool last = r + 1 == args.warmup + args.reps;
          const bool read_again = pcg::CheckReadsInput<pcg::Data>::value ||
                                  (last && ((c + 1 < sweep.size() && args.warmup > 0) || args.stress_validations > 0));
          if (read_again) want = input;
          else want = std::move(input);
          const pcg::ThreadClocks bk0 = pcg::thread_clocks();
          const double b0 = pcg::now_s();
          pcg::call_baseline(want);
          pcg::escape(&pcg::result(want));
          const double b1 = pcg::now_s();
          const pcg::ThreadClocks bk1 = pcg::thread_clocks();
          baseline_times_s[c].push_back(b1 - b0);
          if (b1 > b0) baseline_cpu_ratios.push_back(pcg::cpu_between(bk0, bk1) / (b1 - b0));
          ok = pcg::check(input, want, got, why);
        }
        if (!rt.broadcast(ok)) {
          all_ok = false;
          failure = (fresh ? "timed call " + std::to_string(r + 1 - args.warmup) + " of " + std::to_string(args.reps)
                           : "warm-up call " + std::to_string(r + 1) + " of " + std::to_string(args.warmup)) +
                    " at " + std::to_string(sweep[c]) + " threads" +
                    (fresh ? " (fresh input, seed " + std::to_string(input_seed) + ")" : "") + ": " + why;
          break;
        }
        if (fresh) {
          times_s[c].push_back(t1 - t0);
          if (t1 > t0) cpu_ratios.push_back(pcg::cpu_between(k0, k1) / (t1 - t0));
        }
      }
      cpu_per_wall[c] = rt.max_over_ranks(pcg::median(cpu_ratios));
      baseline_cpu_per_wall[c] = pcg::median(baseline_cpu_ratios);
      if (sweep.size() > 1) release_threads();
    }
    rt.barrier();
    if (!all_ok)
      for (std::size_t c = 0; c < sweep.size(); ++c) times_s[c].clear(), baseline_times_s[c].clear();
  }
#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)
  // Stress validations, after the timing: their team of more threads than cores would otherwise linger in the
  // OpenMP runtime through the timed calls (measured: the 2-thread speedups of a run that stressed first were
  // 2.17-2.29x for reduce_average against 1.86-1.89x without). More threads than cores, so that the scheduler
  // preempts them mid-loop and a data race's threads interleave even when a competing load would otherwise
  // run them one after another. On the input timed last: a race shows from how the threads interleave,
  // which differs from call to call, not from the values; a new input and its baseline answer for each were
  // most of their cost. `input` and `want` are the last timed call's (its answer computed by the baseline).
  if (all_ok && args.stress_validations > 0) {
    const std::string where =
        "size " + std::to_string(args.sizes.back()) + " at " + std::to_string(args.stress_threads) + " threads";
    set_threads(args.stress_threads);
    for (int j = 0; j < args.stress_validations; ++j)
      if (!validate(args.sizes.back(), where)) break;
    if (!all_ok)
      for (std::size_t c = 0; c < sweep.size(); ++c) times_s[c].clear(), baseline_times_s[c].clear();
  }
#endif
  validation += "]";
  if (rt.root()) {
    const std::string json_model = pcg::json_escape(args.model);
    for (std::size_t c = 0; c < sweep.size(); ++c)  // one line per thread count, each with the whole validation
      std::printf("PCGBENCH_RESULT %s {\"problem\":\"%s\",\"model\":\"%s\",\"ranks\":%d,\"threads\":%d,"
                  "\"seed\":%llu,\"timed_seed\":%llu,\"timed_size\":%zu,\"valid\":%s,\"failure\":\"%s\","
                  "\"validation\":%s,\"times_s\":%s,\"baseline_times_s\":%s,\"threads_allowed\":%d,"
                  "\"cpu_per_wall\":%s,\"baseline_cpu_per_wall\":%s}\n",
                  secret.nonce.c_str(), PCG_PROBLEM_NAME, json_model.c_str(), rt.ranks, sweep[c],
                  (unsigned long long)args.seed, (unsigned long long)secret.timed_seed, timed,
                  all_ok ? "true" : "false", pcg::json_escape(failure).c_str(), validation.c_str(),
                  pcg::times_json(times_s[c]).c_str(), pcg::times_json(baseline_times_s[c]).c_str(),
                  pcg::threads_allowed(sweep[c], rt), pcg::show(cpu_per_wall[c]).c_str(),
                  pcg::show(baseline_cpu_per_wall[c]).c_str());
    std::fflush(stdout);
  }
  return 0;
}
