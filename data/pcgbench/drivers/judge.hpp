// The judge: the clock, the serial baseline, the check and the verdict in a process the sample is not linked into, for
// the execution models whose sample runs in one process (serial, omp, kokkos; run.JUDGED_MODELS).
//
// Two programs. The judge is this driver compiled with PCG_JUDGE and linked without the sample (the harness's
// call_solution is never called, so nothing of the sample is in it): it alone reads the run's secret, draws the timed
// inputs' seeds, times, computes the baseline's answers, checks and prints the signed result lines. The sample's
// program (the driver linked with the sample, started with --judged) is the judge's child: it loads the system-call
// filter (confine.hpp) and then only answers the judge, one call at a time, over two pipes (descriptors 3 and 4):
//   judge -> sample  PREPARE(size, seed, threads)  the sample's process generates that input (never told the secret)
//   sample -> judge  READY
//   judge -> sample  GO                             the timed window opens when the judge sends it ...
//   sample -> judge  DONE                           ... and closes when the judge reads this
//   sample -> judge  OUTPUT(where its answer is)    the judge then stops the process (SIGSTOP) and copies the answer
//                                                   out of it (process_vm_readv) while no code of it can run
// The sample's process is stopped from the end of each call until the judge's next PREPARE: while the judge times the
// baseline (no spinner, no signal handler and no thread of the sample can slow it: none of them runs), while it checks
// the answer (no work deferred past the call can finish it: nothing runs; no fault handler: rt_sigaction is refused),
// and while it prints. Its CPU time is read from outside, from the kernel's clock of the whole process (every thread
// of it), with the process stopped at both ends of each call's window, so the reading is exact (a running thread's
// clock is only brought up to date at a scheduler tick) and every timed call is checked, not the median one.
// What the sample's process could still do: lie about where its answer is (the judge reads whatever it names, so the
// answer must be there, right, by the end of the call) and generate a wrong input (its answer is checked against the
// baseline's on the input generated here). It cannot reach the judge: no ptrace, no process_vm_*, no kill of another
// process (confine.hpp), and the judge's memory is its own.
#pragma once

#include <csignal>
#include <fcntl.h>
#include <limits.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <tuple>

