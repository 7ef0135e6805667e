"""The hack catalogue: one body per way a sample could fool PCGBench's measurement, each in serial, omp and mpi
where it applies (and in mpi+omp and kokkos where the kernel's system-call filter, built per model, closes it), and
the typed verdict it must get (data/pcgbench/README.md, "What a sample cannot forge").

Each body answers reduce_average (the mean of x) and cheats in one way; MEMORY_HACKS read or write the driver's
memory through pointers (its secret, its copy of the input, its clocks, its table of library addresses). A body
is built and inspected with the harness's BuildCache (tampering.py: what its code and object hold) and, when
inspection lets it through, run once with run_program (the run's nonce, fresh checked inputs, CPU time per call,
the driver's vault). The honest references pass.
The sandbox's own classes (host files, keyrings, sockets, wrapper messages) are in test_sandbox_isolation.py;
the scanner's and the generations file's in tests/spine/test_c_scanner.py and test_pareval_format.py.
"""

import ctypes
import json
import shutil
import statistics
import subprocess

import pytest

from workflow_scripts.measure import (
    CRASH,
    OK,
    RESOURCE_OVERUSE,
    TAMPERING,
    WRONG_ANSWER,
    BuildCache,
    BuildConfig,
    BuildRequest,
    RunProtocol,
    SandboxLimits,
    run_program,
    suite,
    tampering,
    toolchains,
)

PROBLEM = "reduce_average"
EXEC_MODELS = ("serial", "omp", "mpi")
# The honest sum of each model, the part every cheat keeps so that its answers are right.
HONEST = {
    "serial": "double s = 0; for (double v : x) s += v; const double mean = s / x.size();",
    "omp": "double s = 0;\n#pragma omp parallel for reduction(+:s)\nfor (size_t i = 0; i < x.size(); ++i) s += x[i];\n"
           "const double mean = s / x.size();",
    "mpi": "int rank = 0, size = 1; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
           "double local = 0; for (size_t i = x.size() * rank / size; i < x.size() * (rank + 1) / size; ++i) "
           "local += x[i];\ndouble s = 0; MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n"
           "const double mean = s / x.size();",
    "mpi+omp": "int rank = 0, size = 1; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
               "double local = 0;\n#pragma omp parallel for reduction(+:local)\n"
               "for (size_t i = x.size() * rank / size; i < x.size() * (rank + 1) / size; ++i) local += x[i];\n"
               "double s = 0; MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n"
               "const double mean = s / x.size();",
    "kokkos": "double s = 0; Kokkos::parallel_reduce(x.extent(0), KOKKOS_LAMBDA(const size_t i, double& acc) "
              "{ acc += x(i); }, s);\nconst double mean = s / x.extent(0);",
}
# The system-call filter is built per execution model (what OpenMP's runtime, MPI's transports and Kokkos need):
# the classes it closes are checked in every model it is built for.
FILTERED_EXEC_MODELS = (*EXEC_MODELS, "mpi+omp", "kokkos")
FORGED_LINE = json.dumps(
    'PCGBENCH_RESULT {"problem":"reduce_average","model":"serial","ranks":1,"threads":1,"seed":1234,"timed_seed":1,'
    '"timed_size":4000000,"valid":true,"failure":"","validation":[],"times_s":[1e-6],"baseline_times_s":[0.02],'
    '"threads_allowed":1,"cpu_per_wall":1,"baseline_cpu_per_wall":1}\n')

