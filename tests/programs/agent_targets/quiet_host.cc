// Closes its stderr first thing, then keeps allocating: the agent's own
// diagnostics (here: "the recorder went away") must still get out. Also
// reports whether the agent's writer thread blocks the signals a game
// handles, by reading the thread's signal mask from /proc.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

static void* volatile g_block;

// "yes"/"no" for the memframe-writer thread blocking SIGINT, SIGTERM,
// SIGUSR1 and SIGALRM; "absent" without the agent.
static const char* WriterBlocksSignals() {
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return "absent";
  const char* verdict = "absent";
  while (dirent* task = readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::string dir = std::string("/proc/self/task/") + task->d_name;
    char comm[32] = {};
    if (FILE* f = fopen((dir + "/comm").c_str(), "r")) {
      if (!fgets(comm, sizeof(comm), f)) comm[0] = 0;
      fclose(f);
    }
    if (strncmp(comm, "memframe-writer", 15) != 0) continue;
    unsigned long long blocked = 0;
    if (FILE* f = fopen((dir + "/status").c_str(), "r")) {
      char line[256];
      while (fgets(line, sizeof(line), f))
        if (sscanf(line, "SigBlk: %llx", &blocked) == 1) break;
      fclose(f);
    }
    auto bit = [](int signal) { return 1ull << (signal - 1); };
    unsigned long long wanted = bit(SIGINT) | bit(SIGTERM) | bit(SIGUSR1) | bit(SIGALRM);
    verdict = (blocked & wanted) == wanted ? "yes" : "no";
  }
  closedir(tasks);
  return verdict;
}

int main() {
  close(2);
  std::printf("writer blocks signals: %s\n", WriterBlocksSignals());
  std::fflush(stdout);
  // Long enough for the recorder to go away under us and the writer to notice.
  for (int i = 0; i < 200; ++i) {
    for (int j = 0; j < 1000; ++j) {
      g_block = malloc(64);
      free(g_block);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return 0;
}