namespace pcg {

enum JudgeOp : std::int32_t { kPrepare = 1, kGo, kRelease, kExit, kReady = 101, kDone, kOutput };
constexpr int kCommandFd = 3, kReplyFd = 4;
constexpr int kMaxOutputs = 4;

// Where one output of a call is in the sample's process: its address, its length in bytes and its element count.
struct OutputSpan {
  std::uint64_t address, bytes, count;
};
struct JudgeMessage {
  std::int32_t op = 0, threads = 0;
  std::uint64_t size = 0, seed = 0;
  std::int32_t outputs = 0, unused = 0;
  OutputSpan spans[kMaxOutputs] = {};
};
static_assert(sizeof(JudgeMessage) <= PIPE_BUF, "a message is written in one piece");

inline bool send_message(int fd, const JudgeMessage& m) {
  const char* p = reinterpret_cast<const char*>(&m);
  std::size_t done = 0;
  while (done < sizeof m) {
    const ssize_t n = write(fd, p + done, sizeof m - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += (std::size_t)n;
  }
  return true;
}
inline bool receive_message(int fd, JudgeMessage& m) {
  char* p = reinterpret_cast<char*>(&m);
  std::size_t done = 0;
  while (done < sizeof m) {
    const ssize_t n = read(fd, p + done, sizeof m - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += (std::size_t)n;
  }
  return true;
}

// The outputs of a call: the harness's outputs(Data&) (a tuple of references) where its check reads more than
// result(), else result() alone.
template <class D>
auto outputs_of(D& d, int) -> decltype(outputs(d)) { return outputs(d); }
template <class D>
auto outputs_of(D& d, long) { return std::tie(result(d)); }

template <std::size_t... I, class F>
void for_indices(std::index_sequence<I...>, F&& f) { (f(std::integral_constant<std::size_t, I>{}), ...); }

inline std::uint64_t address_of(const void* p) { return (std::uint64_t)(std::uintptr_t)p; }

#ifndef PCG_JUDGE
// ---------------------------------------------------------------------------------------------------------
// The sample's side: say where each output is (a std::vector<bool>'s bits are copied out as bytes first).
template <class T>
OutputSpan describe_output(std::vector<T>& v, std::vector<unsigned char>&) {
  static_assert(std::is_trivially_copyable<T>::value, "an output's elements are copied as bytes");
  return {address_of(v.data()), v.size() * sizeof(T), v.size()};
}
inline OutputSpan describe_output(std::vector<bool>& v, std::vector<unsigned char>& bytes) {
  bytes.assign(v.begin(), v.end());
  return {address_of(bytes.data()), bytes.size(), bytes.size()};
}
template <class T>
OutputSpan describe_output(T& x, std::vector<unsigned char>&) {
  static_assert(std::is_trivially_copyable<T>::value, "an output is copied as bytes");
  return {address_of(&x), sizeof x, 1};
}

// The sample's process under the judge (main() with --judged): confined, then one call per PREPARE and GO.
inline int serve_judge() {
  if (!confine()) return 5;
  Data got;
  std::vector<unsigned char> bytes[kMaxOutputs];
  int threads = 0;
  JudgeMessage m;
  while (receive_message(kCommandFd, m)) {
    JudgeMessage reply;
    if (m.op == kPrepare) {
      if (m.threads != threads) set_threads(threads = m.threads);
      got = generate((std::size_t)m.size, m.seed);
      reply.op = kReady;
      if (!send_message(kReplyFd, reply)) return 1;
    } else if (m.op == kGo) {
      call_solution(got);
      escape(&result(got));
      reply.op = kDone;
      if (!send_message(kReplyFd, reply)) return 1;
      collect_output_if_defined(got, 0);  // the harness's conversion, after the timed window
      auto outs = outputs_of(got, 0);
      constexpr std::size_t n = std::tuple_size<decltype(outs)>::value;
      static_assert(n <= (std::size_t)kMaxOutputs, "at most kMaxOutputs outputs");
      reply.op = kOutput;
      reply.outputs = (int)n;
      for_indices(std::make_index_sequence<n>{}, [&](auto i) { reply.spans[i] = describe_output(std::get<i>(outs), bytes[i]); });
      if (!send_message(kReplyFd, reply)) return 1;
    } else if (m.op == kRelease) {
      release_threads();
    } else {
      return 0;  // kExit
    }
  }
  return 1;  // the judge is gone
}
#else
// ---------------------------------------------------------------------------------------------------------
// The judge's side.

// Copies `bytes` bytes at `address` in process `pid` into `into`; false where they cannot be read.
inline bool read_remote(pid_t pid, std::uint64_t address, void* into, std::size_t bytes) {
  char* to = static_cast<char*>(into);
  std::size_t done = 0;
  while (done < bytes) {
    iovec local{to + done, bytes - done};
    iovec remote{reinterpret_cast<void*>((std::uintptr_t)(address + done)), bytes - done};
    const ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) return false;
    done += (std::size_t)n;
  }
  return true;
}

// An answer with far more elements than the baseline's is not copied (the sample would choose the judge's memory use).
inline std::size_t most_elements(std::size_t expected) { return 4 * expected + 64; }
template <class T>
std::size_t element_count(const std::vector<T>& v) { return v.size(); }
template <class T>
std::size_t element_count(const T&) { return 1; }

inline bool unreadable(const OutputSpan& s, std::string& why) {
  why = "the sample's answer could not be read where its process said it was (" + std::to_string(s.bytes) + " bytes)";
  return false;
}
template <class T>
bool take_output(pid_t pid, const OutputSpan& s, std::vector<T>& v, std::size_t expected, std::string& why) {
  if (s.count > most_elements(expected) || s.bytes != s.count * sizeof(T)) {
    why = "the answer has " + std::to_string(s.count) + " elements, expected " + std::to_string(expected);
    return false;
  }
  v.resize((std::size_t)s.count);
  return read_remote(pid, s.address, v.data(), (std::size_t)s.bytes) || unreadable(s, why);
}
inline bool take_output(pid_t pid, const OutputSpan& s, std::vector<bool>& v, std::size_t expected, std::string& why) {
  if (s.count > most_elements(expected) || s.bytes != s.count) {
    why = "the answer has " + std::to_string(s.count) + " elements, expected " + std::to_string(expected);
    return false;
  }
  std::vector<unsigned char> bytes((std::size_t)s.bytes);
  if (!read_remote(pid, s.address, bytes.data(), bytes.size())) return unreadable(s, why);
  v.assign(bytes.begin(), bytes.end());
  return true;
}
template <class T>
bool take_output(pid_t pid, const OutputSpan& s, T& x, std::size_t, std::string& why) {
  if (s.bytes != sizeof(T)) {
    why = "the answer is " + std::to_string(s.bytes) + " bytes, expected " + std::to_string(sizeof(T));
    return false;
  }
  return read_remote(pid, s.address, &x, sizeof x) || unreadable(s, why);
}

// The sample's process, seen from the judge.
struct SampleProcess {
  pid_t pid = -1;
  int to = -1, from = -1;  // the command and reply pipes
  clockid_t clock{};       // the kernel's CPU clock of the whole process
  DIR* tasks = nullptr;    // its /proc/<pid>/task
  bool stopped = false;

  // The process ended (or stopped answering: then it is killed). The judge ends the same way, so that the run's
  // verdict reads as if the sample's process were the run: its signal (a crash, a resource limit), its exit status
  // (the filter's refusal, kRefusedExit), or 1 (it exited, or closed its pipes, in the middle of the protocol).
  [[noreturn]] void gone(const char* during) {
    int status = 0;
    pid_t done = 0;
    // A process that crashed closes its pipes a moment before it can be reaped: up to a second for it to end.
    for (int wait = 0; wait < 1000 && (done = waitpid(pid, &status, WNOHANG)) == 0; ++wait) {
      const timespec pause{0, 1000000};
      nanosleep(&pause, nullptr);
    }
    bool killed_here = false;
    if (done == 0) {  // alive and silent: its pipes closed, or a message made no sense
      kill(pid, SIGKILL);
      killed_here = true;
      waitpid(pid, &status, 0);
    }
    std::fflush(stdout);
    if (!killed_here && WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      std::fprintf(stderr, "pcgbench judge: the sample's process was ended by signal %d during %s\n", sig, during);
      std::signal(sig, SIG_DFL);
      sigset_t one;
      sigemptyset(&one);
      sigaddset(&one, sig);
      sigprocmask(SIG_UNBLOCK, &one, nullptr);
      kill(getpid(), sig);
      std::_Exit(128 + sig);
    }
    if (!killed_here && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "pcgbench judge: the sample's process exited with status %d during %s\n",
                   WEXITSTATUS(status), during);
      std::_Exit(WEXITSTATUS(status));
    }
    std::fprintf(stderr, "pcgbench judge: the sample's process %s during %s\n",
                 killed_here ? "stopped answering" : "exited", during);
    std::_Exit(1);
  }
  void send(JudgeOp op, std::size_t size = 0, std::uint64_t seed = 0, int threads = 0) {
    JudgeMessage m;
    m.op = op, m.size = size, m.seed = seed, m.threads = threads;
    if (!send_message(to, m)) gone("a call");
  }
  JudgeMessage expect(JudgeOp op) {
    JudgeMessage m;
    if (!receive_message(from, m) || m.op != op) gone("a call");
    return m;
  }
  void stop() {
    if (stopped) return;
    int status = 0;
    if (kill(pid, SIGSTOP) != 0 || waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status)) gone("a call");
    stopped = true;
    settle();
  }
  // The kernel tells the parent that the process stopped when its last thread has agreed to stop, just before that
  // thread leaves its core; a thread's CPU time is brought up to date when it leaves (or at a scheduler tick), so a
  // reading taken in between misses up to a tick of it (measured: a serial call of 2 ms read as 2.64 cores). So the
  // judge waits until every thread is off its core: /proc's wchan names where a thread sleeps only once it is
  // (do_signal_stop), "0" while it still runs. Bounded (2 ms): a /proc that does not say leaves the reading as it is.
  void settle() {
    if (tasks == nullptr) return;
    for (int attempt = 0; attempt < 200; ++attempt) {
      bool all_off = true;
      rewinddir(tasks);
      while (dirent* entry = readdir(tasks)) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
        const std::string path = "/proc/" + std::to_string(pid) + "/task/" + entry->d_name + "/wchan";
        char where[64] = {0};
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;  // the thread has ended
        const ssize_t n = read(fd, where, sizeof where - 1);
        close(fd);
        if (n <= 0 || (n == 1 && where[0] == '0')) all_off = false;
      }
      if (all_off) return;
      const timespec pause{0, 10000};
      nanosleep(&pause, nullptr);
    }
  }
  void resume() {
    if (!stopped) return;
    kill(pid, SIGCONT);
    stopped = false;
  }
  double cpu_s() const { return read_clock_s(clock); }
};

