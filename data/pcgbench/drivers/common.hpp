// PCGBench driver support shared by every execution model: deterministic random inputs, comparisons that
// explain a mismatch, output corruptions for the validator self-check, command-line parsing and the
// machine-readable result line.
//
// A generated driver translation unit (see workflow_scripts/pcgbench/suite.py, build_driver) is:
//   #define PCG_MODEL_<MODEL>           one of SERIAL OMP MPI MPI_OMP KOKKOS CUDA HIP
//   #include "drivers/common.hpp"
//   <the problem's includes and types>
//   <the solution's declaration>        defined in the sample's own translation unit
//   namespace pcg_baseline { <serial signature> <serial baseline body> }
//   #include "<problem>/problem.hpp"    Data, generate, call_baseline, call_solution, result, check, truncate
//                                       (and optionally collect_output: see main.hpp)
//   #include "drivers/main.hpp"         main(): validate at every size, then time
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <emmintrin.h>  // all_close
#endif

#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP) || defined(PCG_MODEL_KOKKOS)
#include <omp.h>
#endif
#if defined(PCG_MODEL_MPI) || defined(PCG_MODEL_MPI_OMP)
#define PCG_USES_MPI 1
#include <mpi.h>
#endif
#if defined(PCG_MODEL_KOKKOS)
#include <Kokkos_Core.hpp>
#endif
#if defined(PCG_MODEL_CUDA)
#define PCG_GPU 1
#include <cuda_runtime.h>
#define PCG_GPU_MALLOC cudaMalloc
#define PCG_GPU_FREE cudaFree
#define PCG_GPU_MEMCPY cudaMemcpy
#define PCG_GPU_H2D cudaMemcpyHostToDevice
#define PCG_GPU_D2H cudaMemcpyDeviceToHost
#define PCG_GPU_SYNC cudaDeviceSynchronize
#elif defined(PCG_MODEL_HIP)
#define PCG_GPU 1
#include <hip/hip_runtime.h>
#define PCG_GPU_MALLOC hipMalloc
#define PCG_GPU_FREE hipFree
#define PCG_GPU_MEMCPY hipMemcpy
#define PCG_GPU_H2D hipMemcpyHostToDevice
#define PCG_GPU_D2H hipMemcpyDeviceToHost
#define PCG_GPU_SYNC hipDeviceSynchronize
#endif
// The solution's signature uses plain std::vector for these models (MPI and OpenMP work inside the body).
#if defined(PCG_MODEL_SERIAL) || defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI) || defined(PCG_MODEL_MPI_OMP)
#define PCG_VECTOR_API 1
#endif

