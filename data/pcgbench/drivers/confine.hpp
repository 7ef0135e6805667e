// What a run of generated code may ask of the kernel once the execution model's runtime is up: an allowlist of
// system calls, loaded as a seccomp filter (Linux's BPF system-call filter) by the driver before the sample's first
// call, for every thread of the process (TSYNC) and every thread started after it; no code of the process can lift it.
//
// Names decide nothing here: a call the list does not hold is refused whatever the sample called it (glibc's
// exported aliases such as __mprotect or _Fork, thrd_create, a raw `syscall` instruction), so the classes the
// inspection (tampering.py) refuses by name are closed below it. Refused, among others:
// - signal handlers and timers (rt_sigaction, timer_create, setitimer, alarm): no work deferred past a timed call to
//   a handler, none hidden in a fault handler run by the check's first read, no periodic handler slowing the baseline;
// - new processes and exec (fork, vfork, clone without CLONE_THREAD, execve): threads only, as the runtime makes them;
//   clone3 answers ENOSYS (its flags sit behind a pointer a filter cannot read), and glibc then uses clone;
// - opening files (open, openat, creat, ...): nothing of the host reaches the output, no /proc/self/mem (removing
//   one is allowed: Open MPI's finalisation removes its segments, and the run's writable places are its own);
// - other processes (ptrace, process_vm_writev, kill or tgkill of another process), the filter itself (prctl,
//   seccomp), raising limits (prlimit64 with a new value), pkey_mprotect, userfaultfd, perf_event_open, io_uring, bpf.
// mprotect stays allowed: the driver locks its vault with it and glibc's allocator grows thread arenas with it; the
// sample calling it by any name is what the inspection's address match refuses (tampering.py FORBIDDEN_CALLS).
//
// A refused call raises SIGSYS in the thread that made it; the driver's handler, installed before the filter (and
// not replaceable after it: rt_sigaction is refused), writes "pcgbench confine: system call N refused" to stderr
// and ends the process with kRefusedExit, which the harness reads as verdicts.TAMPERING (run.py).
//
// The list covers what the driver needs after set-up (clocks, its vault's mprotect, /proc/self/task read through a
// directory opened before the filter), what glibc's threads and allocator need, what the OpenMP runtime needs to
// make and bind its threads, and what Open MPI's ranks need to talk through shared memory and to finalise. Not under
// ThreadSanitizer (the race check: its runtime makes calls of its own; that run validates once and times nothing).
#pragma once

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <vector>

namespace pcg {

constexpr int kRefusedExit = 86;  // run.CONFINE_REFUSED_EXIT

#if defined(__x86_64__)
#define PCG_CONFINE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PCG_CONFINE_ARCH AUDIT_ARCH_AARCH64
#endif

// Writes the refused call's number with write(2) alone (async-signal-safe) and exits without running any code of the
// process's (no atexit handler, no destructor: those could be the sample's).
inline void refused_call(int, siginfo_t* info, void*) {
  char text[80] = "pcgbench confine: system call ";
  std::size_t n = 30;
  int nr = info ? info->si_syscall : -1;
  char digits[12];
  int d = 0;
  if (nr < 0) text[n++] = '-', nr = -nr;
  do digits[d++] = (char)('0' + nr % 10), nr /= 10; while (nr > 0 && d < 11);
  while (d > 0) text[n++] = digits[--d];
  const char tail[] = " refused\n";
  for (const char* t = tail; *t; ++t) text[n++] = *t;
  (void)!write(2, text, n);
  _exit(kRefusedExit);
}

#ifdef PCG_CONFINE_ARCH
// A filter program built from the list: each allowed call is "if nr == k return ALLOW"; calls allowed with a
// condition on an argument jump to their own block. Offsets into struct seccomp_data (little-endian halves).
struct FilterProgram {
  std::vector<sock_filter> code;
  static constexpr unsigned kNr = offsetof(seccomp_data, nr);
  static constexpr unsigned kArch = offsetof(seccomp_data, arch);
  static unsigned arg_low(int i) { return (unsigned)(offsetof(seccomp_data, args) + 8 * i); }
  static unsigned arg_high(int i) { return arg_low(i) + 4; }
  void load(unsigned offset) { code.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void ret(unsigned action) { code.push_back(BPF_STMT(BPF_RET | BPF_K, action)); }
  void allow(long nr) {  // if nr == k: allow (the accumulator holds nr)
    code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1));
    ret(SECCOMP_RET_ALLOW);
  }
  void answer(long nr, unsigned action) {
    code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1));
    ret(action);
  }
  // if nr == k: allow when argument `arg` (64 bits) equals `value`, else refuse; the accumulator then holds nr again.
  void allow_if_arg_equals(long nr, int arg, unsigned long long value) {
    code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 6));  // another call: past the 7 below
    load(arg_low(arg));
    code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(value & 0xffffffffULL), 0, 2));
    load(arg_high(arg));
    code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(value >> 32), 1, 0));
    ret(SECCOMP_RET_TRAP);
    ret(SECCOMP_RET_ALLOW);
  }
  // if nr == k: allow when the low 32 bits of argument `arg` have every bit of `bits` set, else refuse.
  void allow_if_arg_has_bits(long nr, int arg, unsigned bits) {
    code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 5));  // another call: past the 6 below
    load(arg_low(arg));
    code.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, bits));
    code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, bits, 1, 0));
    ret(SECCOMP_RET_TRAP);
    ret(SECCOMP_RET_ALLOW);
  }
};

