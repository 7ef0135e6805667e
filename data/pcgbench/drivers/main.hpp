// PCGBench driver main(), shared by every execution model; the model is chosen by PCG_MODEL_<MODEL>.
//
// 1. For every size in --sizes (a small one first, the timed one last), generate the input from the seed
//    (identical on every MPI rank), compute the serial baseline's answer and the solution's answer, and
//    validate (on rank 0; the verdict is broadcast). OpenMP models given --threads-sweep T1,T2,... validate
//    each input at each of those thread counts (its baseline answer computed once).
// 2. If every validation passed: on the input validated last at the timed size (kept, not generated again),
//    at each thread count of the sweep in turn, `warmup` untimed then `reps` timed repetitions, each a call of
//    the solution (all ranks, barrier before and after) followed by a call of the serial baseline (rank 0);
//    every call gets a fresh copy of the input, copied outside the timed region (into buffers allocated once).
//    Interleaved (ABAB...), so that load drifting during the run reaches both alike and their ratio, the
//    speedup, does not move with it. One process for the sweep: the inputs, their baseline answers and the
//    pages of the buffers are made once, not once per thread count.
//    OpenMP models with --stress-threads T --stress-validations K then validate K more times on the input
//    validated last, with T threads per rank (T above the cores: see the comment there); a failure there
//    makes the run invalid, its timings dropped.
// 3. Rank 0 prints one line per thread count: PCGBENCH_RESULT {json}, each with the whole validation. Exit
//    status 0 whenever those lines were printed.
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
};

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
  // From here on, `input` is the input validated last (at the timed size) and `want` the baseline's answer on it.
  const std::size_t timed = args.sizes.back();
  std::vector<std::vector<double>> times_s(sweep.size()), baseline_times_s(sweep.size());
  if (all_ok) {
    // Every call gets a fresh copy of the input, assigned into the validations' buffers (their pages already
    // in): a new allocation per call would page-fault its tens of MB in again each time, which cost more than
    // the calls themselves. Each baseline call recomputes into `want` the answer it already held.
    for (std::size_t c = 0; c < sweep.size(); ++c) {
      set_threads(sweep[c]);
      for (int r = 0; r < args.warmup + args.reps; ++r) {
        got = input;
        rt.barrier();
        const double t0 = pcg::now_s();
        pcg::call_solution(got);
        pcg::escape(&pcg::result(got));
        rt.barrier();
        const double t1 = pcg::now_s();
        if (r >= args.warmup) times_s[c].push_back(t1 - t0);
        if (rt.root()) {  // the other ranks wait at the next barrier
          want = input;
          const double b0 = pcg::now_s();
          pcg::call_baseline(want);
          pcg::escape(&pcg::result(want));
          const double b1 = pcg::now_s();
          if (r >= args.warmup) baseline_times_s[c].push_back(b1 - b0);
        }
      }
      if (sweep.size() > 1) release_threads();
    }
    rt.barrier();
  }
#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)
  // Stress validations, after the timing: their team of more threads than cores would otherwise linger in the
  // OpenMP runtime through the timed calls (measured: the 2-thread speedups of a run that stressed first were
  // 2.17-2.29x for reduce_average against 1.86-1.89x without). More threads than cores, so that the scheduler
  // preempts them mid-loop and a data race's threads interleave even when a competing load would otherwise
  // run them one after another. On the input validated last: a race shows from how the threads interleave,
  // which differs from call to call, not from the values; a new input and its baseline answer for each were
  // most of their cost.
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
      std::printf("PCGBENCH_RESULT {\"problem\":\"%s\",\"model\":\"%s\",\"ranks\":%d,\"threads\":%d,\"seed\":%llu,"
                  "\"timed_size\":%zu,\"valid\":%s,\"failure\":\"%s\",\"validation\":%s,\"times_s\":%s,"
                  "\"baseline_times_s\":%s}\n",
                  PCG_PROBLEM_NAME, json_model.c_str(), rt.ranks, sweep[c], (unsigned long long)args.seed, timed,
                  all_ok ? "true" : "false", pcg::json_escape(failure).c_str(), validation.c_str(),
                  pcg::times_json(times_s[c]).c_str(), pcg::times_json(baseline_times_s[c]).c_str());
    std::fflush(stdout);
  }
  return 0;
}