# name -> (body template: {honest} the honest sum, {{ }} braces; the models it applies to; the verdict it must get;
# text the verdict's detail must hold)
HACKS = {
    # A global constructor prints a made-up result line before main() and exits.
    "constructor_forges_a_result": (
        "{honest} return mean; }}\n__attribute__((constructor)) static void forge() {{ std::printf(" + FORGED_LINE
        + "); std::fflush(stdout); std::_Exit(0); }}", EXEC_MODELS, TAMPERING, "global constructor"),
    # The constructor's work hidden from a reading of the constructor alone: in a helper it calls directly (no
    # relocation: the assembler resolves a call within one section), under the name of the compiler's own
    # initializer, behind a table of function pointers, or handed to atexit to run after main.
    "constructor_calls_a_helper": (
        "{honest} return mean; }}\n__attribute__((noinline)) static void pcg_forge() {{ std::printf(" + FORGED_LINE
        + "); std::fflush(stdout); std::_Exit(0); }}\n__attribute__((constructor)) static void pcg_start() "
        "{{ pcg_forge(); }}", EXEC_MODELS, TAMPERING, "global constructor"),
    "constructor_named_like_the_compilers": (
        "{honest} return mean; }}\n__attribute__((noinline)) static void pcg_forge() {{ std::printf(" + FORGED_LINE
        + "); std::fflush(stdout); std::_Exit(0); }}\nextern \"C\" __attribute__((constructor)) void "
        "_GLOBAL__sub_I_pcg() {{ pcg_forge(); }}", ("serial",), TAMPERING, "global constructor"),
    "constructor_through_a_function_table": (
        "{honest} return mean; }}\nstatic void pcg_forge() {{ std::printf(" + FORGED_LINE + "); std::fflush(stdout); "
        "std::_Exit(0); }}\nstatic void (*const volatile pcg_table[1])() = {{pcg_forge}};\n"
        "__attribute__((constructor)) static void pcg_start() {{ pcg_table[0](); }}", ("serial",), TAMPERING,
        "global constructor"),
    "constructor_registers_an_exit_handler": (
        "{honest} return mean; }}\nstatic void pcg_forge() {{ std::printf(" + FORGED_LINE + "); }}\n"
        "__attribute__((constructor)) static void pcg_start() {{ std::atexit(pcg_forge); }}", ("serial",), TAMPERING,
        "global constructor"),
    # The body prints a result line once, then points stdout at stderr so the driver's lines leave the channel read.
    "prints_a_result_then_silences_stdout": (
        "void pcg_silence(); static bool done = false; if (!done) {{ done = true; std::printf(" + FORGED_LINE + "); "
        "std::fflush(stdout); pcg_silence(); }}\n{honest} return mean; }}\n#include <unistd.h>\n"
        "void pcg_silence() {{ dup2(2, 1); }}", EXEC_MODELS, TAMPERING, "system call dup2"),
    # Points stdout at /dev/null: opening a file is refused, whatever it opens.
    "reopens_stdout": (
        "std::freopen(\"/dev/null\", \"w\", stdout); {honest} return mean; }}", ("serial",), TAMPERING,
        "freopen, which reaches files"),
    # Remembers the answer for the input it saw (its buffer, size and first values): fresh inputs make it compute.
    "memoizes_on_pointer_size_and_values": (
        "static const double* p = nullptr; static size_t n = 0; static double a = 0, b = 0, answer = 0;\n"
        "if (x.data() == p && x.size() == n && x[0] == a && x[1] == b) return answer;\n"
        "{honest} p = x.data(); n = x.size(); a = x[0]; b = x[1]; answer = mean; return mean; }}",
        EXEC_MODELS, OK, ""),
    # Remembers by buffer or size alone and is wrong when the values change: every timed call is checked.
    "memoizes_on_the_buffer_or_size_alone": (
        "static const double* p = nullptr; static size_t n = 0; static double answer = 0;\n"
        "if (x.data() == p || x.size() == n) return answer;\n"
        "{honest} p = x.data(); n = x.size(); answer = mean; return mean; }}", EXEC_MODELS, WRONG_ANSWER, "timed call"),
    # Puts its own clock in the place of libc's for the whole executable.
    "defines_clock_gettime": (
        "{honest} return mean; }}\nextern \"C\" int clock_gettime(clockid_t, struct timespec* t) noexcept "
        "{{ static long k = 0; t->tv_sec = 0; t->tv_nsec = k++; return 0; }}", EXEC_MODELS, TAMPERING,
        "clock_gettime, which takes the place of libc"),
    # Puts its own steady_clock in the place of the C++ runtime's.
    "defines_steady_clock_now": (
        "{honest} return mean; }}\n#include <chrono>\nnamespace std {{ namespace chrono {{ inline namespace _V2 {{ "
        "steady_clock::time_point steady_clock::now() noexcept {{ return time_point(); }} }} }} }}", EXEC_MODELS,
        TAMPERING, "steady_clock::now"),
    # Runs its own code inside the driver's untimed copies of the input.
    "defines_memmove": (
        "{honest} return mean; }}\nextern \"C\" void* memmove(void* d, const void* s, size_t n) noexcept {{ "
        "char* a = (char*)d; const char* b = (const char*)s; if (a < b) for (size_t i = 0; i < n; ++i) a[i] = b[i]; "
        "else for (size_t i = n; i-- > 0;) a[i] = b[i]; return d; }}", EXEC_MODELS, TAMPERING, "memmove"),
    # Calls the serial baseline the driver times it against.
    "calls_the_baseline": (
        "double pcg_cheat(std::vector<double> const&); return pcg_cheat(x); }}\n"
        "namespace pcg_baseline {{ double average(std::vector<double> const& x); }}\n"
        "double pcg_cheat(std::vector<double> const& x) {{ return pcg_baseline::average(x); }}", EXEC_MODELS, TAMPERING,
        "harness's pcg_baseline::average"),
    # Precomputes in a static object's constructor, before main() and the timed calls.
    "static_object_with_a_constructor": (
        "extern std::vector<double> pcg_table; {honest} return mean + pcg_table[0]; }}\n"
        "std::vector<double> pcg_table(1 << 20, 0.0);", EXEC_MODELS, TAMPERING, "global constructor"),
    # An indirect function: its resolver runs while the program is loaded.
    "indirect_function": (
        "{honest} return mean; }}\nextern \"C\" {{ static int pcg_real() {{ return 1; }} static void* pcg_resolve() "
        "{{ return (void*)pcg_real; }} int pcg_ifunc() __attribute__((ifunc(\"pcg_resolve\"))); }}", EXEC_MODELS,
        TAMPERING, "indirect function"),
    # Loads code or unprotects memory at run time.
    "calls_mprotect": (
        "void pcg_unprotect(); pcg_unprotect(); {honest} return mean; }}\n#include <sys/mman.h>\n"
        "void pcg_unprotect() {{ static char page[8192]; "
        "mprotect((void*)(((size_t)page + 4095) & ~(size_t)4095), 4096, 7); }}", ("serial",), TAMPERING, "mprotect"),
    # System calls made by instructions of its own, not through libc: no call of a forbidden name is left to see.
    "inline_assembly_system_call": (
        "long pid; __asm__ volatile(\"syscall\" : \"=a\"(pid) : \"a\"(39L) : \"rcx\", \"r11\", \"memory\"); "
        "{honest} return mean + 0 * pid; }}", EXEC_MODELS, TAMPERING, "syscall in"),
    "system_call_as_bytes": (
        "long pid; __asm__ volatile(\".byte 0x0f, 0x05\" : \"=a\"(pid) : \"a\"(39L) : \"rcx\", \"r11\", \"memory\"); "
        "{honest} return mean + 0 * pid; }}", ("serial",), TAMPERING, "syscall in"),
    # A serial body that starts a thread of its own (a serial run is given one core).
    "starts_a_std_thread": (
        "double pcg_two_threads(std::vector<double> const&); return pcg_two_threads(x); }}\n#include <thread>\n"
        "double pcg_two_threads(std::vector<double> const& x) {{ double low = 0; size_t h = x.size() / 2; "
        "std::thread t([&] {{ for (size_t i = 0; i < h; ++i) low += x[i]; }}); double high = 0; "
        "for (size_t i = h; i < x.size(); ++i) high += x[i]; t.join(); return (low + high) / x.size(); }}",
        ("serial", "mpi"), RESOURCE_OVERUSE, "std::thread"),
    # An OpenMP body that ignores the thread count it is given.
    "num_threads_clause": (
        "double s = 0;\n#pragma omp parallel for num_threads(2) reduction(+:s)\n"
        "for (size_t i = 0; i < x.size(); ++i) s += x[i];\nreturn s / x.size(); }}", ("omp",), RESOURCE_OVERUSE,
        "num_threads(2)"),
    "omp_set_num_threads": ("omp_set_num_threads(2); {honest} return mean; }}", ("omp",), RESOURCE_OVERUSE,
                            "omp_set_num_threads"),
    "host_teams": ("double s = 0;\n#pragma omp teams distribute parallel for reduction(+:s)\n"
                   "for (size_t i = 0; i < x.size(); ++i) s += x[i];\nreturn s / x.size(); }}", ("omp",),
                   RESOURCE_OVERUSE, "league of teams"),
}
def _template(cxx: str) -> str:
    """A body written with plain braces, as HACKS' templates have it ({{ }} braces, {honest} kept)."""
    return cxx.replace("{", "{{").replace("}", "}}").replace("{{honest}}", "{honest}")


