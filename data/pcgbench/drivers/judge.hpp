// The judge: the clock, the serial baseline, the check and the verdict in a process the sample is not linked into.
//
// Two programs. The judge is this driver linked without the sample (the solution's symbol bound to pcg_no_sample, which
// it never calls, so nothing of the sample is in it): it alone reads the run's secret, draws the timed
// inputs' seeds, times, computes the baseline's answers, checks and prints the signed result lines. The sample's
// program (the driver linked with the sample) only answers the judge, one call at a time: serial, omp and kokkos run
// it as the judge's child (--judged; its descriptors 3 and 4 the pipes), MPI as the ranks of an mpirun the judge
// starts (--judged-at DIR; each rank's pipes are named pipes in DIR, opened before any code of the sample runs).
// Each rank's process says hello (its pid) and loads the system-call filter (confine.hpp), then:
//   judge -> each rank  PREPARE(size, seed, threads)  every rank generates that input (none is told the secret)
//   each rank -> judge  READY
//   judge -> each rank  GO                            the timed window opens when the judge sends it ...
//   each rank -> judge  DONE(where its answer is)     ... and closes when the last rank's DONE is read; each rank's
//                                                     process is stopped (SIGSTOP) as its DONE arrives, and rank 0's
//                                                     answer copied out of it (process_vm_readv) while nothing runs
// The sample's processes stay stopped from the end of each call until the judge's next PREPARE: while the judge times
// the baseline (no spinner, signal handler or thread of the sample can slow it: none runs), while it checks the answer
// (no work deferred past the call can finish it) and while it prints. Their CPU time is read from outside, from the
// kernel's clock of each whole process (every thread of it), with the processes stopped and settled at both ends of
// each call's window, so the reading is exact, and every timed call is checked, not the median one.
// What a sample's process could still do: lie about where its answer is (the judge reads whatever it names, so the
// answer must be there, right, by the end of the call) and generate a wrong input (its answer is checked against the
// baseline's on the input generated here). It cannot reach the judge: no ptrace, no process_vm_*, no kill of another
// process (confine.hpp), and the judge's memory is its own.
#pragma once

#include <csignal>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <tuple>