// Starts the sample's program with --judged, its standard input empty (the secret stays here), descriptors 3 and 4
// the pipes, its standard output and error the run's.
inline SampleProcess start_sample(const std::string& exe) {
  // The CPUs the run was given: OpenMP's places (made from the process's mask before its runtime bound this thread to
  // the first of them, as it binds the first thread of every run with OMP_PROC_BIND), so that the sample's process
  // starts on all of them, not on this thread's one.
  cpu_set_t given;
  CPU_ZERO(&given);
  bool placed = false;
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids((std::size_t)omp_get_place_num_procs(p));
    omp_get_place_proc_ids(p, ids.data());
    for (int id : ids) CPU_SET(id, &given), placed = true;
  }
  int command[2], reply[2];
  if (pipe2(command, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0) {
    std::perror("pcgbench judge: pipe2");
    std::exit(3);
  }
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("pcgbench judge: fork");
    std::exit(3);
  }
  if (pid == 0) {
    // Above 4 first, so that dup2 onto 3 and 4 cannot meet a descriptor already there.
    const int in = fcntl(command[0], F_DUPFD, 10), out = fcntl(reply[1], F_DUPFD, 10);
    const int empty = open("/dev/null", O_RDONLY);
    if (in < 0 || out < 0 || empty < 0 || dup2(empty, 0) < 0 || dup2(in, kCommandFd) < 0 || dup2(out, kReplyFd) < 0) _exit(3);
    if (placed && sched_setaffinity(0, sizeof given, &given) != 0) _exit(3);
    char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>("--judged"), nullptr};
    execv(exe.c_str(), argv);
    std::fprintf(stderr, "pcgbench judge: cannot start %s\n", exe.c_str());
    _exit(3);
  }
  close(command[0]);
  close(reply[1]);
  SampleProcess s;
  s.pid = pid, s.to = command[1], s.from = reply[0];
  if (clock_getcpuclockid(pid, &s.clock) != 0) s.gone("its start");
  s.tasks = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  return s;
}

