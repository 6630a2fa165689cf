// The thread memframe loads the agent in, driven so that it can never be
// left in a state only memframe would repair: every change memframe makes
// to it puts the thread, in one ptrace call, on a path that ends with its
// own state restored by the thread itself (sigreturn_frame.h,
// injection_stub.h). memframe watches each path to its end in system call
// stops (PTRACE_SYSCALL), which a thread no longer traced simply runs
// through: a memframe killed at any instant leaves the thread to finish the
// path alone and go on where it was. PTRACE_O_EXITKILL is never set.
//
//   1. mmap(0, stub size, rwx) in the game's libc, returning into its
//      signal restorer over a frame of the thread's state;
//   2. the stub there (dlopen, dlsym, memframe_attach), which restores the
//      thread's state itself after a marker system call;
//   3. at the marker, munmap(stub) the same way as 1.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "attach/injection_stub.h"
#include "attach/thread_state.h"

namespace memframe::injector {

struct StubOutcome {
  uint64_t handle = 0, entry = 0, status = 0;
  std::string dlerror;
};

class RemoteThread {
 public:
  // `tid` of `pid`, ptrace-stopped, traced by memframe alone.
  RemoteThread(pid_t pid, pid_t tid) : pid_(pid), tid_(tid) {}
  ~RemoteThread();
  RemoteThread(const RemoteThread&) = delete;
  RemoteThread& operator=(const RemoteThread&) = delete;

  // Reads the thread's state and the libc functions the paths use.
  bool Prepare(uint64_t restorer, uint64_t mmap_at, uint64_t munmap_at, std::string* error);

  // Runs the three steps; false (with why) if the agent could not be
  // called. Whatever it returns, the thread is back in its own state, or on
  // its way there without memframe.
  bool LoadAgent(const StubCalls& calls, StubOutcome* outcome, std::string* error);

  bool gone() const { return gone_; }

 private:
  // Calls fn(args) returning through the restorer; true once the thread is
  // back in its own state. `mapped`: the value of the call's mmap, if any.
  bool CallRestoring(uint64_t fn, const uint64_t (&args)[6], uint64_t* mapped, std::string* error);
  // Lets the thread run, stopping at system calls, until `done` says so.
  template <typename Done>
  bool RunUntil(Done done, std::string* error);
  bool Write(uint64_t at, const void* data, size_t size, std::string* error);
  bool Read(uint64_t at, void* data, size_t size);
  // Lets a thread that memframe gave up on finish its path alone.
  void Release();

  pid_t pid_, tid_;
  int mem_fd_ = -1;  // /proc/PID/mem: writes into read-only code too, like ptrace
  ThreadState state_;
  user_regs_struct resume_{};  // where the thread goes on, a system call it was in re-entered
  uint64_t restorer_ = 0, mmap_ = 0, munmap_ = 0;
  uint64_t below_ = 0;  // the top of the stack memframe uses: under the red zone
  bool gone_ = false, released_ = false;
};

}  // namespace memframe::injector