namespace pcg {

// ---------------------------------------------------------------------------------------------------------
// Random inputs: splitmix64, so an input depends only on (seed, size) and is the same on every MPI rank.
// splitmix64's finaliser: a bijection of 64-bit words in which each input bit changes about half the output bits.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
// SipHash-2-4 of one 64-bit word under a 128-bit key: a keyed pseudo-random function (mix64 is a bijection: from its
// output anyone can compute its input).
inline std::uint64_t siphash(std::uint64_t k0, std::uint64_t k1, std::uint64_t m) {
  auto rotl = [](std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  std::uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL, v2 = k0 ^ 0x6c7967656e657261ULL,
                v3 = k1 ^ 0x7465646279746573ULL;
  auto round = [&] {
    v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
    v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
    v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
    v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
  };
  const std::uint64_t b = 8ULL << 56;  // the message's length (8 bytes) in the last word
  v3 ^= m, round(), round(), v0 ^= m;
  v3 ^= b, round(), round(), v0 ^= b;
  v2 ^= 0xff, round(), round(), round(), round();
  return v0 ^ v1 ^ v2 ^ v3;
}
// The seed of input `index` of a run whose secret seed is `secret`: a keyed pseudo-random function of the index, so
// that no two inputs' seeds are related and, under the judge, whose sample's process is told each seed as it comes,
// no seed seen tells the next (with an invertible hash, the secret followed from one seed).
inline std::uint64_t input_seed(std::uint64_t secret, std::uint64_t index) {
  return siphash(secret, mix64(secret ^ 0x632BE59BD9B4E019ULL), index);
}
struct Rng {
  std::uint64_t state;
  // The seed is hashed into the state: with state = a * seed + c, the stream of seed + 1 was the stream of seed
  // one draw later, so consecutive seeds gave inputs that were each the one before shifted by an element.
  explicit Rng(std::uint64_t seed) : state(mix64(seed ^ 0x632BE59BD9B4E019ULL)) {}
  std::uint64_t next() { return mix64(state += 0x9E3779B97F4A7C15ULL); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * (double)(next() >> 11) * 0x1.0p-53; }
  long long integer(long long lo, long long hi) { return lo + (long long)(next() % (std::uint64_t)(hi - lo + 1)); }
};

// Where a generator plants the value its answer turns on (the searched value, a closest pair, a hull corner), by
// region: 0 the first index, 1 the last, 2 the first half, 3 the second half of `size`, so that a body that skips the
// boundaries or reads half of the input misses it in one region of four. A problem's header (problem.hpp) passes
// the seed as `region` (seed % 4, or seed / 2 % 4 where seed % 2 says whether there is an answer at all):
// consecutive seeds, the validated inputs', cover all four, and a timed input's seed, a hash, draws one at random.
inline std::size_t planted_position(Rng& rng, std::size_t size, std::uint64_t region) {
  const std::size_t half = size / 2;
  if (region % 4 < 2) return region % 4 == 0 ? 0 : size - 1;
  return region % 4 == 2 ? (std::size_t)rng.integer(0, (long long)half - 1)
                         : half + (std::size_t)rng.integer(0, (long long)(size - half) - 1);
}

// Reserved, then appended: `std::vector v(n)` would first write n zeros (1 ms of the 4.5 ms for 4M doubles), and
// every timed call generates an input of its own.
inline std::vector<double> uniform_vector(Rng& rng, std::size_t n, double lo, double hi) {
  std::vector<double> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(rng.uniform(lo, hi));
  return v;
}
inline std::vector<int> int_vector(Rng& rng, std::size_t n, int lo, int hi) {
  std::vector<int> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back((int)rng.integer(lo, hi));
  return v;
}

// Whether a problem header's check(input, want, got, why) reads `input`: most compare `want` with `got` alone,
// and the driver then hands the timed call's input itself to the baseline instead of a copy. A problem header
// whose check names its input specialises this to std::true_type (tests/pcgbench_suite check that each one does).
template <class D>
struct CheckReadsInput : std::false_type {};

// ---------------------------------------------------------------------------------------------------------
// Comparisons. Each returns true when equal (within tolerance) and otherwise says where they differ.
constexpr double kTol = 1e-6;

inline bool close_value(double want, double got, double tol) {
  if (std::isnan(want) || std::isnan(got)) return false;
  return std::fabs(want - got) <= tol * std::max(1.0, std::fabs(want));
}

inline std::string show(double v) { std::ostringstream s; s.precision(12); s << v; return s.str(); }
inline std::string show(std::complex<double> v) { return "(" + show(v.real()) + "," + show(v.imag()) + ")"; }
template <class T> std::string show(T v) { std::ostringstream s; s << v; return s.str(); }

inline bool same_scalar(double want, double got, std::string& why, double tol = kTol) {
  if (close_value(want, got, tol)) return true;
  why = "expected " + show(want) + ", got " + show(got);
  return false;
}
inline bool same_scalar(std::complex<double> want, std::complex<double> got, std::string& why, double tol = kTol) {
  if (close_value(want.real(), got.real(), tol) && close_value(want.imag(), got.imag(), tol)) return true;
  why = "expected " + show(want) + ", got " + show(got);
  return false;
}
template <class T>
bool same_exact(const T& want, const T& got, std::string& why) {
  if (want == got) return true;
  why = "expected " + show(want) + ", got " + show(got);
  return false;
}

template <class T, std::size_t K>
bool same_array(const std::array<T, K>& want, const std::array<T, K>& got, std::string& why) {
  for (std::size_t i = 0; i < K; ++i)
    if (want[i] != got[i]) {
      why = "entry " + std::to_string(i) + ": expected " + show(want[i]) + ", got " + show(got[i]);
      return false;
    }
  return true;
}

// Whether n doubles agree pairwise as close_value has it (a NaN on either side fails the comparison): one pass
// without an early exit; the element loop in same_vector runs only on a mismatch, to say where. A run compares
// tens of MB per validation, several times, and GCC vectorizes no form of this loop (floating-point compares
// may trap), so x86-64 compares two pairs at a time with SSE2 (in every x86-64 CPU): 4M doubles in 4.5-5.5 ms
// against 9.6-11.6 ms for the scalar loop here, the same verdict on NaN, infinities and the tolerance's edge.
inline bool all_close(const double* want, const double* got, std::size_t n, double tol) {
  std::size_t i = 0;
  bool ok = true;
#if defined(__SSE2__) && !defined(__CUDACC__) && !defined(__HIPCC__)
  const __m128d sign = _mm_set1_pd(-0.0), one = _mm_set1_pd(1.0), vtol = _mm_set1_pd(tol);
  __m128d ok0 = _mm_castsi128_pd(_mm_set1_epi32(-1)), ok1 = ok0;  // all bits set: every lane still agrees
  for (; i + 4 <= n; i += 4) {
    const __m128d w0 = _mm_loadu_pd(want + i), w1 = _mm_loadu_pd(want + i + 2);
    // |want - got| <= tol * max(|want|, 1); maxpd gives 1 for a NaN |want|, whose difference is NaN anyway,
    // and a comparison with a NaN is false, so a NaN clears its lane.
    const __m128d d0 = _mm_andnot_pd(sign, _mm_sub_pd(w0, _mm_loadu_pd(got + i)));
    const __m128d d1 = _mm_andnot_pd(sign, _mm_sub_pd(w1, _mm_loadu_pd(got + i + 2)));
    ok0 = _mm_and_pd(ok0, _mm_cmple_pd(d0, _mm_mul_pd(vtol, _mm_max_pd(_mm_andnot_pd(sign, w0), one))));
    ok1 = _mm_and_pd(ok1, _mm_cmple_pd(d1, _mm_mul_pd(vtol, _mm_max_pd(_mm_andnot_pd(sign, w1), one))));
  }
  ok = _mm_movemask_pd(_mm_and_pd(ok0, ok1)) == 3;
#endif
  unsigned bad = 0;
  for (; i < n; ++i) bad |= !(std::fabs(want[i] - got[i]) <= tol * std::max(1.0, std::fabs(want[i])));
  return ok && bad == 0;
}

// A fast "all equal" for the element types that have one; false (undecided) for the others.
template <class T>
bool all_same_fast(const std::vector<T>& want, const std::vector<T>& got, double tol) {
  if constexpr (std::is_same_v<T, double>) return all_close(want.data(), got.data(), want.size(), tol);
  else if constexpr (std::is_same_v<T, std::complex<double>>)  // (re, im) pairs: the standard allows this view
    return all_close(reinterpret_cast<const double*>(want.data()), reinterpret_cast<const double*>(got.data()),
                     2 * want.size(), tol);
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return std::equal(want.begin(), want.end(), got.begin());
  else return false;
}

template <class T>
bool same_vector(const std::vector<T>& want, const std::vector<T>& got, std::string& why, double tol = kTol) {
  if (want.size() != got.size()) {
    why = "expected " + std::to_string(want.size()) + " elements, got " + std::to_string(got.size());
    return false;
  }
  if (all_same_fast(want, got, tol)) return true;
  for (std::size_t i = 0; i < want.size(); ++i) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) ok = close_value(want[i], got[i], tol);
    else if constexpr (std::is_same_v<T, std::complex<double>>)
      ok = close_value(want[i].real(), got[i].real(), tol) && close_value(want[i].imag(), got[i].imag(), tol);
    else ok = (want[i] == got[i]);
    if (!ok) {
      why = "element " + std::to_string(i) + ": expected " + show(want[i]) + ", got " + show(got[i]);
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Corruptions for the validator self-check (--check-validator): the kinds of wrong answer a parallel body
// typically produces. A problem whose result type is a struct provides `void bump(T&)` next to the struct.
inline void bump(double& v) { v += 1.0; }
inline void bump(float& v) { v += 1.0f; }
inline void bump(int& v) { v += 1; }
inline void bump(long& v) { v += 1; }
inline void bump(long long& v) { v += 1; }
inline void bump(unsigned long& v) { v += 1; }
inline void bump(unsigned long long& v) { v += 1; }
inline void bump(unsigned int& v) { v += 1; }
inline void bump(bool& v) { v = !v; }
inline void bump(std::complex<double>& v) { v += std::complex<double>(1.0, 0.0); }

enum class Corruption { OffByOne, MissingElement, Race };
inline const char* corruption_name(Corruption c) {
  return c == Corruption::OffByOne ? "off_by_one" : c == Corruption::MissingElement ? "missing_element" : "race";
}

// Vector results are corrupted in place: one element off by one; the last element missing; a stretch of
// elements left at their default value as if a racing thread's writes were lost. Returns false if the
// corruption is not applicable (then the driver re-derives a wrong answer from a truncated input).
template <class T>
bool corrupt_output(std::vector<T>& v, Corruption c) {
  if (v.empty()) return false;
  switch (c) {
    case Corruption::OffByOne: bump(v[v.size() / 2]); return true;
    case Corruption::MissingElement: v.pop_back(); return true;
    case Corruption::Race:
      for (std::size_t i = v.size() / 4; i < v.size() / 2 + 1 && i < v.size(); i += 3) v[i] = T{};
      return true;
  }
  return false;
}
// A fixed-size array of counts (a histogram): one bin off by one; one element missing from a bin; a bin
// that lost half of its updates to a race.
template <class T, std::size_t K>
bool corrupt_output(std::array<T, K>& a, Corruption c) {
  switch (c) {
    case Corruption::OffByOne: bump(a[K / 2]); return true;
    case Corruption::MissingElement: {
      std::size_t k = 0;
      while (k + 1 < K && a[k] == T{}) ++k;
      a[k] -= (a[k] == T{}) ? T{} : T{1};
      return true;
    }
    case Corruption::Race: {
      std::size_t k = 0;
      for (std::size_t j = 1; j < K; ++j) if (a[j] > a[k]) k = j;
      a[k] = a[k] / 2;
      return true;
    }
  }
  return false;
}
// A scalar result is bumped for an off-by-one; a missing element or a race (lost updates) is produced by
// the driver from the baseline's answer on a truncated input instead (see the problem header's `truncate`).
template <class T>
bool corrupt_output(T& v, Corruption c) {
  if (c != Corruption::OffByOne) return false;
  bump(v);
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Command line: --seed S --sizes N1,N2,... (the last is the timed size) --warmup W --reps R [--check-validator]
//               [--stress-threads T --stress-validations K]  (OpenMP models: K more validations at T threads)
struct Args {
  std::uint64_t seed = 1;
  std::vector<std::size_t> sizes;
  int warmup = 1;
  int reps = 3;
  bool check_validator = false;
  int stress_threads = 0;      // 0: no stress validations
  int stress_validations = 0;
  std::string model = PCG_MODEL_NAME;  // the model of the sample run, as the result line names it (--model)
  // OpenMP models: the thread counts per rank validated and timed in this one process, in this order, one result
  // line each (--threads-sweep); empty: the runtime's (OMP_NUM_THREADS) only.
  std::vector<int> threads_sweep;
  bool secret_stdin = false;  // --secret-stdin: rank 0 reads the run's secret from standard input (main.hpp)
  std::string sample_exe;     // --sample PATH: the judge's sample program (judge.hpp); the judge build only
  int ranks = 1;              // --ranks N: the judge's MPI ranks, which --launch ... (the rest: mpirun and its options) starts
  std::vector<std::string> launch;
  // --call-limit FLOOR,FACTOR: the judge cuts a call of the sample that takes longer than FACTOR x the baseline's
  // time on an input of its size, and at least FLOOR s (judge.hpp); FACTOR 0: no limit of its own. Given to the
  // race check's run (unjudged, main.hpp), its validated calls end the process by SIGALRM past the same limit.
  double call_floor_s = 0, call_factor = 0;
};

inline Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "missing value for %s\n", k.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (k == "--seed") a.seed = std::stoull(value());
    else if (k == "--warmup") a.warmup = std::stoi(value());
    else if (k == "--reps") a.reps = std::stoi(value());
    else if (k == "--check-validator") a.check_validator = true;
    else if (k == "--stress-threads") a.stress_threads = std::stoi(value());
    else if (k == "--stress-validations") a.stress_validations = std::stoi(value());
    else if (k == "--call-limit") {
      const std::string v = value();
      const std::size_t comma = v.find(',');
      if (comma == std::string::npos) { std::fprintf(stderr, "--call-limit takes FLOOR,FACTOR\n"); std::exit(2); }
      a.call_floor_s = std::stod(v.substr(0, comma)), a.call_factor = std::stod(v.substr(comma + 1));
    }
    else if (k == "--model") a.model = value();
    else if (k == "--secret-stdin") a.secret_stdin = true;
    else if (k == "--sample") a.sample_exe = value();
    else if (k == "--ranks") a.ranks = std::stoi(value());
    else if (k == "--launch") {
      while (i + 1 < argc) a.launch.push_back(argv[++i]);
    }
    else if (k == "--threads-sweep") {
      std::stringstream s(value());
      std::string item;
      while (std::getline(s, item, ',')) a.threads_sweep.push_back(std::stoi(item));
    } else if (k == "--sizes") {
      std::stringstream s(value());
      std::string item;
      while (std::getline(s, item, ',')) a.sizes.push_back(std::stoull(item));
    } else { std::fprintf(stderr, "unknown argument %s\n", k.c_str()); std::exit(2); }
  }
  bool sweep_ok = true;
  for (int t : a.threads_sweep) sweep_ok = sweep_ok && t >= 1;
#if !defined(PCG_MODEL_OMP) && !defined(PCG_MODEL_MPI_OMP)
  sweep_ok = sweep_ok && a.threads_sweep.empty();  // the thread count of other models is fixed at start-up
#endif
  if (a.sizes.empty() || a.reps < 0 || a.warmup < 0 || a.stress_validations < 0 || !sweep_ok ||
      (a.stress_validations > 0) != (a.stress_threads > 0)) {
    std::fprintf(stderr, "usage: --seed S --sizes N1,...,Ntimed --warmup W>=0 --reps R>=0 (0: validate only) [--check-validator] "
                         "[--stress-threads T>=1 --stress-validations K>=1] [--model NAME] "
                         "[--threads-sweep T1,T2,... (OpenMP models, each >= 1)] [--secret-stdin] [--sample PATH [--ranks N --launch MPIRUN...] (judge)]\n");
    std::exit(2);
  }
  return a;
}

inline std::string json_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') { out += '\\'; out += ch; }
    else if ((unsigned char)ch < 0x20) out += ' ';
    else out += ch;
  }
  return out;
}