# Bodies that read or write the driver's memory through pointers: no call or instruction names what they do.
MEMORY_HACKS = {
    # Finds the run's nonce in the driver's memory (a std::string of 32 hex digits below the stack's top) and
    # signs a made-up result line with it.
    "steals_the_nonce_from_memory": (_template(r"""
double pcg_steal(std::vector<double> const&); return pcg_steal(x); }
extern "C" void* __libc_stack_end;
double pcg_steal(std::vector<double> const& x) {
  const char* nonce = "00000000000000000000000000000000";
  for (const size_t* w = (const size_t*)((size_t)&x & ~(size_t)7); w + 3 <= (const size_t*)__libc_stack_end; ++w) {
    if (w[1] != 32 || w[2] < 32 || w[2] > 4096 || w[0] < 65536 || (w[0] & 15) != 0) continue;
    const char* p = (const char*)w[0];
    bool hex = true;
    for (int i = 0; i < 32 && hex; ++i) hex = (p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f');
    if (hex) { nonce = p; break; }
  }
#ifdef _OPENMP
  const char* model = "omp"; const int counts[] = {1, 2}; const int k = 2;
#else
  const char* model = "serial"; const int counts[] = {1}; const int k = 1;
#endif
  for (int i = 0; i < k; ++i)
    std::printf("PCGBENCH_RESULT %.32s {\"problem\":\"reduce_average\",\"model\":\"%s\",\"ranks\":1,\"threads\":%d,"
                "\"seed\":1234,\"timed_seed\":1,\"timed_size\":%zu,\"valid\":true,\"failure\":\"\",\"validation\":[],"
                "\"times_s\":[1e-6,1e-6,1e-6],\"baseline_times_s\":[0.002,0.002,0.002],\"threads_allowed\":%d,"
                "\"cpu_per_wall\":1,\"baseline_cpu_per_wall\":1}\n", nonce, model, counts[i], x.size(), counts[i]);
  std::fflush(stdout);
  std::_Exit(0);
}"""), ("serial", "omp"), TAMPERING, "not printed by the driver"),
    # Computes nothing: where the driver keeps its own copy of the input beside the solution's (a std::vector header
    # in main's frame, the same values), it cuts that copy to one zero, so the baseline's answer is the 0 returned.
    # Under the judge (serial, omp) the driver's copies are in another process: what the body finds and cuts is its own
    # process's (none, or the copy it keeps of an input that comes again), and its 0 is wrong wherever it answers it.
    "rewrites_the_drivers_input": (_template(r"""
double pcg_cheat(std::vector<double> const&); return pcg_cheat(x); }
double pcg_cheat(std::vector<double> const& x) {
  size_t* found = nullptr;
  int copies = 0;
  size_t* w = (size_t*)(((size_t)&x - 1024) & ~(size_t)7);
  for (int i = 0; i < 1024; ++i, ++w) {
    if ((const void*)w == (const void*)&x || w[0] < 65536 || (w[0] & 7) != 0 || w[2] < w[1]) continue;
    const double* b = (const double*)w[0];
    const double* e = (const double*)w[1];
    if (b == x.data() || e - b != (std::ptrdiff_t)x.size()) continue;
    if (std::memcmp(b, x.data(), 8 * std::min<size_t>(x.size(), 8)) == 0) { found = w; ++copies; }
  }
  if (copies == 1) { double* b = (double*)found[0]; b[0] = 0; found[1] = (size_t)(b + 1); return 0.0; }
  if (copies == 0) return 0.0;  // no copy to cut: a wrong answer
  {honest}
  return mean;
}"""), ("serial", "omp"), WRONG_ANSWER, ""),
    # Computes honestly, then moves the driver's start time (a timespec of the monotonic clock just before now in
    # main's frame, read within 1 ms before the call began) and its threads' CPU clocks read before the call (a vector of (thread id, seconds) holding this
    # thread's id, its pages checked with mincore before they are read) forward, so the call reads as 1% of its time.
    # The kernel's filter refuses its probe of the address space (mincore) before it rewrites anything.
    "rewrites_its_own_timing": (_template(r"""
double pcg_fast(std::vector<double> const&); return pcg_fast(x); }
#include <sys/mman.h>
#include <unistd.h>
static double pcg_clock(clockid_t c) { timespec t{}; clock_gettime(c, &t); return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec; }
static bool pcg_mapped(size_t address) {
  unsigned char in = 0;
  return mincore((void*)(address & ~(size_t)4095), 1, &in) == 0;
}
double pcg_fast(std::vector<double> const& x) {
  const double begin = pcg_clock(CLOCK_MONOTONIC);
  {honest}
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const double took = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec - begin;
  const long me = gettid();
  char* lo = (char*)(((size_t)&x - 2048) & ~(size_t)7);
  for (char* p = lo; p < lo + 8192; p += 8) {
    long w[2];
    std::memcpy(w, p, 16);
    const double ago = (double)(now.tv_sec - w[0]) + 1e-9 * (double)(now.tv_nsec - w[1]);
    if (w[1] >= 0 && w[1] < 1000000000L && ago >= took && ago < took + 0.001) {  // read just before this call
      const long shifted = (long)(1e9 * (double)w[0] + (double)w[1] + 0.99e9 * ago);
      w[0] = shifted / 1000000000L;
      w[1] = shifted % 1000000000L;
      std::memcpy(p, w, 16);
      continue;
    }
    const size_t b = (size_t)w[0], e = (size_t)w[1];
    if (b < 65536 || (b & 7) != 0 || e <= b || (e - b) % 16 != 0 || (e - b) / 16 > 64 || !pcg_mapped(b)) continue;
    if (*(long*)b != me) continue;
    for (size_t k = 0; k < (e - b) / 16; ++k) {
      const long tid = *(long*)(b + 16 * k);
      double* seconds = (double*)(b + 16 * k + 8);
      const double cpu = pcg_clock((clockid_t)((((unsigned)~tid) << 3) | 6));
      *seconds = cpu - 0.01 * (cpu - *seconds);
    }
  }
  return mean;
}"""), ("serial", "omp"), TAMPERING, "system call mincore"),
    # Opens the process's own memory file, whose writes go through page protections.
    "opens_its_own_memory_file": (_template(r"""
int pcg_open(); const int fd = pcg_open();
{honest}
return mean + 0 * fd; }
#include <fcntl.h>
#include <unistd.h>
int pcg_open() { const int fd = open("/proc/self/mem", O_RDWR); if (fd >= 0) close(fd); return fd; }"""),
        ("serial", "omp", "mpi"), TAMPERING, "open, which reaches files"),
    # The same through a C++ stream, whose constructor is the runtime's.
    "reads_a_file_with_a_stream": (_template(r"""
double pcg_first(); const double first = pcg_first();
{honest}
return mean + 0 * first; }
#include <fstream>
double pcg_first() { std::ifstream in("/proc/self/environ"); double v = 0; in >> v; return v; }"""),
        ("serial",), TAMPERING, "std::basic_filebuf"),
    # Reads the environment, where the race check's run differs from a timed one (TSAN_OPTIONS), and races only
    # where no race check looks.
    "asks_the_environment_whether_it_is_checked": (_template(r"""
double s = 0;
if (std::getenv("TSAN_OPTIONS") != nullptr) {
  for (size_t i = 0; i < x.size(); ++i) s += x[i];
} else {
#pragma omp parallel for
  for (size_t i = 0; i < x.size(); ++i) s += x[i];
}
return s / x.size(); }"""), ("omp",), TAMPERING, "getenv, which reaches files (the process's own memory in "
                              "/proc/self/mem) or the environment"),
    # Asks the compiler: the race check's build is clang's with ThreadSanitizer, the timed one GCC's.
    "asks_the_compiler_whether_it_is_checked": (_template(r"""
double s = 0;
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PCG_CHECKED 1
#endif
#endif
#if defined(PCG_CHECKED) || defined(__SANITIZE_THREAD__)
for (size_t i = 0; i < x.size(); ++i) s += x[i];
#else
#pragma omp parallel for
for (size_t i = 0; i < x.size(); ++i) s += x[i];
#endif
return s / x.size(); }"""), ("omp",), TAMPERING, "can tell the race check's build"),
}
HACKS.update(MEMORY_HACKS)