namespace pcg {

enum JudgeOp : std::int32_t { kPrepare = 1, kGo, kRelease, kExit, kHello = 100, kReady, kDone };
constexpr int kCommandFd = 3, kReplyFd = 4;
constexpr int kMaxOutputs = 4;

// Where one output of a call is in the sample's process: its address, its length in bytes and its element count.
struct OutputSpan {
  std::uint64_t address, bytes, count;
};
struct JudgeMessage {
  std::int32_t op = 0, threads = 0;
  std::uint64_t size = 0, seed = 0;
  std::int32_t outputs = 0;
  std::int32_t keep = 0;  // PREPARE: the same input comes again (the sample's process keeps a copy to start it from)
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

// The outputs of a call: the problem header's outputs(Data&) (a tuple of references) where its check reads more than
// result(), else result() alone.
template <class D>
auto outputs_of(D& d, int) -> decltype(outputs(d)) { return outputs(d); }
template <class D>
auto outputs_of(D& d, long) { return std::tie(result(d)); }

template <std::size_t... I, class F>
void for_indices(std::index_sequence<I...>, F&& f) { (f(std::integral_constant<std::size_t, I>{}), ...); }

inline std::uint64_t address_of(const void* p) { return (std::uint64_t)(std::uintptr_t)p; }

// ---------------------------------------------------------------------------------------------------------
// The sample's side: say where each output is.
template <class T>
OutputSpan describe_output(std::vector<T>& v) {
  static_assert(std::is_trivially_copyable<T>::value, "an output's elements are copied as bytes");
  return {address_of(v.data()), v.size() * sizeof(T), v.size()};
}
// libstdc++'s std::vector<bool> keeps its bits in words from the first, bit i of the answer in word i / 64.
inline OutputSpan describe_output(std::vector<bool>& v) {
  return {address_of(v.begin()._M_p), (v.size() + 63) / 64 * sizeof(unsigned long), v.size()};
}
#if defined(PCG_MODEL_KOKKOS)
template <class T, class... P>
OutputSpan describe_output(Kokkos::View<T*, P...>& v) {
  return {address_of(v.data()), v.extent(0) * sizeof(T), v.extent(0)};
}
#endif
template <class T>
OutputSpan describe_output(T& x) {
  static_assert(std::is_trivially_copyable<T>::value, "an output is copied as bytes");
  return {address_of(&x), sizeof x, 1};
}

// The sample's process under the judge (main() with --judged, or --judged-at DIR for an MPI rank): hello, confined,
// then one call per PREPARE and GO. Before any code of the sample runs, its pipes are opened and its pid sent.
inline int serve_judge(const Runtime& rt, const char* fifo_dir) {
  int in = kCommandFd, out = kReplyFd;
  if (fifo_dir != nullptr) {
    const std::string at = std::string(fifo_dir) + "/" + std::to_string(rt.rank);
    in = open((at + ".command").c_str(), O_RDONLY | O_CLOEXEC);
    out = open((at + ".reply").c_str(), O_WRONLY | O_CLOEXEC);
    if (in < 0 || out < 0) {
      std::fprintf(stderr, "pcgbench driver: cannot open the judge's pipes in %s\n", fifo_dir);
      return 3;
    }
  }
  JudgeMessage hello;
  hello.op = kHello;
  hello.seed = (std::uint64_t)getpid();
  if (!send_message(out, hello)) return 1;
  if (!confine()) return 5;
  Data got, kept;  // kept: an input that comes again (a generation of 4M doubles is 17 ms, most of it page faults;
                   // a copy into the buffers of the call before, 5 ms)
  std::uint64_t kept_size = 0, kept_seed = 0;
  bool have_kept = false;
  int threads = 0;
  JudgeMessage m;
  while (receive_message(in, m)) {
    JudgeMessage reply;
    if (m.op == kPrepare) {
      if (m.threads != threads) set_threads(threads = m.threads);
      if (have_kept && m.size == kept_size && m.seed == kept_seed) {
        got = kept;
      } else if (m.keep) {
        kept = generate((std::size_t)m.size, m.seed);
        kept_size = m.size, kept_seed = m.seed, have_kept = true;
        got = kept;
      } else {
        got = generate((std::size_t)m.size, m.seed);
      }
      reply.op = kReady;
      if (!send_message(out, reply)) return 1;
    } else if (m.op == kGo) {
      rt.barrier();
      call_solution(got);
      escape(&result(got));
      reply.op = kDone;
      if (rt.root()) {  // the answer is rank 0's
        auto outs = outputs_of(got, 0);
        constexpr std::size_t n = std::tuple_size<decltype(outs)>::value;
        static_assert(n <= (std::size_t)kMaxOutputs, "at most kMaxOutputs outputs");
        reply.outputs = (int)n;
        for_indices(std::make_index_sequence<n>{}, [&](auto i) { reply.spans[i] = describe_output(std::get<i>(outs)); });
      }
      if (!send_message(out, reply)) return 1;
    } else if (m.op == kRelease) {
      release_threads();
    } else {
      return 0;  // kExit
    }
  }
  return 1;  // the judge is gone
}

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
#if defined(PCG_MODEL_KOKKOS)
template <class T, class... P>
std::size_t element_count(const Kokkos::View<T*, P...>& v) { return v.extent(0); }
#endif
template <class T>
std::size_t element_count(const T&) { return 1; }

inline bool unreadable(const OutputSpan& s, std::string& why) {
  why = "the sample's answer could not be read where its process said it was (" + std::to_string(s.bytes) + " bytes)";
  return false;
}
inline bool wrong_shape(const OutputSpan& s, std::size_t bytes, std::size_t expected, std::string& why) {
  if (s.count <= most_elements(expected) && s.bytes == bytes) return false;
  why = "the answer has " + std::to_string(s.count) + " elements, expected " + std::to_string(expected);
  return true;
}
template <class T>
bool take_output(pid_t pid, const OutputSpan& s, std::vector<T>& v, std::size_t expected, std::string& why) {
  if (wrong_shape(s, (std::size_t)s.count * sizeof(T), expected, why)) return false;
  v.resize((std::size_t)s.count);
  return read_remote(pid, s.address, v.data(), (std::size_t)s.bytes) || unreadable(s, why);
}
inline bool take_output(pid_t pid, const OutputSpan& s, std::vector<bool>& v, std::size_t expected, std::string& why) {
  if (wrong_shape(s, ((std::size_t)s.count + 63) / 64 * sizeof(unsigned long), expected, why)) return false;
  std::vector<unsigned long> words((std::size_t)s.bytes / sizeof(unsigned long));
  if (!read_remote(pid, s.address, words.data(), (std::size_t)s.bytes)) return unreadable(s, why);
  v.resize((std::size_t)s.count);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (words[i / 64] >> (i % 64)) & 1UL;
  return true;
}
#if defined(PCG_MODEL_KOKKOS)
template <class T, class... P>
bool take_output(pid_t pid, const OutputSpan& s, Kokkos::View<T*, P...>& v, std::size_t expected, std::string& why) {
  if (wrong_shape(s, (std::size_t)s.count * sizeof(T), expected, why)) return false;
  if (v.extent(0) != (std::size_t)s.count) v = Kokkos::View<T*, P...>("judged output", (std::size_t)s.count);
  return read_remote(pid, s.address, v.data(), (std::size_t)s.bytes) || unreadable(s, why);
}
#endif
template <class T>
bool take_output(pid_t pid, const OutputSpan& s, T& x, std::size_t, std::string& why) {
  if (s.bytes != sizeof(T)) {
    why = "the answer is " + std::to_string(s.bytes) + " bytes, expected " + std::to_string(sizeof(T));
    return false;
  }
  return read_remote(pid, s.address, &x, sizeof x) || unreadable(s, why);
}

// Sends `sig` to one process, never to a group or to every process (kill's meaning of 0 and negative pids, which a
// pid not yet known, -1, would have).
inline bool signal_process(pid_t pid, int sig) { return pid > 1 && pid != getpid() && kill(pid, sig) == 0; }

// One process of the sample (the judge's child, or one MPI rank), seen from the judge.
struct SampleProcess {
  pid_t pid = -1;
  int to = -1, from = -1;  // its command and reply pipes
  clockid_t clock{};       // the kernel's CPU clock of the whole process
  DIR* tasks = nullptr;    // its /proc/<pid>/task
  bool child = false;      // the judge's child (it waits for its stops), else a rank mpirun started
  bool stopped = false;
  double cpu_at_start = 0;  // its CPU clock when the call's window opened
  // CPU time of the whole process outside the calls' windows, while it prepared their inputs, per thread each call
  // could keep busy: what the judge's own generation of the same inputs bounds (run.resource_overuse), so that no
  // work of the sample hides between calls.
  double prepare_cpu_s = 0;
  // Its threads at its first READY, before any call of the sample: the runtime's own (MPI's, Kokkos's pool). Threads
  // beyond those and the OpenMP team a call was given are the sample's own (judge_main says why they matter).
  int threads_at_first_ready = -1;
  int extra_threads = 0;  // the most seen, at any stop