// Keep the compiler from discarding a result nobody reads: the baseline lives in the driver's translation
// unit, and without this a call whose output is dropped after timing could be optimized away entirely.
template <class T>
inline void escape(T* p) {
  asm volatile("" : : "g"(p) : "memory");
}

// The clocks of the timed region, read through libc's clock_gettime: a sample may define no symbol that libc,
// the C++ runtime or this driver defines (tampering.py), so it cannot put its own clock in their place.
inline double read_clock_s(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
inline double now_s() { return read_clock_s(CLOCK_MONOTONIC); }

// The CPU time of every thread of the process, read around a timed call: beside the wall time it shows how many
// cores the call kept busy. Per thread, not the process's clock (CLOCK_PROCESS_CPUTIME_ID): that one adds a
// thread running on another core only up to its last scheduler tick (measured: an honest 2-thread call of 1 ms
// read as 3.4 cores), where a thread's own clock, read from another thread, is exact. A thread made during the
// call counts from 0; one that ended during it is missed, which is why a sample may not make threads of its own
// (tampering.py refuses pthread_create and the like before it runs). Fixed arrays, not a vector: the reading
// taken before a call is kept in the driver's vault (main.hpp), where the sample cannot rewrite it.
struct ThreadClocks {
  static constexpr int kMax = 512;  // threads read; more are not counted (a run is given at most its node's cores)
  int n = 0;
  long tid[kMax];
  double seconds[kMax];
};
// /proc/self/task, opened once before the system-call filter (confine.hpp refuses opening files) and read again
// from its start at every reading.
inline DIR* task_directory() {
  static DIR* dir = opendir("/proc/self/task");
  return dir;
}
inline void thread_clocks(ThreadClocks& clocks) {
  clocks.n = 0;
  if (DIR* dir = task_directory()) {
    rewinddir(dir);
    while (dirent* entry = readdir(dir)) {
      const long tid = std::strtol(entry->d_name, nullptr, 10);
      if (tid <= 0 || clocks.n == ThreadClocks::kMax) continue;
      // The kernel's per-thread CPU clock id (CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK), as pthread_getcpuclockid
      // makes it for a thread of this process.
      const clockid_t clock = (clockid_t)(((unsigned)~tid) << 3) | 6;
      clocks.tid[clocks.n] = tid;
      clocks.seconds[clocks.n++] = read_clock_s(clock);
    }
  }
}
// The median of `v` (0 when empty).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// CPU seconds the threads alive at `after` spent since `before`.
inline double cpu_between(const ThreadClocks& before, const ThreadClocks& after) {
  double total = 0;
  for (int i = 0; i < after.n; ++i) {
    double start = 0;
    for (int j = 0; j < before.n; ++j)
      if (before.tid[j] == after.tid[i]) start = before.seconds[j];
    total += after.seconds[i] - start;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------
// Kokkos: with the OpenMP backend the default memory space is host memory, so a problem header hands the
// solution an unmanaged view of its std::vector (no copy inside the timed region).
#if defined(PCG_MODEL_KOKKOS)
template <class T>
using HostView = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
using HostView2 = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T> HostView<T> kview(std::vector<T>& v) { return HostView<T>(v.data(), v.size()); }
template <class T> HostView<const T> kview(const std::vector<T>& v) { return HostView<const T>(v.data(), v.size()); }
template <class T> HostView2<T> kview2(std::vector<T>& v, std::size_t rows, std::size_t cols) {
  return HostView2<T>(v.data(), rows, cols);
}
template <class T> HostView2<const T> kview2(const std::vector<T>& v, std::size_t rows, std::size_t cols) {
  return HostView2<const T>(v.data(), rows, cols);
}
#endif

// ---------------------------------------------------------------------------------------------------------
// GPU (CUDA or HIP): device copies of host vectors; the timed region of a GPU run includes the transfers.
#if defined(PCG_GPU)
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(const std::vector<T>& host) : n(host.size()) {
    PCG_GPU_MALLOC((void**)&ptr, std::max<std::size_t>(n, 1) * sizeof(T));
    PCG_GPU_MEMCPY(ptr, host.data(), n * sizeof(T), PCG_GPU_H2D);
  }
  explicit DeviceArray(std::size_t count, T init = T{}) : DeviceArray(std::vector<T>(count, init)) {}
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { PCG_GPU_FREE(ptr); }
  void to_host(std::vector<T>& host) const {
    host.resize(n);
    PCG_GPU_MEMCPY(host.data(), ptr, n * sizeof(T), PCG_GPU_D2H);
  }
  T first() const {
    T v{};
    PCG_GPU_MEMCPY(&v, ptr, sizeof(T), PCG_GPU_D2H);
    return v;
  }
};
constexpr unsigned kBlock = 256;
inline unsigned blocks_for(std::size_t threads) { return (unsigned)((threads + kBlock - 1) / kBlock); }
#endif

}  // namespace pcg