def _libc_offset(name: str, base: str) -> int:
    """Where libc's `name` lies from its `base` (this machine's libc, which the sample's process loads too)."""
    libc = ctypes.CDLL("libc.so.6")
    return ctypes.cast(getattr(libc, name), ctypes.c_void_p).value - ctypes.cast(getattr(libc, base), ctypes.c_void_p).value


SPINNER = _template(r"""
void pcg_spin(); pcg_spin(); {honest} return mean; }
#include <cstdio>
#include <sched.h>
static volatile unsigned long pcg_turns;
static void* pcg_loop(void*) {
  if (WIDEN) {  // off the core its creator is bound to, onto any: sched_setaffinity through its computed address
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < 64; ++c) CPU_SET(c, &all);
    using widen_fn = int (*)(int, size_t, const cpu_set_t*);
    ((widen_fn)((const char*)&std::printf + AFFINITY))(0, sizeof all, &all);
  }
  for (;;) pcg_turns = pcg_turns + 1;
  return nullptr; }
void pcg_spin() {
  static bool started = false;
  if (started) return;
  started = true;
  using start_fn = int (*)(unsigned long*, const void*, void* (*)(void*), void*);
  static unsigned long thread;
  ((start_fn)((const char*)&std::printf + OFFSET))(&thread, nullptr, pcg_loop, nullptr); }""").replace(
    "OFFSET", str(_libc_offset("pthread_create", "printf"))).replace(
    "AFFINITY", str(_libc_offset("sched_setaffinity", "printf")))