// One call of the sample on the input (size, seed) at `threads` threads; its outputs copied into `got` (the rest of
// `got` left as constructed). Returns false (why set) when its answer cannot be taken. With `timing`, the call's wall
// time (from GO sent to DONE read) and its process's CPU time over the wall time of a window holding the call.
struct CallTiming {
  double wall_s = 0, cpu_per_wall = 0;
};
inline bool call_sample(SampleProcess& s, std::size_t size, std::uint64_t seed, int threads, Data& got,
                        const Data& want, std::string& why, CallTiming* timing) {
  s.resume();
  s.send(kPrepare, size, seed, threads);
  s.expect(kReady);
  s.stop();
  const double cpu0 = s.cpu_s(), w0 = now_s();
  s.resume();
  const double t0 = now_s();
  s.send(kGo);
  s.expect(kDone);
  const double t1 = now_s();
  const JudgeMessage out = s.expect(kOutput);
  s.stop();
  const double w1 = now_s(), cpu1 = s.cpu_s();
  if (timing) *timing = CallTiming{t1 - t0, w1 > w0 ? (cpu1 - cpu0) / (w1 - w0) : 0.0};
  got = Data{};
  auto outs = outputs_of(got, 0);
  auto wanted = outputs_of(const_cast<Data&>(want), 0);
  constexpr std::size_t n = std::tuple_size<decltype(outs)>::value;
  if (out.outputs != (int)n) {
    why = "the sample's process described " + std::to_string(out.outputs) + " outputs, expected " + std::to_string(n);
    return false;
  }
  bool ok = true;
  for_indices(std::make_index_sequence<n>{}, [&](auto i) {
    if (ok) ok = take_output(s.pid, out.spans[i], std::get<i>(outs), element_count(std::get<i>(wanted)), why);
  });
  return ok;
}

// The judge's thread's CPU clock, which runs the baseline: exact when read by the thread itself, where the process's
// clock, under the run's RLIMIT_CPU, is brought up to date only at the scheduler's ticks (a 2 ms baseline call read
// as 1.33 cores).
inline double own_cpu_s() { return read_clock_s(CLOCK_THREAD_CPUTIME_ID); }