// The allowlist. Calls allowed with a condition: clone only for a thread (CLONE_THREAD), kill and tgkill only of this
// process (glibc's raise and abort), prlimit64 only to read (no new value), ioctl only TCGETS (stdio's isatty).
inline FilterProgram confine_program(pid_t self) {
  FilterProgram p;
  p.load(FilterProgram::kArch);
  p.code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PCG_CONFINE_ARCH, 1, 0));
  p.ret(SECCOMP_RET_KILL_PROCESS);  // another ABI's numbers (x32, i386 through int 0x80) mean other calls
  p.load(FilterProgram::kNr);
#if defined(__x86_64__)
  p.code.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));  // __X32_SYSCALL_BIT
  p.ret(SECCOMP_RET_TRAP);
#endif
  const long allowed[] = {
      // memory
      SYS_brk, SYS_mmap, SYS_munmap, SYS_mremap, SYS_mprotect, SYS_madvise, SYS_membarrier,
      // descriptors already open: standard streams, MPI's shared-memory segments and sockets, /proc/self/task
      SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_close, SYS_fstat, SYS_lseek,
      SYS_getdents64, SYS_fcntl, SYS_dup, SYS_poll, SYS_ppoll, SYS_epoll_wait, SYS_epoll_pwait, SYS_epoll_ctl,
      SYS_sendmsg, SYS_recvmsg, SYS_sendto, SYS_recvfrom, SYS_shutdown, SYS_pipe2, SYS_eventfd2,
      // threads and their synchronisation
      SYS_futex, SYS_set_robust_list, SYS_rseq, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_sched_yield,
      SYS_sched_getaffinity, SYS_sched_setaffinity, SYS_sched_getparam, SYS_sched_getscheduler, SYS_getcpu,
      SYS_sigaltstack, SYS_nanosleep, SYS_clock_nanosleep, SYS_exit, SYS_exit_group,
      // a timed wait (poll, nanosleep) interrupted by the judge's stop goes on through it after the continue
      SYS_restart_syscall,
      // clocks and facts about the process
      SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday, SYS_getrusage, SYS_times, SYS_getpid, SYS_gettid,
      SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid, SYS_uname, SYS_sysinfo, SYS_getrandom,
#if defined(SYS_newfstatat)
      SYS_newfstatat,
#endif
#if defined(SYS_statx)
      SYS_statx,
#endif
#if defined(SYS_select)
      SYS_select,
#endif
#if defined(SYS_pselect6)
      SYS_pselect6,
#endif
  };
  for (long nr : allowed) p.allow(nr);
  p.allow_if_arg_has_bits(SYS_clone, 0, CLONE_THREAD);
  p.allow_if_arg_equals(SYS_kill, 0, (unsigned long long)(long long)self);
  p.allow_if_arg_equals(SYS_tgkill, 0, (unsigned long long)(long long)self);
  p.allow_if_arg_equals(SYS_prlimit64, 2, 0);
  p.allow_if_arg_equals(SYS_ioctl, 1, TCGETS);
  // Open MPI's finalisation removes its shared-memory segments' files (and opens its help text when that fails):
  // removing a file harms nothing outside the run, whose writable places are the sandbox's private /tmp and /dev/shm.
#if defined(SYS_unlink)
  p.allow(SYS_unlink);
#endif
  p.allow(SYS_unlinkat);
#if defined(SYS_clone3)
  p.answer(SYS_clone3, SECCOMP_RET_ERRNO | ENOSYS);
#endif
  p.ret(SECCOMP_RET_TRAP);
  return p;
}
#endif

// Loads the filter for every thread of the process. Returns false (and says why on stderr) where it cannot be
// loaded: the harness then refuses the run (a run of generated code without the filter is not one it trusts).
inline bool confine() {
#ifndef PCG_CONFINE_ARCH
  std::fprintf(stderr, "pcgbench confine: no system-call filter for this architecture\n");
  return false;
#else
  struct sigaction on_refused {};
  on_refused.sa_sigaction = refused_call;
  on_refused.sa_flags = SA_SIGINFO;
  sigemptyset(&on_refused.sa_mask);
  if (sigaction(SIGSYS, &on_refused, nullptr) != 0) {
    std::perror("pcgbench confine: sigaction(SIGSYS)");
    return false;
  }
  // glibc installs its handlers for thread cancellation and set*id (SIGRTMIN, SIGRTMIN + 1) when the process first
  // makes a thread: a thread made and joined now does it before the filter refuses rt_sigaction.
  pthread_t first;
  if (pthread_create(&first, nullptr, [](void*) -> void* { return nullptr; }, nullptr) != 0 ||
      pthread_join(first, nullptr) != 0) {
    std::fprintf(stderr, "pcgbench confine: could not start a thread\n");
    return false;
  }
  FilterProgram p = confine_program(getpid());
  sock_fprog program{(unsigned short)p.code.size(), p.code.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    std::perror("pcgbench confine: prctl(PR_SET_NO_NEW_PRIVS)");
    return false;
  }
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) {
    std::perror("pcgbench confine: seccomp");
    return false;
  }
  return true;
#endif
}

}  // namespace pcg