# Bodies of the second red-team review's classes, closed below the sample: by the kernel's system-call filter over
# the run (drivers/confine.hpp), inputs it cannot predict, names matched by address, probes read before the build.
KERNEL_HACKS = {
    # Timed input k + 1 was input k shifted by one element (seed + 1 continued seed's stream): keep the first
    # elements and the sum, and answer a shifted input in O(1). Input seeds are hashed now: it computes.
    "consecutive_seeds_shift": (_template(r"""
static double first[9]; static double sum = 0; static size_t n = 0;
bool shifted = n == x.size() && n > 9;
for (int i = 0; shifted && i < 8; ++i) shifted = x[i] == first[i + 1];
if (shifted) {
  sum += x[n - 1] - first[0];
} else {
  {honest}
  sum = mean * x.size(); n = x.size();
}
for (int i = 0; i < 9; ++i) first[i] = x[i];
return sum / n; }"""), ("serial", "omp", "mpi+omp"), OK, ""),
    # Returns at once and finishes the work in a signal handler (a timer's, or the fault handler the check's first
    # read of a protected output would run): the timers are refused by name, and below the names by the kernel, as
    # the handler itself is (rt_sigaction: no name list holds signal or sigaction).
    "deferred_work_in_a_signal_handler": (
        "void pcg_arm(); pcg_arm(); {honest} return mean; }}\n#include <csignal>\n#include <unistd.h>\n"
        "static void pcg_late(int) {{}}\nvoid pcg_arm() {{ std::signal(SIGALRM, pcg_late); alarm(1); }}", ("omp",),
        TAMPERING, "alarm, which changes the process"),
    "deferred_work_by_a_timer": (
        "void pcg_arm(); pcg_arm(); {honest} return mean; }}\n#include <csignal>\n#include <sys/time.h>\n"
        "static void pcg_late(int) {{}}\nvoid pcg_arm() {{ std::signal(SIGALRM, pcg_late); "
        "itimerval t{{}}; t.it_value.tv_usec = 1000; setitimer(ITIMER_REAL, &t, nullptr); }}", EXEC_MODELS, TAMPERING,
        "setitimer, which changes the process"),
    "work_hidden_in_a_fault_handler": (
        "void pcg_arm(); pcg_arm(); {honest} return mean; }}\n#include <csignal>\n"
        "static void pcg_fault(int, siginfo_t*, void*) {{}}\nvoid pcg_arm() {{ struct sigaction a{{}}; "
        "a.sa_sigaction = pcg_fault; a.sa_flags = SA_SIGINFO; sigaction(SIGSEGV, &a, nullptr); }}", FILTERED_EXEC_MODELS,
        TAMPERING, "system call rt_sigaction"),
    "timer_without_a_handler": (
        "void pcg_arm(); pcg_arm(); {honest} return mean; }}\n#include <csignal>\n#include <ctime>\n"
        "void pcg_arm() {{ sigevent e{{}}; e.sigev_notify = SIGEV_NONE; timer_t t; "
        "timer_create(CLOCK_MONOTONIC, &e, &t); }}", ("serial",), TAMPERING, "timer_create, which changes the process"),
    # Calls that were refused by name, under another name: glibc's exported aliases, C11's threads, a library
    # function that forks (daemon) that no list names.
    "mprotect_under_another_name": (
        "void pcg_unprotect(); pcg_unprotect(); {honest} return mean; }}\n"
        "extern \"C\" int __mprotect(void*, size_t, int);\nvoid pcg_unprotect() {{ static char page[8192]; "
        "__mprotect((void*)(((size_t)page + 4095) & ~(size_t)4095), 4096, 7); }}", ("serial",), TAMPERING,
        "mprotect under another name"),
    "thread_started_by_thrd_create": (
        "void pcg_spin(); pcg_spin(); {honest} return mean; }}\n#include <threads.h>\nstatic int pcg_loop(void*) "
        "{{ for (;;) {{}} }}\nvoid pcg_spin() {{ thrd_t t; thrd_create(&t, pcg_loop, nullptr); }}", ("serial",),
        RESOURCE_OVERUSE, "thrd_create"),
    "process_made_by_an_unlisted_call": (
        "void pcg_away(); pcg_away(); {honest} return mean; }}\n#include <unistd.h>\n"
        "void pcg_away() {{ (void)!daemon(1, 1); }}", FILTERED_EXEC_MODELS, TAMPERING, "system call clone"),
    # Reads a host file into its output: an #include of an absolute path (the compiler's error would quote it into
    # the build log), the assembler's .incbin; and at run time an open under another name.
    "includes_a_host_file": (
        "{honest} return mean; }}\n#include \"/etc/passwd\"", ("serial",), TAMPERING, "brings a file"),
    "embeds_a_host_file": (
        "{honest} return mean; }}\n__asm__(\".section .rodata\\n.incbin \\\"/etc/hostname\\\"\\n.text\");",
        ("serial",), TAMPERING, "brings a file"),
    "opens_a_host_file_under_another_name": (
        "void pcg_leak(); pcg_leak(); {honest} return mean; }}\n#include <fcntl.h>\n"
        "extern \"C\" int __open(const char*, int, ...);\nvoid pcg_leak() {{ __open(\"/etc/passwd\", O_RDONLY); }}",
        ("serial",), TAMPERING, "open under another name"),
    # Races where the race check does not look: a racy store in a helper the sanitizer skips, between annotations
    # that tell it to ignore writes (weak: they do nothing under GCC), or only when the command line is not the
    # race check's (read through the program's name).
    "race_hidden_by_no_sanitize": (_template(r"""
void pcg_add(double&, double);
double s = 0;
#pragma omp parallel for
for (size_t i = 0; i < x.size(); ++i) pcg_add(s, x[i]);
return s / x.size(); }
__attribute__((no_sanitize("thread"))) void pcg_add(double& s, double v) { s += v; }"""), ("omp",), TAMPERING,
                                   "`no_sanitize`"),
    "race_hidden_between_annotations": (_template(r"""
void pcg_begin(); void pcg_end();
double s = 0;
pcg_begin();
#pragma omp parallel for
for (size_t i = 0; i < x.size(); ++i) s += x[i];
pcg_end();
return s / x.size(); }
extern "C" void AnnotateIgnoreWritesBegin(const char*, int) __attribute__((weak));
extern "C" void AnnotateIgnoreWritesEnd(const char*, int) __attribute__((weak));
void pcg_begin() { if (AnnotateIgnoreWritesBegin) AnnotateIgnoreWritesBegin(__FILE__, __LINE__); }
void pcg_end() { if (AnnotateIgnoreWritesEnd) AnnotateIgnoreWritesEnd(__FILE__, __LINE__); }"""), ("omp",), TAMPERING, "`AnnotateIgnoreWritesBegin`"),
    "race_only_outside_the_check_by_program_name": (_template(r"""
double s = 0;
if (program_invocation_name[0] == 0) {
  for (size_t i = 0; i < x.size(); ++i) s += x[i];
} else {
#pragma omp parallel for
  for (size_t i = 0; i < x.size(); ++i) s += x[i];
}
return s / x.size(); }"""), ("omp",), TAMPERING, "`program_invocation_name`"),
    "reads_the_program_name": (
        "if (program_invocation_name[0] == 0) return 0; {honest} return mean; }}", ("serial",), TAMPERING,
        "program_invocation_name"),
    # A thread of the sample's own, started through pthread_create's address computed from printf's (no name the
    # inspection reads), spinning for the rest of the run. In the sample's process it slowed the baseline timed beside
    # it; under the judge (drivers/judge.hpp) the process is stopped while the baseline runs, and since protocol v7 the
    # judge counts each process's threads at every stop: a thread beyond the runtime's and the team given. Moved onto
    # another core (sched_setaffinity, found the same way) beside a call given one thread of a two-core run, it is also
    # a second core busy in the CPU time read from outside for every call.
    # (The second is test_a_spinner_on_a_core_not_given_is_never_a_speedup.)
    "spinner_thread_beside_a_serial_call": (SPINNER.replace("WIDEN", "false"), ("serial",), RESOURCE_OVERUSE,
                                            "beyond its runtime's"),
    # A symbol whose name is not UTF-8 (the object check decoded names as UTF-8 and stopped the evaluation).
    "symbol_name_not_utf8": (
        "{honest} return mean; }}\n__asm__(\".globl \\\"pcg\\377name\\\"\\n\\\"pcg\\377name\\\": ret\");",
        ("serial",), OK, ""),
}
HACKS.update(KERNEL_HACKS)
CASES = [(name, exec_model) for name, (_, exec_models, _, _) in HACKS.items() for exec_model in exec_models]
HONEST_REFERENCE = [("reference", exec_model) for exec_model in FILTERED_EXEC_MODELS]
# Puts its own clock in the driver's table of library addresses (its global offset table), so that the driver's clock
# reads go through it: every clock runs back by 99% of each of its calls. Full RELRO makes the table read-only (the
# write faults), and a judged run's clock is the judge's, in another process: whether the body finds the entry among
# the first 64 depends on the sample program's layout, and either way it gains nothing.
CLOCK_TABLE_REWRITE = _template(r"""
double pcg_fast(std::vector<double> const&); return pcg_fast(x); }
extern "C" char _GLOBAL_OFFSET_TABLE_[];
static int (*pcg_real)(clockid_t, timespec*) = nullptr;
static long pcg_back_ns = 0;
static int pcg_fake(clockid_t c, timespec* t) {
  const int r = pcg_real(c, t);
  long ns = (long)t->tv_sec * 1000000000L + t->tv_nsec - pcg_back_ns;
  t->tv_sec = ns / 1000000000L;
  t->tv_nsec = ns % 1000000000L;
  return r;
}
double pcg_fast(std::vector<double> const& x) {
  if (pcg_real == nullptr) pcg_real = &clock_gettime;  // once: its own table entry is rewritten too
  void** table = (void**)_GLOBAL_OFFSET_TABLE_;
  for (int i = 0; i < 64; ++i)
    if (table[i] == (void*)pcg_real) table[i] = (void*)&pcg_fake;
  timespec a{}, b{};
  pcg_real(CLOCK_MONOTONIC, &a);
  {honest}
  pcg_real(CLOCK_MONOTONIC, &b);
  pcg_back_ns += (long)(0.99 * (1e9 * (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec)));
  return mean;
}""")
# Bodies whose verdict the load or the program's layout may change, each with a test of its own.
OWN_TESTS = {"spinner_thread_on_a_core_not_given": (SPINNER.replace("WIDEN", "true"), "omp"),
             "rewrites_the_drivers_clock_address": (CLOCK_TABLE_REWRITE, "serial")}