// The threads each process of a timed call may keep busy: OpenMP's sweep count, Kokkos's thread count as the run gave
// it (OMP_NUM_THREADS, read before anything here changes it), one for serial.
inline int judged_threads_allowed(int sweep_threads, int given) {
#if defined(PCG_MODEL_KOKKOS)
  (void)sweep_threads;
  return given;
#else
  (void)given;
  return sweep_threads;
#endif
}

inline int judge_main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  if (args.sample_exe.empty() || args.check_validator) {
    std::fprintf(stderr, "pcgbench judge: needs --sample PATH (and no --check-validator)\n");
    return 2;
  }
  const int given = omp_get_max_threads();  // OMP_NUM_THREADS of the run (run_argv)
  // The secret: the nonce signs the result lines, the timed seed draws the timed inputs; neither leaves this process.
  std::string nonce = "-";
  std::uint64_t timed_seed = args.seed + 1000003ULL;
  if (args.secret_stdin) {
    char line[160] = {0}, text[129] = {0};
    std::size_t used = 0;
    while (used + 1 < sizeof line && (used == 0 || line[used - 1] != '\n')) {
      const ssize_t got = read(0, line + used, sizeof line - 1 - used);
      if (got <= 0) break;
      used += (std::size_t)got;
    }
    unsigned long long seed = 0;
    if (std::sscanf(line, "%128s %llu", text, &seed) == 2) nonce = text, timed_seed = seed;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a sample's process that dies shows as a closed pipe (SampleProcess::gone)
  SampleProcess sample = start_sample(args.sample_exe);
#if defined(PCG_MODEL_KOKKOS)
  // The judge's own Kokkos (a generator may allocate Views) on one thread: no worker of its own spins beside the sample.
  omp_set_num_threads(1);
  Kokkos::InitArguments one_thread;
  one_thread.num_threads = 1;
  Kokkos::initialize(one_thread);
#endif
  const std::vector<int> sweep = args.threads_sweep.empty() ? std::vector<int>{given} : args.threads_sweep;
  const std::size_t timed_size = args.sizes.back();
  std::string validation = "[";
  bool all_ok = true;
  std::string failure;
  Data input, want, got;
  std::size_t last_size = 0;
  std::uint64_t last_seed = 0;
  auto validate = [&](std::size_t n, const std::string& where, int threads) {
    std::string why;
    bool ok = call_sample(sample, last_size, last_seed, threads, got, want, why, nullptr);
    ok = ok && check(input, want, got, why);
    validation += std::string(validation.size() > 1 ? "," : "") + "{\"size\":" + std::to_string(n) +
                  ",\"pass\":" + (ok ? "true" : "false") + ",\"why\":\"" + json_escape(why) + "\"}";
    if (!ok && all_ok) all_ok = false, failure = where + ": " + why;
    return ok;
  };
  // 1. Every input validated at every thread count of the sweep (its baseline answer computed once).
  for (std::size_t i = 0; i < args.sizes.size() && all_ok; ++i) {
    last_size = args.sizes[i], last_seed = args.seed + i;
    input = generate(last_size, last_seed);
    want = input;
    call_baseline(want);
    for (int threads : sweep) {
      const std::string at = sweep.size() > 1 ? " at " + std::to_string(threads) + " threads" : "";
      if (!validate(last_size, "size " + std::to_string(last_size) + at, threads)) break;
    }
    if (sweep.size() > 1) sample.send(kRelease);
  }
  // 2. Timed: per thread count, warm-ups on the input of the call before, then timed calls each on a fresh input
  // whose seed only this process knows, each followed by the baseline's call on the same input (the sample's process
  // stopped meanwhile) and the check of the sample's answer.
  std::vector<std::vector<double>> times(sweep.size()), baseline_times(sweep.size()), ratios(sweep.size()),
      baseline_ratios(sweep.size());
  std::uint64_t next_index = 0;
  if (all_ok && args.reps > 0) {
    for (std::size_t c = 0; c < sweep.size() && all_ok; ++c) {
      for (int r = 0; r < args.warmup + args.reps; ++r) {
        const bool fresh = r >= args.warmup;
        if (fresh) last_size = timed_size, last_seed = input_seed(timed_seed, next_index++);
        CallTiming timing;
        std::string why;
        bool ok = call_sample(sample, last_size, last_seed, sweep[c], got, want, why, fresh ? &timing : nullptr);
        if (fresh) {
          input = generate(last_size, last_seed);
          if (CheckReadsInput<Data>::value) want = input;
          else want = std::move(input);
          const double c0 = own_cpu_s(), b0 = now_s();
          call_baseline(want);
          escape(&result(want));
          const double b1 = now_s(), c1 = own_cpu_s();
          baseline_times[c].push_back(b1 - b0);
          baseline_ratios[c].push_back(b1 > b0 ? (c1 - c0) / (b1 - b0) : 0.0);
        }
        ok = ok && check(input, want, got, why);
        if (!ok) {
          all_ok = false;
          failure = (fresh ? "timed call " + std::to_string(r + 1 - args.warmup) + " of " + std::to_string(args.reps)
                           : "warm-up call " + std::to_string(r + 1) + " of " + std::to_string(args.warmup)) +
                    " at " + std::to_string(sweep[c]) + " threads" +
                    (fresh ? " (fresh input, seed " + std::to_string(last_seed) + ")" : "") + ": " + why;
          break;
        }
        if (fresh) times[c].push_back(timing.wall_s), ratios[c].push_back(timing.cpu_per_wall);
      }
      if (sweep.size() > 1) sample.send(kRelease);
    }
  }
#if defined(PCG_MODEL_OMP)
  // 3. Stress validations (main.hpp says why they come last), on the input timed last.
  if (all_ok && args.stress_validations > 0) {
    const std::string where = "size " + std::to_string(last_size) + " at " + std::to_string(args.stress_threads) + " threads";
    for (int j = 0; j < args.stress_validations; ++j)
      if (!validate(last_size, where, args.stress_threads)) break;
  }
#endif
  validation += "]";
  sample.resume();
  sample.send(kExit);
  int status = 0;
  if (waitpid(sample.pid, &status, 0) != sample.pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    // Its exit failed: the same as a failure during a call (the status is read again there).
    std::fprintf(stderr, "pcgbench judge: the sample's process did not exit cleanly\n");
    if (WIFSIGNALED(status)) {
      std::signal(WTERMSIG(status), SIG_DFL);
      kill(getpid(), WTERMSIG(status));
    }
    std::_Exit(WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1);
  }
  const std::string json_model = json_escape(args.model);
  for (std::size_t c = 0; c < sweep.size(); ++c) {
    const std::size_t n = all_ok ? times[c].size() : 0;  // an invalid run's timings are dropped
    // Every timed call's CPU ratio is checked (the largest), not the median: read from outside, with the process
    // stopped at both ends, an honest call cannot exceed its threads.
    const double cpu = n ? *std::max_element(ratios[c].begin(), ratios[c].end()) : 0.0;
    const double baseline_cpu = n ? median(baseline_ratios[c]) : 0.0;
    std::printf("PCGBENCH_RESULT %s {\"problem\":\"%s\",\"model\":\"%s\",\"ranks\":1,\"threads\":%d,"
                "\"seed\":%llu,\"timed_seed\":%llu,\"timed_size\":%zu,\"valid\":%s,\"failure\":\"%s\","
                "\"validation\":%s,\"times_s\":%s,\"baseline_times_s\":%s,\"threads_allowed\":%d,"
                "\"cpu_per_wall\":%s,\"baseline_cpu_per_wall\":%s}\n",
                nonce.c_str(), PCG_PROBLEM_NAME, json_model.c_str(), sweep[c], (unsigned long long)args.seed,
                (unsigned long long)timed_seed, timed_size, all_ok ? "true" : "false", json_escape(failure).c_str(),
                validation.c_str(), times_json(times[c].data(), (int)n).c_str(),
                times_json(baseline_times[c].data(), (int)n).c_str(), judged_threads_allowed(sweep[c], given),
                show(cpu).c_str(), show(baseline_cpu).c_str());
  }
  std::fflush(stdout);
#if defined(PCG_MODEL_KOKKOS)
  input = Data{}, want = Data{}, got = Data{};  // their Views go before Kokkos does
  Kokkos::finalize();
#endif
  return 0;
}
#endif

}  // namespace pcg
