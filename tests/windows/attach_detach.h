// What the Windows tests that attach to a running program and detach from
// it share: starting processes in the background, the attach-then-detach
// retry loop, and waits that end (a deadlock fails a test, never hangs it).
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "e2e_helpers.h"

extern char** environ;

namespace memframe::windows_test {

// Starts `argv` in the background (PATH searched); its pid, or -1.
inline pid_t Spawn(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  return posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) == 0 ? pid : -1;
}

// Waits for `pid` at most `seconds`, then kills it: its wait status, or -2
// when it had to be killed.
inline int WaitBounded(pid_t pid, int seconds) {
  int status = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return status;
}

struct AttachedThenDetached {
  pid_t recorder = -1;  // the recorder of the attach that recorded (still to be waited for)
  int detached = -1;    // the last detach's exit status: 0 when one ended the recording
};

// Runs `record` (a recorder of `memframe.exe attach NAME`) in the background
// and then `detach` (`memframe.exe detach NAME`) until the detach succeeds,
// for at most `seconds`. Until Wine has started the program the attach finds
// no process of that name and ends (it is started again); until it records
// a detach is refused (it is tried again).
inline AttachedThenDetached AttachThenDetach(const std::vector<std::string>& record,
                                             const std::vector<std::string>& detach, int seconds,
                                             int command_timeout) {
  AttachedThenDetached out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (out.recorder < 0) out.recorder = Spawn(record);
    if (out.recorder < 0) break;
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (waitpid(out.recorder, nullptr, WNOHANG) == out.recorder) {
      out.recorder = -1;
      continue;
    }
    out.detached = e2e::RunCommand(detach, command_timeout).exit_code;
    if (out.detached == 0) break;
  }
  return out;
}

}  // namespace memframe::windows_test