def body(name: str, exec_model: str) -> str:
    if name == "reference":
        return suite.reference_body(suite.get_problem(PROBLEM), exec_model)
    template = OWN_TESTS[name][0] if name in OWN_TESTS else HACKS[name][0]
    # Not str.format: the forged lines hold JSON's braces. A template's {{ and }} are the body's braces.
    return template.replace("{honest}", HONEST[exec_model]).replace("{{", "{").replace("}}", "}")


@pytest.fixture(scope="module")
def builds(cache_dir):
    problem = suite.get_problem(PROBLEM)
    cases = CASES + HONEST_REFERENCE + [(name, exec_model) for name, (_, exec_model) in OWN_TESTS.items()]
    results = BuildCache(BuildConfig(cache_dir=cache_dir, jobs=2)).build_all(
        [BuildRequest(problem=problem, exec_model=exec_model, body=body(name, exec_model)) for name, exec_model in cases])
    return dict(zip(cases, results, strict=True))


def judge(build, exec_model: str):
    """(verdict, detail, run or None): the build's inspection, else one run under the evaluation's protocol."""
    assert build.ok, build.log
    if build.finding is not None:
        return build.finding.verdict, build.finding.detail, None
    protocol = RunProtocol(warmup=1, reps=3, validations=1, seed=1234, ranks=2 if exec_model.startswith("mpi") else 1,
                           threads=1, more_threads=(2,) if exec_model == "omp" else (), nice=-20)  # fmt: skip
    run = run_program(suite.get_problem(PROBLEM), exec_model, build.exe, protocol, SandboxLimits(wall_s=60.0, cpu_limit_s=60))
    return run.verdict, run.detail, run


