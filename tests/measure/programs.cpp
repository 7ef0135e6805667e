// Test programs for the sandbox, one per mode (argv[1]); harmless ones first, hostile ones below.
// Compiled once by the tests; run ONLY through workflow_scripts.pcgbench.sandbox.run_sandboxed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

static int recurse(volatile int depth) {
  volatile char pad[4096];
  pad[0] = static_cast<char>(depth);
  return recurse(depth + 1) + pad[0];
}

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  const char *target = argc > 2 ? argv[2] : "";
  // ---- harmless
  if (mode == "hello") { std::printf("hello %s\n", target); return 0; }
  if (mode == "exit3") { std::fprintf(stderr, "bad\n"); return 3; }
  if (mode == "abort") { std::abort(); }
  if (mode == "env") { const char *v = std::getenv(target); std::printf("%s\n", v ? v : "(unset)"); return 0; }
  if (mode == "whoami") { std::printf("uid=%d cwd_writable=%d\n", (int)getuid(), access(".", W_OK) == 0); return 0; }
  if (mode == "sleep") { sleep(atoi(target)); return 0; }
  if (mode == "priority") {  // its nice value, and whether it can lower it further (it must not)
    errno = 0;
    int nice_now = getpriority(PRIO_PROCESS, 0);
    int lowered = setpriority(PRIO_PROCESS, 0, nice_now - 1) == 0;
    std::printf("nice=%d lowered=%d\n", nice_now, lowered);
    return 0;
  }
  // ---- hostile
  if (mode == "fork_bomb") { for (;;) fork(); }
  if (mode == "infinite_loop") { for (volatile unsigned long i = 0;; i = i + 1) {} }
  if (mode == "huge_alloc") {  // 100 GB
    std::vector<char> huge(100ull << 30); huge[12345] = 1; std::printf("%d\n", huge[12345]); return 0;
  }
  if (mode == "disk_filler") {  // one ever-growing file, then many files
    std::vector<char> block(1 << 20, 'x');
    FILE *f = std::fopen("fill.bin", "w");
    for (int i = 0; f && i < 100000; ++i) if (std::fwrite(block.data(), 1, block.size(), f) != block.size()) break;
    return 0;
  }
  if (mode == "many_files") {
    std::vector<char> block(1 << 20, 'x');
    for (int i = 0; i < 100000; ++i) {
      FILE *f = std::fopen(("f" + std::to_string(i)).c_str(), "w");
      if (!f) break;
      size_t wrote = std::fwrite(block.data(), 1, block.size(), f);
      std::fclose(f);
      if (wrote != block.size()) break;
    }
    std::printf("stopped\n");
    return 0;
  }
  if (mode == "tcp") {  // prints "connected" only if a TCP connection to a public address works
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{}; addr.sin_family = AF_INET; addr.sin_port = htons(80);
    inet_pton(AF_INET, "1.1.1.1", &addr.sin_addr);
    int rc = connect(s, (sockaddr *)&addr, sizeof addr);
    std::printf(rc == 0 ? "connected\n" : "refused %s\n", std::strerror(errno));
    return 0;
  }
  if (mode == "write_outside") {  // target: a host path outside the sandbox's work dir
    FILE *f = std::fopen(target, "w");
    std::printf(f ? "wrote\n" : "denied %s\n", std::strerror(errno));
    if (f) std::fclose(f);
    return 0;
  }
  if (mode == "delete") {  // target: a host file to delete
    int rc = std::remove(target);
    std::printf(rc == 0 ? "deleted\n" : "denied %s\n", std::strerror(errno));
    return 0;
  }
  if (mode == "kill_parent") { int rc = kill(getppid(), SIGKILL); std::printf("kill_parent %d\n", rc); return 0; }
  if (mode == "kill_all") { int rc = kill(-1, SIGKILL); std::printf("kill_all %d\n", rc); return 0; }
  if (mode == "kill_pid") { int rc = kill(atoi(target), SIGKILL); std::printf("kill_pid %d\n", rc); return 0; }
  if (mode == "print_1gb") {
    std::vector<char> line(1 << 20, 'y'); line.back() = '\n';
    for (int i = 0; i < 1024; ++i) std::fwrite(line.data(), 1, line.size(), stdout);
    return 0;
  }
  if (mode == "stack_overflow") { return recurse(0); }
  if (mode == "detached_thread") {
    std::thread([] { sleep(1000); }).detach();
    std::printf("main done\n");
    return 0;
  }
  if (mode == "detached_daemon") {  // a grandchild in its own session, holding stdout open
    if (fork() == 0) { setsid(); if (fork() == 0) { sleep(1000); _exit(0); } _exit(0); }
    std::printf("main done\n");
    return 0;
  }
  if (mode == "cpu_burn") { for (volatile unsigned long i = 0;; i = i + 1) {} }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
