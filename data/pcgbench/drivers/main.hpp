// PCGBench driver main(), shared by every execution model; the model is chosen by PCG_MODEL_<MODEL>.
//
// Runs of generated code in the CPU models are judged from another process (judge.hpp): linked without the sample and
// started with --sample, this file's main() is the judge's, and the sample's program, started by it with --judged (or,
// as MPI ranks, with --judged-at), only answers its calls. What follows is the driver that decides in the sample's own process: GPU runs,
// the race check (ThreadSanitizer) and the validator check (--check-validator).
//
// The sample is linked into this process, so nothing it could write may decide its verdict or its speedup
// (data/pcgbench/README.md, "What a sample cannot forge"). With --secret-stdin (every run of generated code:
// run.run_program), before any code of the sample runs (the harness refuses a sample object with constructors:
// tampering.py), rank 0 reads the run's secret from standard input, one line "<nonce> <timed_seed>" written by
// the harness and read nowhere else: the nonce signs every result line (a line the sample printed lacks it), the
// timed seed draws the timed inputs (not derivable from the command line, so no body can compute their answers
// ahead). Without it (trusted runs of the references and tests) the nonce is "-" and the timed seed follows --seed.
// The secret, the clocks read before a timed call and every timing recorded live in the vault (Vault below), a
// region of this process that no code of the sample can read or write: it is mapped without access (PROT_NONE)
// while any call of the sample runs, and the sample may not call mprotect (tampering.py). A body that reads the
// process's memory through pointers finds no nonce, no seed and no start time there, and the input the baseline
// answers and the check reads is generated again from its seed after the call, never a copy the body could reach.
// 1. For every size in --sizes (a small one first, the timed one last), generate the input from the seed
//    (identical on every MPI rank), compute the serial baseline's answer and the solution's answer, and
//    validate (on rank 0; the verdict is broadcast). OpenMP models given --threads-sweep T1,T2,... validate
//    each input at each of those thread counts (its baseline answer computed once).
// 2. If every validation passed: at each thread count of the sweep in turn, `warmup` untimed calls (on the input of
//    the call before) then `reps` timed repetitions, each on a fresh input at the timed size, never seen before
//    (drawn from a hash of the timed seed and its index, outside the timed region): a call of the solution (all ranks, barrier before and
//    after) followed by a call of the serial baseline on the same input, generated again (rank 0), and then the
//    solution's answer checked against the baseline's (warm-ups' too), so a body that remembers answers either
//    computes or fails. Interleaved (ABAB...), so that load drifting during the run reaches both alike and their
//    ratio, the speedup, does not move with it. Around each timed call the process's CPU time is read beside the
//    wall time: a sample that uses more threads than it was given shows CPU time above threads x wall time (judged
//    by the harness: run.resource_overuse), as does anything of the sample still running during the baseline's call.
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

#include "confine.hpp"
#include <climits>
#include <malloc.h>
#include <sys/time.h>
#ifndef PCG_PROBLEM_NAME
#error "PCG_PROBLEM_NAME must be defined"
#endif

namespace pcg {

#ifdef PCG_USES_MPI
// An MPI error in the sample's code (MPI_IN_PLACE on a rank that is not the root, a count past a buffer) ends its
// process with the error's text and exit status 71. MPI's default handler would end it too, but Open MPI's first
// opens its help file, which the run's system-call filter refuses (drivers/confine.hpp): an honest bug read as
// tampering. MPI_Error_string reads a table in memory; write(2) and _exit are allowed.
inline void exit_on_mpi_error(MPI_Comm*, int* code, ...) {
  char text[MPI_MAX_ERROR_STRING + 1] = {0};
  int length = 0;
  MPI_Error_string(*code, text, &length);
  const char head[] = "pcgbench: MPI error in the sample's code: ";
  ssize_t ignored = write(2, head, sizeof head - 1);
  ignored = write(2, text, (std::size_t)std::max(0, std::min(length, MPI_MAX_ERROR_STRING)));
  ignored = write(2, "\n", 1);
  (void)ignored;
  _exit(71);
}
#endif

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
    // Communicators the sample makes from these inherit the handler.
    MPI_Errhandler on_error;
    MPI_Comm_create_errhandler(exit_on_mpi_error, &on_error);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, on_error);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, on_error);
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