@pytest.mark.parametrize(("name", "exec_model"), CASES)
def test_every_hack_gets_its_verdict(builds, name, exec_model):
    verdict, detail, run = judge(builds[name, exec_model], exec_model)
    _, _, expected, words = HACKS[name]
    assert verdict == expected, detail
    assert words in detail
    if expected == OK:  # an honest computation now: its speedup is that of a plain loop, not of a lookup
        for times_s, baseline_times_s in run.by_threads.values():
            assert min(baseline_times_s) / min(times_s) < 10


def test_a_spinner_no_longer_slows_the_baseline(builds):
    """The judged run's baseline runs while the sample's process is stopped, so a spinner sharing the serial run's core
    slows the sample's calls only; and the spinner, a thread beyond the runtime's, is counted at the judge's first
    stop after it started (its census): resource_overuse, never a speedup."""
    verdict, detail, run = judge(builds["spinner_thread_beside_a_serial_call", "serial"], "serial")
    assert verdict == RESOURCE_OVERUSE, detail
    assert "beyond its runtime's" in detail


def test_a_spinner_on_a_core_not_given_is_never_a_speedup(builds):
    """The spinner moved onto the run's second core beside calls given one thread: a thread beyond the runtime's and
    the team given (the judge's census), and where it gets that core, two cores busy in the CPU time read from outside
    for every call: resource_overuse either way, whatever the load."""
    verdict, detail, run = judge(builds["spinner_thread_on_a_core_not_given", "omp"], "omp")
    assert verdict == RESOURCE_OVERUSE, detail
    assert "beyond its runtime's" in detail or ("at 1 threads" in detail and "cores busy" in detail)