  int count_threads() {
    if (tasks == nullptr) return 0;
    int n = 0;
    rewinddir(tasks);
    while (dirent* entry = readdir(tasks)) n += entry->d_name[0] >= '1' && entry->d_name[0] <= '9';
    return n;
  }
  // At a stop (every thread settled): the threads beyond the runtime's and the `team` of the largest OpenMP team given so far.
  void census(int team) {
    const int n = count_threads();
    if (threads_at_first_ready < 0) threads_at_first_ready = n;
    extra_threads = std::max(extra_threads, n - threads_at_first_ready - (team - 1));
  }

  double cpu_s() const { return read_clock_s(clock); }
  // Whether every thread has stopped and left its core. The kernel tells a parent that the process stopped when its
  // last thread has agreed to, just before that thread leaves its core, and a thread's CPU time is brought up to date
  // when it leaves (or at a scheduler tick): a reading in between misses up to a tick (measured: a serial call of
  // 2 ms read as 2.64 cores). /proc says both: the state ('T') and wchan, where a thread sleeps, which is "0" while it
  // still runs.
  bool settled() {
    if (tasks == nullptr) return true;
    bool all = true;
    rewinddir(tasks);
    while (dirent* entry = readdir(tasks)) {
      if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
      const std::string at = "/proc/" + std::to_string(pid) + "/task/" + entry->d_name + "/";
      char stat[512] = {0}, where[64] = {0};
      const int s = open((at + "stat").c_str(), O_RDONLY | O_CLOEXEC), w = open((at + "wchan").c_str(), O_RDONLY | O_CLOEXEC);
      const ssize_t ns = s >= 0 ? read(s, stat, sizeof stat - 1) : -1, nw = w >= 0 ? read(w, where, sizeof where - 1) : -1;
      if (s >= 0) close(s);
      if (w >= 0) close(w);
      if (ns <= 0) continue;  // the thread has ended
      const char* close_paren = std::strrchr(stat, ')');
      const char state = close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
      if ((state != 'T' && state != 't') || nw <= 0 || (nw == 1 && where[0] == '0')) all = false;
    }
    return all;
  }
};

// The sample's processes, and what the judge started: the sample's program itself, or mpirun.
// The OpenMP team a call at `threads` threads per process may start in it (its runtime makes the workers at the first
// region of that size); Kokkos's pool is there before the first READY, and serial and MPI processes start none.
inline int openmp_team(int threads) {
#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)
  return threads;
#else
  (void)threads;
  return 1;
#endif
}

struct Sample {
  std::vector<SampleProcess> ranks;
  pid_t launcher = -1;
  int largest_team = 1;  // the largest OpenMP team (openmp_team) a call was given so far
  int given = 1;         // the threads the run gave each process (OMP_NUM_THREADS: Kokkos's count)
  std::string fifo_dir;  // MPI: the folder of the ranks' named pipes