// At most this many thread counts in a sweep and timed repetitions per thread count (the vault's records).
constexpr int kMaxSweep = 16;
constexpr int kMaxReps = 64;  // the schema's maximum of pcgbench.evaluate.reps and rlpf.reward.reps

// What the verdict and the timings rest on, kept where the sample cannot reach it (see the top of this file).
struct Vault {
  char nonce[129];            // the run's nonce ("-" without a secret)
  std::uint64_t timed_seed;   // the run's secret seed: timed input k is drawn from input_seed(timed_seed, k)
  std::uint64_t next_index;   // the next timed input's index (each used once in the run)
  std::uint64_t input_seed;   // the seed of the timed call under way: its input is generated again after it
  std::size_t timed_size;     // the size timed
  double t0;                  // the monotonic clock when the call under way began
  ThreadClocks k0;            // the threads' CPU clocks then
  // The monotonic clock just before k0 was read: a CPU ratio's window holds the clock reads, so that CPU time a
  // spinning worker spends while a loaded machine keeps the reading thread waiting there counts wall time too.
  double w0;
  int sweep_size;
  int sweep[kMaxSweep];       // the thread counts validated and timed, in order
  int counts[kMaxSweep];      // the timed calls recorded per thread count
  double times_s[kMaxSweep][kMaxReps], baseline_times_s[kMaxSweep][kMaxReps];
  double cpu_ratios[kMaxSweep][kMaxReps], baseline_cpu_ratios[kMaxSweep][kMaxReps];
  // Per thread count: the CPU time over wall time of a timed call (the largest over the ranks) and of a baseline
  // call (rank 0), each the median over the timed repetitions: a sample that keeps more cores busy does so in every
  // call, and one odd call (a reading taken as the scheduler moved a thread) does not make the verdict.
  double cpu_per_wall[kMaxSweep], baseline_cpu_per_wall[kMaxSweep];
};
constexpr std::size_t kVaultBytes = (sizeof(Vault) + 4095) / 4096 * 4096;
// Static storage, so that its address is in the code (never in a register or a stack slot the sample could
// rewrite), page-aligned, so that locking it leaves nothing else without access.
alignas(4096) static unsigned char vault_storage[kVaultBytes];

// The vault, through a call the compiler cannot fold: its address is computed again after every call of the sample.
__attribute__((noinline)) static Vault& vault() { return *reinterpret_cast<Vault*>(vault_storage); }

// Lock before a call of the sample, unlock after it (also around the baseline's timed calls, so that both timings
// hold one mprotect, about a microsecond). A failure stops the run: without the lock nothing it measures is trusted.
static void set_vault_access(int protection) {
  if (mprotect(vault_storage, kVaultBytes, protection) != 0) {
    std::fprintf(stderr, "pcgbench driver: mprotect of its vault failed\n");
    std::_Exit(3);
  }
}
static void lock_vault() { set_vault_access(PROT_NONE); }
static void unlock_vault() { set_vault_access(PROT_READ | PROT_WRITE); }

// Reads the run's secret into the vault with read(2), not through stdin's buffer (which would keep a copy in the
// heap), and clears the line it read.
// Reads the line "<nonce> <timed seed>" from standard input with read(2), not through stdin's buffer (which would keep
// a copy in the heap), into `nonce` (129 bytes); clears the line it read. False when there is none.
static bool read_secret_line(char* nonce, unsigned long long& timed_seed) {
  char line[160] = {0};
  std::size_t used = 0;
  while (used + 1 < sizeof line && (used == 0 || line[used - 1] != '\n')) {
    const ssize_t got = read(0, line + used, sizeof line - 1 - used);
    if (got <= 0) break;
    used += (std::size_t)got;
  }
  const bool given = std::sscanf(line, "%128s %llu", nonce, &timed_seed) == 2;
  volatile char* wipe_line = line;
  for (std::size_t i = 0; i < sizeof line; ++i) wipe_line[i] = 0;
  return given;
}