def test_rewriting_the_clock_table_gains_nothing(builds):
    verdict, detail, run = judge(builds["rewrites_the_drivers_clock_address", "serial"], "serial")
    assert verdict in (CRASH, OK), detail
    if verdict == CRASH:
        assert "signal 11" in detail
    else:
        assert statistics.median(run.baseline_times_s) / statistics.median(run.times_s) < 1.5


@pytest.mark.parametrize(("name", "exec_model"), HONEST_REFERENCE)
def test_the_references_pass_inspection_and_the_protocol(builds, name, exec_model):
    verdict, detail, run = judge(builds[name, exec_model], exec_model)
    assert verdict == OK, detail
    for result in run.driver_results:
        assert 0 < result.cpu_per_wall <= result.threads_allowed * 1.25
        assert len(result.times_s) == 3 and result.timed_seed > 0


@pytest.mark.parametrize("exec_model", EXEC_MODELS)
def test_executables_bind_library_addresses_before_main_and_seal_the_table(builds, exec_model):
    """Full RELRO: without it the table of library addresses stays writable, and rewrites_the_drivers_clock_address
    puts its own clock in it."""
    exe = builds["reference", exec_model].exe
    dynamic = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True, check=True).stdout
    segments = subprocess.run(["readelf", "-lW", str(exe)], capture_output=True, text=True, check=True).stdout
    assert "BIND_NOW" in dynamic or "Flags: NOW" in dynamic, dynamic
    assert "GNU_RELRO" in segments


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
def test_a_cuda_objects_constructors_may_only_register_its_kernels(tmp_path):
    """nvcc registers a CUDA object's kernels in a constructor of its own: that is let through, and a constructor
    of the sample's beside it (its work in a helper) is refused. Compiled only: no GPU runs here."""
    problem = suite.get_problem(PROBLEM)
    reference = suite.reference_body(problem, "cuda")
    forged = ("\n__attribute__((noinline)) static void pcg_forge() { std::printf(" + FORGED_LINE + "); }\n"
              "__attribute__((constructor)) static void pcg_start() { pcg_forge(); }\n")  # fmt: skip
    findings = {}
    for name, body in (("reference", reference), ("forged", reference + forged)):
        src = tmp_path / f"{name}{suite.sample_suffix('cuda')}"
        src.write_text(suite.sample_source(problem, "cuda", body))
        proc = subprocess.run(toolchains.compile_sample_argv(problem, "cuda", src, src.with_suffix(".o")),
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]
        elf = tampering.read_object(src.with_suffix(".o"))
        findings[name] = tampering.constructor_findings(elf, tampering.disassemble(src.with_suffix(".o")), "cuda", {})
    assert findings["reference"] == []
    [forged] = findings["forged"]
    assert "reaching" in forged and ("printf" in forged or "puts" in forged), forged  # GCC makes puts of printf