  void remove_pipes() {
    if (fifo_dir.empty()) return;
    for (std::size_t r = 0; r < ranks.size(); ++r)
      for (const char* end : {".command", ".reply"}) unlink((fifo_dir + "/" + std::to_string(r) + end).c_str());
    rmdir(fifo_dir.c_str());
    fifo_dir.clear();
  }
  // The run's sample ended (or stopped answering: then it is ended). The judge ends the same way, so that the run's
  // verdict reads as if the sample's program (or mpirun) were the run: its signal (a crash, a resource limit), its
  // exit status (the filter's refusal, kRefusedExit; mpirun's after a rank failed), or 1 (it exited, or closed its
  // pipes, in the middle of a call).
  [[noreturn]] void gone(const char* during) {
    int status = 0;
    pid_t done = 0;
    // A process that crashed closes its pipes a moment before it can be reaped: up to a second for it to end.
    for (int wait = 0; wait < 1000 && (done = waitpid(launcher, &status, WNOHANG)) == 0; ++wait) {
      const timespec pause{0, 1000000};
      nanosleep(&pause, nullptr);
    }
    bool killed_here = false;
    if (done == 0) {  // alive and silent: its pipes closed, or a message made no sense
      for (SampleProcess& p : ranks) signal_process(p.pid, SIGKILL);
      signal_process(launcher, SIGKILL);
      killed_here = true;
      waitpid(launcher, &status, 0);
    }
    remove_pipes();
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
  void send(SampleProcess& p, JudgeOp op, std::size_t size = 0, std::uint64_t seed = 0, int threads = 0, bool keep = false) {
    JudgeMessage m;
    m.op = op, m.size = size, m.seed = seed, m.threads = threads, m.keep = keep;
    if (!send_message(p.to, m)) gone("a call");
  }
  void send_all(JudgeOp op, std::size_t size = 0, std::uint64_t seed = 0, int threads = 0, bool keep = false) {
    for (SampleProcess& p : ranks) send(p, op, size, seed, threads, keep);
  }
  // The next message of one of the ranks not yet heard from (`waiting`, one flag per rank): its rank. Waits as long
  // as the launcher lives (the run's wall-clock limit bounds it).
  // With a `deadline` (the monotonic clock), kCut once it has passed.
  static constexpr std::size_t kCut = ~(std::size_t)0;
  double deadline = 0;
  bool call_timed_out = false;  // a call was cut at its own limit (call_sample's limit_s): its processes are mid-call
  std::size_t next_reply(std::vector<bool>& waiting, JudgeMessage& m) {
    for (;;) {
      std::vector<pollfd> fds;
      std::vector<std::size_t> which;
      for (std::size_t r = 0; r < ranks.size(); ++r)
        if (waiting[r]) fds.push_back(pollfd{ranks[r].from, POLLIN, 0}), which.push_back(r);
      int wait_ms = 200;
      if (deadline > 0) {
        const double left = deadline - now_s();
        if (left <= 0) return kCut;
        wait_ms = std::min(wait_ms, 1 + (int)(1000 * left));
      }
      const int n = poll(fds.data(), (nfds_t)fds.size(), wait_ms);
      if (n < 0 && errno != EINTR) gone("a call");
      for (std::size_t i = 0; n > 0 && i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        if (!receive_message(fds[i].fd, m)) gone("a call");
        waiting[which[i]] = false;
        return which[i];
      }
      siginfo_t ended{};  // the launcher has ended (left to gone() to reap)
      if (n == 0 && waitid(P_PID, (id_t)launcher, &ended, WEXITED | WNOHANG | WNOWAIT) == 0 && ended.si_pid != 0)
        gone("a call");
    }
  }
  // The next message of `p`, which must be `op`; false when the deadline passed first.
  bool expect_one(SampleProcess& p, JudgeOp op, JudgeMessage& m) {
    std::vector<bool> waiting(ranks.size(), false);
    waiting[(std::size_t)(&p - ranks.data())] = true;
    if (next_reply(waiting, m) == kCut) return false;
    if (m.op != op) gone("a call");
    return true;
  }
  bool expect_all(JudgeOp op) {
    JudgeMessage m;
    for (SampleProcess& p : ranks)
      if (!expect_one(p, op, m)) return false;
    return true;
  }
  // Ends the sample's processes where they are (a call cut at its deadline) and reaps the launcher.
  void end() {
    for (SampleProcess& p : ranks) signal_process(p.pid, SIGKILL);
    signal_process(launcher, SIGKILL);
    int status = 0;
    waitpid(launcher, &status, 0);
    remove_pipes();
  }
  void wait_stopped(SampleProcess& p) {
    int status = 0;
    if (p.child && (waitpid(p.pid, &status, WUNTRACED) != p.pid || !WIFSTOPPED(status))) gone("a call");
    for (int attempt = 0; attempt < 20000 && !p.settled(); ++attempt) {  // at most about 2 s
      const timespec pause{0, 10000};
      nanosleep(&pause, nullptr);
    }
    p.stopped = true;
  }
  void stop_all() {
    for (SampleProcess& p : ranks)
      if (!p.stopped && !signal_process(p.pid, SIGSTOP)) gone("a call");
    for (SampleProcess& p : ranks)
      if (!p.stopped) wait_stopped(p);
  }
  void resume_all() {
    for (SampleProcess& p : ranks)
      if (p.stopped) signal_process(p.pid, SIGCONT), p.stopped = false;
  }
};

// The CPUs the run was given: OpenMP's places (made from the process's mask before its runtime bound this thread to
// the first of them, as it binds the first thread of every run with OMP_PROC_BIND), so that the sample's processes
// start on all of them, not on this thread's one. Empty without places.
inline cpu_set_t given_cpus(bool& placed) {
  cpu_set_t given;
  CPU_ZERO(&given);
  placed = false;
#if defined(_OPENMP)
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids((std::size_t)omp_get_place_num_procs(p));
    omp_get_place_proc_ids(p, ids.data());
    for (int id : ids) CPU_SET(id, &given), placed = true;
  }
#endif
  return given;
}

// Starts argv (its standard input empty: the secret stays here; SIGPIPE as it was) with `keep` moved to descriptors
// 3, 4, ... in order, on the CPUs the run was given.
inline pid_t start_program(const std::vector<std::string>& argv, const std::vector<int>& keep) {
  bool placed = false;
  const cpu_set_t given = given_cpus(placed);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("pcgbench judge: fork");
    std::exit(3);
  }
  if (pid != 0) return pid;
  // Above every target first, so that dup2 onto 3, 4, ... cannot meet a descriptor already there.
  std::vector<int> high;
  for (int fd : keep) high.push_back(fcntl(fd, F_DUPFD, 64));
  const int empty = open("/dev/null", O_RDONLY);
  if (empty < 0 || dup2(empty, 0) < 0) _exit(3);
  for (std::size_t i = 0; i < high.size(); ++i)
    if (high[i] < 0 || dup2(high[i], 3 + (int)i) < 0) _exit(3);
  if (placed && sched_setaffinity(0, sizeof given, &given) != 0) _exit(3);
  std::signal(SIGPIPE, SIG_DFL);
  execvp(args[0], args.data());
  std::fprintf(stderr, "pcgbench judge: cannot start %s\n", args[0]);
  _exit(3);
}

inline SampleProcess watch(pid_t pid, int to, int from, bool child) {
  SampleProcess p;
  p.pid = pid, p.to = to, p.from = from, p.child = child;
  return p;
}
// The rank's process, as its hello names it (its pid: sent before any code of the sample ran).
inline void greet(Sample& s, SampleProcess& p) {
  JudgeMessage hello;
  s.expect_one(p, kHello, hello);
  p.pid = (pid_t)hello.seed;
  if (p.pid <= 1 || p.pid == getpid() || clock_getcpuclockid(p.pid, &p.clock) != 0) s.gone("its start");
  p.tasks = opendir(("/proc/" + std::to_string(p.pid) + "/task").c_str());
}

// One process: the sample's program as the judge's child, its pipes on descriptors 3 and 4.
inline Sample start_sample(const std::string& exe) {
  int command[2], reply[2];
  if (pipe2(command, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0) {
    std::perror("pcgbench judge: pipe2");
    std::exit(3);
  }
  Sample s;
  s.launcher = start_program({exe, "--judged"}, {command[0], reply[1]});
  close(command[0]);
  close(reply[1]);
  s.ranks.push_back(watch(s.launcher, command[1], reply[0], true));
  greet(s, s.ranks[0]);
  return s;
}

// MPI: `launch` (mpirun and its options) starts `ranks` ranks of the sample's program, each with the named pipes of
// its rank in a folder of the judge's.
inline Sample start_ranks(const std::string& exe, int ranks, std::vector<std::string> launch) {
  Sample s;
  char folder[] = "/tmp/pcgbench-judge-XXXXXX";  // mkdtemp fills the Xs; /tmp is the run's private one (the sandbox)
  if (mkdtemp(folder) == nullptr) {
    std::perror("pcgbench judge: mkdtemp");
    std::exit(3);
  }
  s.fifo_dir = folder;
  for (int r = 0; r < ranks; ++r) {
    const std::string at = s.fifo_dir + "/" + std::to_string(r);
    // Opened for reading and writing here, so that no open waits for the other end.
    if (mkfifo((at + ".command").c_str(), 0600) != 0 || mkfifo((at + ".reply").c_str(), 0600) != 0) {
      std::perror("pcgbench judge: mkfifo");
      std::exit(3);
    }
    const int to = open((at + ".command").c_str(), O_RDWR | O_CLOEXEC), from = open((at + ".reply").c_str(), O_RDWR | O_CLOEXEC);
    if (to < 0 || from < 0) {
      std::perror("pcgbench judge: open");
      std::exit(3);
    }
    s.ranks.push_back(watch(-1, to, from, false));
  }
  launch.insert(launch.end(), {exe, "--judged-at", s.fifo_dir});
  s.launcher = start_program(launch, {});
  for (SampleProcess& p : s.ranks) greet(s, p);
  return s;
}

// One call of the sample on the input (size, seed) at `threads` threads per rank; rank 0's outputs copied into `got`
// (the rest of `got` left as it was). Returns false (why set) when its answer cannot be taken. With `timing`, the
// call's wall time (from the first GO sent to the last DONE read) and the largest over the ranks of each process's CPU
// time over the wall time of a window holding the call.
// The threads each process of a timed call may keep busy: OpenMP's sweep count, Kokkos's thread count as the run gave
// it (OMP_NUM_THREADS, read before anything here changes it), one for serial and MPI ranks.
inline int judged_threads_allowed(int sweep_threads, int given) {
#if defined(PCG_MODEL_KOKKOS)
  (void)sweep_threads;
  return given;
#else
  (void)given;
  return sweep_threads;
#endif
}

struct CallTiming {
  double wall_s = 0, cpu_per_wall = 0;
};
// With the Sample's deadline set, a call not answered by then is cut: false, `cut` set, the processes left as they are.
// `keep`: the same input comes again (validated at more thread counts, or the next warm-up's).
// `limit_s` > 0: the call itself (from its GO to its last DONE) may take that long; a call that takes longer is cut,
// false with the Sample's `call_timed_out` set (the run's verdict is then a timeout, whatever the deadline above).
inline bool call_sample(Sample& s, std::size_t size, std::uint64_t seed, int threads, bool keep, Data& got,
                        const Data& want, std::string& why, CallTiming* timing, bool* cut = nullptr,
                        double limit_s = 0) {
  const double phase_deadline = s.deadline;
  double call_deadline = 0;
  auto cut_at_deadline = [&] {
    s.deadline = phase_deadline;
    if (call_deadline > 0 && (phase_deadline <= 0 || call_deadline < phase_deadline)) {
      char text[160];
      std::snprintf(text, sizeof text, "did not return within its limit of %.3g s: cut", limit_s);
      why = text;
      s.call_timed_out = true;
      return false;
    }
    why = "cut at its deadline";
    if (cut) *cut = true;
    return false;
  };
  // Stopped since its last call (or, before the first, waiting for its first command): the readings are exact.
  std::vector<double> before_prepare;
  for (SampleProcess& p : s.ranks) before_prepare.push_back(p.cpu_s());
  s.resume_all();
  s.send_all(kPrepare, size, seed, threads, keep);
  if (!s.expect_all(kReady)) return cut_at_deadline();
  s.stop_all();
  s.largest_team = std::max(s.largest_team, openmp_team(threads));
  for (std::size_t r = 0; r < s.ranks.size(); ++r) {
    SampleProcess& p = s.ranks[r];
    p.cpu_at_start = p.cpu_s();
    // Per thread the call may keep busy: the OpenMP workers of a team wait actively between regions, so that a
    // process of t threads spends up to t x the preparation's time there (8 stress threads on 2 cores: 2x).
    p.prepare_cpu_s += (p.cpu_at_start - before_prepare[r]) / std::max(1, judged_threads_allowed(threads, s.given));
    p.census(s.largest_team);
  }
  const double w0 = now_s();
  if (limit_s > 0) {
    call_deadline = w0 + limit_s;
    if (phase_deadline <= 0 || call_deadline < phase_deadline) s.deadline = call_deadline;
  }
  s.resume_all();
  const double t0 = now_s();
  s.send_all(kGo);
  // Each rank's process is stopped as soon as its DONE arrives: nothing of it runs past its call.
  std::vector<bool> waiting(s.ranks.size(), true);
  JudgeMessage done, first;
  double t1 = t0;
  for (std::size_t left = s.ranks.size(); left > 0; --left) {
    const std::size_t r = s.next_reply(waiting, done);
    if (r == Sample::kCut) return cut_at_deadline();
    t1 = now_s();
    if (done.op != kDone || !signal_process(s.ranks[r].pid, SIGSTOP)) s.gone("a call");
    if (r == 0) first = done;
  }
  s.deadline = phase_deadline;
  for (SampleProcess& p : s.ranks) s.wait_stopped(p);
  const double w1 = now_s();
  for (SampleProcess& p : s.ranks) p.census(s.largest_team);
  double ratio = 0;
  for (SampleProcess& p : s.ranks) ratio = std::max(ratio, w1 > w0 ? (p.cpu_s() - p.cpu_at_start) / (w1 - w0) : 0.0);
  if (timing) *timing = CallTiming{t1 - t0, ratio};
  // Into the buffers of the call before (a fresh 32 MB answer is 17 ms of page faults here); every output is written.
  auto outs = outputs_of(got, 0);
  auto wanted = outputs_of(const_cast<Data&>(want), 0);
  constexpr std::size_t n = std::tuple_size<decltype(outs)>::value;
  if (first.outputs != (int)n) {
    why = "the sample's process described " + std::to_string(first.outputs) + " outputs, expected " + std::to_string(n);
    return false;
  }
  bool ok = true;
  for_indices(std::make_index_sequence<n>{}, [&](auto i) {
    if (ok) ok = take_output(s.ranks[0].pid, first.spans[i], std::get<i>(outs), element_count(std::get<i>(wanted)), why);
  });
  if (ok) collect_output_if_defined(got, 0);  // the problem header's conversion (a Kokkos View to the vector checked)
  return ok;
}

// The judge's thread's CPU clock, which runs the baseline: exact when read by the thread itself, where the process's
// clock, under the run's RLIMIT_CPU, is brought up to date only at the scheduler's ticks (a 2 ms baseline call read
// as 1.33 cores).
inline double own_cpu_s() { return read_clock_s(CLOCK_THREAD_CPUTIME_ID); }

inline int judge_main(int argc, char** argv) {
  const double started = now_s();
  const Args args = parse_args(argc, argv);
  if (args.sample_exe.empty() || args.check_validator) {
    std::fprintf(stderr, "pcgbench judge: needs --sample PATH (and no --check-validator)\n");
    return 2;
  }
#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP) || defined(PCG_MODEL_KOKKOS)
  const int given = omp_get_max_threads();  // OMP_NUM_THREADS of the run (run_argv)
#else
  const int given = 1;
#endif
  // The secret: the nonce signs the result lines, the timed seed draws the timed inputs; neither leaves this process.
  char nonce[129] = "-";
  unsigned long long timed_seed = args.seed + 1000003ULL;  // without a secret (main.hpp's read_secret says why)
  if (args.secret_stdin && !read_secret_line(nonce, timed_seed)) std::strcpy(nonce, "-"), timed_seed = args.seed + 1000003ULL;
  std::signal(SIGPIPE, SIG_IGN);  // a sample's process that dies shows as a closed pipe (Sample::gone)
  Sample sample = args.launch.empty() ? start_sample(args.sample_exe)
                                      : start_ranks(args.sample_exe, args.ranks, args.launch);
  sample.given = given;
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
  double generate_cpu_s = 0;  // the judge's own CPU time generating the inputs the sample prepared
  auto generate_here = [&](std::size_t n, std::uint64_t seed) {
    const double c0 = own_cpu_s();
    Data made = generate(n, seed);
    generate_cpu_s += own_cpu_s() - c0;
    return made;
  };
  std::size_t last_size = 0;
  std::uint64_t last_seed = 0;
  // A call's own limit (--call-limit FLOOR,FACTOR): FACTOR x the baseline's wall time on an input of its size, at
  // least FLOOR s. A hung or far slower body is cut at its first call over it, not at the run's wall-clock limit.
  // The baseline is timed here on the validations' inputs, which come before every call at their size (the timed
  // size is validated last); the slowest of its calls at a size counts.
  std::vector<std::pair<std::size_t, double>> baseline_wall;  // (size, the slowest baseline call at it)
  auto call_limit = [&](std::size_t n) {
    if (args.call_factor <= 0) return 0.0;
    double base = 0;
    for (const auto& [size, wall] : baseline_wall)
      if (size == n) base = std::max(base, wall);
    return std::max(args.call_floor_s, args.call_factor * base);
  };
  // One validation on the input (last_size, last_seed) against `want`; with `cut`, a call cut at the Sample's deadline
  // is no validation (false, *cut set).
  auto validate = [&](std::size_t n, const std::string& where, int threads, bool* cut = nullptr) {
    std::string why;
    bool ok = call_sample(sample, last_size, last_seed, threads, true, got, want, why, nullptr, cut,
                          cut ? 0.0 : call_limit(last_size));  // stress calls: their phase's deadline only
    if (cut && *cut) return false;
    ok = ok && check(input, want, got, why);
    validation += std::string(validation.size() > 1 ? "," : "") + "{\"size\":" + std::to_string(n) +
                  ",\"pass\":" + (ok ? "true" : "false") + ",\"why\":\"" + json_escape(why) + "\"}";
    if (!ok && all_ok) all_ok = false, failure = where + ": " + why;
    return ok;
  };
  // 1. Every input validated at every thread count of the sweep (its baseline answer computed once).
  for (std::size_t i = 0; i < args.sizes.size() && all_ok; ++i) {
    last_size = args.sizes[i], last_seed = args.seed + i;
    input = generate_here(last_size, last_seed);
    want = input;
    const double b0 = now_s();
    call_baseline(want);
    baseline_wall.emplace_back(last_size, now_s() - b0);
    for (int threads : sweep) {
      const std::string at = sweep.size() > 1 ? " at " + std::to_string(threads) + " threads" : "";
      if (!validate(last_size, "size " + std::to_string(last_size) + at, threads)) break;
    }
    if (sweep.size() > 1 && !sample.call_timed_out) sample.send_all(kRelease);
  }
  // 2. Timed: per thread count, warm-ups on the input of the call before, then timed calls each on a fresh input
  // whose seed only this process knows, each followed by the baseline's call on the same input (the sample's
  // processes stopped meanwhile) and the check of the sample's answer.
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
        const bool last = r + 1 == args.warmup + args.reps;  // its input is the next warm-up's or the stress's
        bool ok = call_sample(sample, last_size, last_seed, sweep[c], last, got, want, why, fresh ? &timing : nullptr,
                              nullptr, call_limit(last_size));
        if (fresh && !sample.call_timed_out) {  // a cut call is the run's failure: no baseline to time beside it
          input = generate_here(last_size, last_seed);
          if (CheckReadsInput<Data>::value) want = input;
          else want = std::move(input);
          // The CPU ratio's window holds the CPU clock's reads (system calls: a call of 50 ns read as 3.4 cores).
          const double w0 = now_s(), c0 = own_cpu_s(), b0 = now_s();
          call_baseline(want);
          escape(&result(want));
          const double b1 = now_s(), c1 = own_cpu_s(), w1 = now_s();
          baseline_times[c].push_back(b1 - b0);
          baseline_ratios[c].push_back(w1 > w0 ? (c1 - c0) / (w1 - w0) : 0.0);
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
      if (sweep.size() > 1 && !sample.call_timed_out) sample.send_all(kRelease);
    }
  }
  bool stress_cut = false;
#if defined(PCG_MODEL_OMP) || defined(PCG_MODEL_MPI_OMP)
  // 3. Stress validations (main.hpp says why they come last), on the input timed last. They look for races, which the
  // race check finds from the order of accesses; a correct body whose parallel regions crawl with more threads than
  // cores (one per recursion call) is not failed for it: they stop when they have taken twice the run before them
  // (at least 2 s), the one under way cut, and the run is judged on the rest.
  if (all_ok && args.stress_validations > 0) {
    const std::string where = "size " + std::to_string(last_size) + " at " + std::to_string(args.stress_threads) + " threads";
    const double stress_start = now_s();
    sample.deadline = stress_start + std::max(2.0, 2.0 * (stress_start - started));
    int done = 0;
    while (done < args.stress_validations && validate(last_size, where, args.stress_threads, &stress_cut)) ++done;
    sample.deadline = 0;
    if (stress_cut)
      std::fprintf(stderr, "pcgbench judge: stress validations stopped after %.1f s (twice the run before them), %d of %d done\n",
                   now_s() - stress_start, done, args.stress_validations);
  }
#endif
  validation += "]";
  int status = 0;
  if (stress_cut || sample.call_timed_out) {
    sample.end();
  } else {
    sample.resume_all();
    sample.send_all(kExit);
  }
  if (!stress_cut && !sample.call_timed_out && (waitpid(sample.launcher, &status, 0) != sample.launcher || !WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
    std::fprintf(stderr, "pcgbench judge: the sample's program did not exit cleanly\n");
    sample.remove_pipes();
    if (WIFSIGNALED(status)) {
      std::signal(WTERMSIG(status), SIG_DFL);
      kill(getpid(), WTERMSIG(status));
    }
    std::_Exit(WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1);
  }
  sample.remove_pipes();
  for (std::size_t c = 0; c < sweep.size(); ++c) {
    const std::size_t n = all_ok ? times[c].size() : 0;  // an invalid run's timings are dropped
    // Every timed call's CPU ratio is checked (the largest), not the median: read from outside, with the processes
    // stopped at both ends, an honest call cannot exceed its threads.
    const double cpu = n ? *std::max_element(ratios[c].begin(), ratios[c].end()) : 0.0;
    double prepare_cpu_s = 0;  // the largest over the ranks, for the whole run (the same on every line)
    int extra_threads = 0;
    for (const SampleProcess& p : sample.ranks)
      prepare_cpu_s = std::max(prepare_cpu_s, p.prepare_cpu_s), extra_threads = std::max(extra_threads, p.extra_threads);
    print_result(nonce, args, (int)sample.ranks.size(), sweep[c], timed_seed, timed_size, all_ok, failure, validation,
                 times[c].data(), baseline_times[c].data(), (int)n, judged_threads_allowed(sweep[c], given), cpu,
                 n ? median(baseline_ratios[c]) : 0.0, prepare_cpu_s, generate_cpu_s, extra_threads,
                 sample.call_timed_out);
  }
  std::fflush(stdout);
#if defined(PCG_MODEL_KOKKOS)
  input = Data{}, want = Data{}, got = Data{};  // their Views go before Kokkos does
  Kokkos::finalize();
#endif
  return 0;
}
}  // namespace pcg