static void read_secret(const Runtime& rt, const Args& args) {
  Vault& v = vault();
  std::strcpy(v.nonce, "-");
  bool given = false;
  unsigned long long timed_seed = 0;
  if (args.secret_stdin && rt.root()) {
    char nonce[129] = {0};
    given = read_secret_line(nonce, timed_seed);
    if (given) std::memcpy(v.nonce, nonce, sizeof nonce);
    volatile char* wipe_nonce = nonce;
    for (std::size_t i = 0; i < sizeof nonce; ++i) wipe_nonce[i] = 0;
  }
  given = rt.broadcast(given);
  // Without a secret, timed inputs follow the seed (far from the validations' seed + i).
  v.timed_seed = given ? rt.broadcast((std::uint64_t)timed_seed) : args.seed + 1000003ULL;
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

inline std::string times_json(const double* t, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + show(t[i]);
  return s + "]";
}

// One result line (the harness reads it: driver_program.parse_driver_results): a thread count's timings (`n` of each;
// none for an invalid run) with the whole validation, signed with the run's nonce.
inline void print_result(const char* nonce, const Args& args, int ranks, int threads, std::uint64_t timed_seed,
                         std::size_t timed_size, bool valid, const std::string& failure, const std::string& validation,
                         const double* times_s, const double* baseline_times_s, int n, int threads_allowed,
                         double cpu_per_wall, double baseline_cpu_per_wall, double prepare_cpu_s = 0,
                         double generate_cpu_s = 0, int extra_threads = 0, bool call_timed_out = false) {
  std::printf("PCGBENCH_RESULT %s {\"problem\":\"%s\",\"model\":\"%s\",\"ranks\":%d,\"threads\":%d,"
              "\"seed\":%llu,\"timed_seed\":%llu,\"timed_size\":%zu,\"valid\":%s,\"failure\":\"%s\","
              "\"validation\":%s,\"times_s\":%s,\"baseline_times_s\":%s,\"threads_allowed\":%d,"
              "\"cpu_per_wall\":%s,\"baseline_cpu_per_wall\":%s,\"prepare_cpu_s\":%s,\"generate_cpu_s\":%s,"
              "\"extra_threads\":%d,\"call_timed_out\":%s}\n",
              nonce, PCG_PROBLEM_NAME, json_escape(args.model).c_str(), ranks, threads, (unsigned long long)args.seed,
              (unsigned long long)timed_seed, timed_size, valid ? "true" : "false", json_escape(failure).c_str(),
              validation.c_str(), times_json(times_s, n).c_str(), times_json(baseline_times_s, n).c_str(),
              threads_allowed, show(cpu_per_wall).c_str(), show(baseline_cpu_per_wall).c_str(), show(prepare_cpu_s).c_str(),
              show(generate_cpu_s).c_str(), extra_threads, call_timed_out ? "true" : "false");
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
      // elements (lost updates) dropped. Where that leaves the answer as it was (a dropped element that is not
      // the minimum, a false one of an xor), a few more are dropped, so that the check is tried on an answer that
      // differs whenever the input allows one.
      const std::size_t first_keep = kinds[k] == Corruption::MissingElement ? n - 1 : n / 2;
      for (std::size_t keep = first_keep; keep + 8 > first_keep && keep > 0; --keep) {
        got = input;
        applied = truncate(got, keep);
        if (!applied) break;
        call_baseline(got);
        if (!(result(got) == result(want))) break;
      }
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

// A problem header whose Kokkos or GPU solution writes its answer somewhere `check` does not read (a bool buffer
// standing for a std::vector<bool>) defines collect_output(Data&): called after every validated call, never
// inside a timed region, since the conversion is the problem header's work, not the solution's. Other problem
// headers define nothing.
template <class D>
auto collect_output_if_defined(D& d, int) -> decltype(collect_output(d)) { return collect_output(d); }
template <class D>
void collect_output_if_defined(D&, long) {}

// The thread count of the calls that follow (OpenMP models; the others' is fixed at start-up).
inline void set_threads(int threads) {
#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
}
// The OpenMP threads wait actively between parallel regions (timing.placement_env): once a region has run with
// more threads than the next phase needs, they would spin through it, holding cores that the harness's compiles
// could use (measured: an idle worker burns its whole core). Releasing them (OpenMP 5.0's pause, 0.25 ms) ends
// that; the next region with more threads makes them again (0.04 ms, in a warm-up or an untimed validation).
inline void release_threads() {
#if (defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)) && \
    (_OPENMP >= 201811 || (defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10))
  omp_pause_resource_all(omp_pause_soft);
#endif
}

// Memory a process frees stays in its heap for the next input (glibc's malloc): every validated and timed call gets
// an input of its own at the timed size (32 MB for 4M doubles), and the one before is freed. Under glibc's defaults
// a large block is mapped on its own and given back to the kernel when freed (or the heap's top trimmed), and the
// next input faulted every page in again: 12 ms of page faults per such input against 5.5 ms of generating it. With
// every block from the heap (no mmap) and the heap never trimmed, the pages are reused: a judged serial run of
// reduce_average (judge and sample) 0.25 s -> 0.19 s, an RLPF reward run of a 4M-element kernel 2.5 s -> 0.8 s (its
// system time 1.5 s -> 0.2 s). Set in every process of a run, the judge's (where the baseline is timed) and the
// sample's alike, so that a call's own allocations are served alike in both. The timed region is the same either
// way: it starts on an input just written.
// The race check's run (unjudged, given --call-limit): a validated call that has not returned within its limit ends
// the process by SIGALRM, the signal's default action (the run's harness reads the race check as inconclusive and the
// judged run that follows, whose judge cuts such a call, gives the verdict). Without it a sample that hangs held its
// race check to the run's wall-clock limit (60 s where no reference time is known) before its judged run was cut
// in seconds. The race check's runtime makes calls of its own, so it runs outside the system-call filter that refuses
// timers; runs under the filter are never given the limit here. 0 disarms.
inline void limit_call(double seconds) {
  itimerval t{};
  t.it_value.tv_sec = (time_t)seconds;
  t.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
  if (seconds > 0 && t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
  setitimer(ITIMER_REAL, &t, nullptr);
}

inline void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

}  // namespace pcg

#if !defined(PCG_GPU)  // the GPU models' runs decide in the sample's process (run.JUDGED_EXEC_MODELS)
#include "judge.hpp"
#endif

// The judge is this driver linked without the sample: the solution's symbol is bound to this function
// (driver_program.build_judge), which the judge never calls.
extern "C" __attribute__((used, noreturn)) void pcg_no_sample() { std::abort(); }

int main(int argc, char** argv) {
  pcg::keep_freed_memory();
#if !defined(PCG_GPU)
  // The judge (--sample PATH): it starts the sample's program and needs no runtime of its own (no MPI_Init).
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--sample") == 0) return pcg::judge_main(argc, argv);
#endif
  pcg::Runtime rt(argc, argv);
#if !defined(PCG_GPU)
  // The sample's process under a judge (judge.hpp): it answers the judge's calls and decides nothing.
  if (argc == 2 && std::strcmp(argv[1], "--judged") == 0) return pcg::serve_judge(rt, nullptr);
  if (argc == 3 && std::strcmp(argv[1], "--judged-at") == 0) return pcg::serve_judge(rt, argv[2]);
#endif
  const pcg::Args args = pcg::parse_args(argc, argv);
  if (args.check_validator) return pcg::check_validator(args, rt);
  // First, before any call of the sample (and on every rank before its first one: the broadcast waits for rank 0).
  pcg::read_secret(rt, args);
  // Runs of generated code (--secret-stdin) go on under the system-call filter (confine.hpp), loaded after the
  // runtime's set-up (MPI_Init, Kokkos::initialize) and before the sample's first call; not under ThreadSanitizer
  // (the race check, whose runtime makes calls of its own and which times nothing).
  const bool confined = args.secret_stdin && std::getenv("TSAN_OPTIONS") == nullptr;
  if (confined) {
    pcg::task_directory();  // opened now: the filter refuses opening files
    if (!pcg::confine()) return 5;
  }
  pcg::Vault& v = pcg::vault();  // before the sample's first call: after one, only pcg::vault() is trusted
  // The thread counts per rank this process validates and times, in this order (parse_args allows a sweep for
  // the OpenMP models only), kept in the vault: what the run reports is what it ran.
  const std::vector<int> sweep = args.threads_sweep.empty() ? std::vector<int>{rt.threads} : args.threads_sweep;
  if (sweep.size() > (std::size_t)pcg::kMaxSweep || args.reps > pcg::kMaxReps) {
    std::fprintf(stderr, "pcgbench driver: at most %d thread counts and %d timed repetitions\n", pcg::kMaxSweep,
                 pcg::kMaxReps);
    return 2;
  }
  v.sweep_size = (int)sweep.size();
  for (int c = 0; c < v.sweep_size; ++c) v.sweep[c] = sweep[(std::size_t)c], v.counts[c] = 0;
  v.next_index = 0;
  v.timed_size = args.sizes.back();
  std::string validation = "[";
  bool all_ok = true;
  std::string failure;
  // Buffers reused from one validation to the next (see the timed loop below for why).
  pcg::Data input, want, got;
  // The race check's limit per validated call (--call-limit; pcg::limit_call), never under the filter (it refuses
  // timers): on rank 0, from the baseline's time on the call's input; the other ranks end with it.
  const bool limited = args.call_factor > 0 && !confined && rt.root();
  double baseline_s = 0;  // the baseline's time on the input validated
  // One validation: the solution's answer on `input` against the serial baseline's (`want`).
  auto validate = [&](std::size_t n, const std::string& where) {
    got = input;
    if (limited) pcg::limit_call(std::max(args.call_floor_s, args.call_factor * baseline_s));
    pcg::lock_vault();
    pcg::call_solution(got);
    pcg::unlock_vault();
    if (limited) pcg::limit_call(0);
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
    if (rt.root()) {
      const double b0 = pcg::now_s();
      pcg::call_baseline(want);
      baseline_s = pcg::now_s() - b0;
    }
    for (int threads : sweep) {
      pcg::set_threads(threads);
      const std::string at = sweep.size() > 1 ? " at " + std::to_string(threads) + " threads" : "";
      if (!validate(args.sizes[i], "size " + std::to_string(args.sizes[i]) + at))
        break;  // no point in running larger sizes of a wrong solution
    }
    if (sweep.size() > 1) pcg::release_threads();  // not spinning through the next input's generation and baseline
  }
  if (all_ok && args.reps > 0) {  // --reps 0: validate only (the race check's ThreadSanitizer run)
    // Every timed call gets a fresh input, drawn outside the timed region (each seed used once in the run) straight
    // into the solution's buffers (their pages written, so the call does not page-fault them in); after the call
    // the same input is generated again for the baseline and the check, so that no copy of it that the driver
    // reads is in memory while the sample runs (a second generation, 4-5 ms at 4M doubles, where a copy was 3 ms).
    pcg::ThreadClocks k1;
    for (int c = 0; c < pcg::vault().sweep_size && all_ok; ++c) {
      pcg::set_threads(pcg::vault().sweep[c]);
      for (int r = 0; r < args.warmup + args.reps; ++r) {
        // A warm-up call is not timed: it runs on the input of the call before (validated or timed), whose answer
        // `want` holds; a generation per call (12 ms for 4M doubles, most of it page faults) is for timed calls only.
        const bool fresh = r >= args.warmup;
        if (fresh) {
          pcg::Vault& w = pcg::vault();
          w.input_seed = pcg::input_seed(w.timed_seed, w.next_index++);
          got = pcg::generate(w.timed_size, w.input_seed);
        } else {
          got = input;
        }
        rt.barrier();
        pcg::vault().w0 = pcg::now_s();
        pcg::thread_clocks(pcg::vault().k0);
        pcg::vault().t0 = pcg::now_s();
        pcg::lock_vault();
        pcg::call_solution(got);
        pcg::escape(&pcg::result(got));
        rt.barrier();
        const double t1 = pcg::now_s();
        pcg::thread_clocks(k1);  // before the unlock: a system call there could wait under load
        const double w1 = pcg::now_s();
        pcg::unlock_vault();
        // From here on nothing of the sample runs until the next call: what it may have rewritten is the driver's
        // ordinary memory (this frame, the heap), so the records are read from the vault again, through vault().
        pcg::Vault& w = pcg::vault();
        const int slot = w.counts[c];
        const double call_s = t1 - w.t0, call_cpu_s = pcg::cpu_between(w.k0, k1), cpu_window_s = w1 - w.w0;
        pcg::collect_output_if_defined(got, 0);
        std::string why;
        bool ok = true;
        if (fresh) input = pcg::generate(w.timed_size, w.input_seed);  // on every rank: a warm-up may follow
        if (rt.root() && !fresh) {
          ok = pcg::check(input, want, got, why);  // `want` already holds this input's answer
        } else if (rt.root()) {  // the other ranks wait at the broadcast
          // The baseline works on the input itself (moved, not copied: 3 ms of a 13 ms call's overhead at 4M
          // doubles) unless the input is read again: by the check (CheckReadsInput), by the next thread count's
          // warm-up, or by the stress validations after the last timed call.
          const bool last = r + 1 == args.warmup + args.reps;
          const bool read_again = pcg::CheckReadsInput<pcg::Data>::value ||
                                  (last && ((c + 1 < w.sweep_size && args.warmup > 0) || args.stress_validations > 0));
          if (read_again) want = input;
          else want = std::move(input);
          w.w0 = pcg::now_s();  // the baseline is the driver's own code: the vault's slots are free now
          pcg::thread_clocks(w.k0);
          const double b0 = pcg::now_s();
          pcg::lock_vault();  // as for the solution's call, so that both timings hold the same mprotect
          pcg::call_baseline(want);
          pcg::escape(&pcg::result(want));
          const double b1 = pcg::now_s();
          pcg::thread_clocks(k1);
          const double bw1 = pcg::now_s();
          pcg::unlock_vault();
          if (slot < pcg::kMaxReps && fresh) {
            w.baseline_times_s[c][slot] = b1 - b0;
            w.baseline_cpu_ratios[c][slot] = bw1 > w.w0 ? pcg::cpu_between(w.k0, k1) / (bw1 - w.w0) : 0.0;
          }
          ok = pcg::check(input, want, got, why);
        }
        if (!rt.broadcast(ok)) {
          all_ok = false;
          failure = (fresh ? "timed call " + std::to_string(r + 1 - args.warmup) + " of " + std::to_string(args.reps)
                           : "warm-up call " + std::to_string(r + 1) + " of " + std::to_string(args.warmup)) +
                    " at " + std::to_string(w.sweep[c]) + " threads" +
                    (fresh ? " (fresh input, seed " + std::to_string(w.input_seed) + ")" : "") + ": " + why;
          break;
        }
        if (fresh && slot < pcg::kMaxReps) {
          w.times_s[c][slot] = call_s;
          w.cpu_ratios[c][slot] = cpu_window_s > 0 ? call_cpu_s / cpu_window_s : 0.0;
          w.counts[c] = slot + 1;
        }
      }
      pcg::Vault& w = pcg::vault();
      const int n = w.counts[c];
      w.cpu_per_wall[c] = rt.max_over_ranks(pcg::median(std::vector<double>(w.cpu_ratios[c], w.cpu_ratios[c] + n)));
      w.baseline_cpu_per_wall[c] =
          pcg::median(std::vector<double>(w.baseline_cpu_ratios[c], w.baseline_cpu_ratios[c] + n));
      if (sweep.size() > 1) pcg::release_threads();
    }
    rt.barrier();
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
    pcg::set_threads(args.stress_threads);
    for (int j = 0; j < args.stress_validations; ++j)
      if (!validate(args.sizes.back(), where)) break;
  }
#endif
  validation += "]";
  if (rt.root()) {
    const pcg::Vault& w = pcg::vault();
    for (int c = 0; c < w.sweep_size; ++c) {  // one line per thread count, each with the whole validation
      const int n = all_ok ? w.counts[c] : 0;  // an invalid run's timings are dropped
      pcg::print_result(w.nonce, args, rt.ranks, w.sweep[c], w.timed_seed, w.timed_size, all_ok, failure, validation,
                        w.times_s[c], w.baseline_times_s[c], n, pcg::threads_allowed(w.sweep[c], rt), w.cpu_per_wall[c],
                        w.baseline_cpu_per_wall[c]);
    }
    std::fflush(stdout);
  }
  return 0;
}
