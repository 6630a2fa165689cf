#include "attach/remote_thread.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "attach/sigreturn_frame.h"

namespace memframe::injector {

namespace {

using Clock = std::chrono::steady_clock;

// How long one path may take (dlopen reads the agent and its libraries
// from disk); then memframe lets the thread finish it alone.
constexpr auto kPathLimit = std::chrono::seconds(15);
// The red zone: the 128 bytes under rsp that leaf functions use.
constexpr uint64_t kRedZone = 128;

// Waits for a stop of `tid` until `deadline`: SIGCHLD tells the tracer of a
// stop, so it is blocked and awaited rather than polled.
pid_t WaitStopUntil(pid_t tid, int* status, Clock::time_point deadline) {
  sigset_t child, old;
  sigemptyset(&child);
  sigaddset(&child, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &child, &old);
  pid_t got = 0;
  for (;;) {
    got = waitpid(tid, status, __WALL | WNOHANG);
    if (got != 0) break;
    auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) break;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    timespec wait{0, ns > 100'000'000 ? 100'000'000 : static_cast<long>(ns)};
    sigtimedwait(&child, nullptr, &wait);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return got;
}

}  // namespace

RemoteThread::~RemoteThread() {
  if (mem_fd_ >= 0) close(mem_fd_);
}

bool RemoteThread::Prepare(uint64_t restorer, uint64_t mmap_at, uint64_t munmap_at, std::string* error) {
  restorer_ = restorer, mmap_ = mmap_at, munmap_ = munmap_at;
  mem_fd_ = open(("/proc/" + std::to_string(pid_) + "/mem").c_str(), O_RDWR | O_CLOEXEC);
  if (mem_fd_ < 0) {
    *error = std::string("cannot open the process's memory: ") + strerror(errno);
    return false;
  }
  if (!ReadThreadState(tid_, &state_, error)) return false;
  if (!ReadBlockedSignals(pid_, tid_, &state_.blocked)) {
    *error = "cannot read the thread's signal mask";
    return false;
  }
  uint16_t before_ip = 0;
  Read(state_.regs.rip - 2, &before_ip, 2);
  resume_ = ResumableRegisters(state_.regs, before_ip);
  below_ = (resume_.rsp - kRedZone) & ~uint64_t{15};
  if (ptrace(PTRACE_SETOPTIONS, tid_, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACESYSGOOD)) != 0) {
    *error = std::string("cannot trace the thread's system calls: ") + strerror(errno);
    return false;
  }
  return true;
}

bool RemoteThread::Write(uint64_t at, const void* data, size_t size, std::string* error) {
  if (pwrite(mem_fd_, data, size, static_cast<off_t>(at)) == static_cast<ssize_t>(size)) return true;
  *error = "cannot write the process's memory at " + std::to_string(at) + ": " + strerror(errno);
  return false;
}

bool RemoteThread::Read(uint64_t at, void* data, size_t size) {
  return pread(mem_fd_, data, size, static_cast<off_t>(at)) == static_cast<ssize_t>(size);
}

template <typename Done>
bool RemoteThread::RunUntil(Done done, std::string* error) {
  const auto deadline = Clock::now() + kPathLimit;
  long resume_signal = 0;
  for (;;) {
    if (ptrace(PTRACE_SYSCALL, tid_, nullptr, reinterpret_cast<void*>(resume_signal)) != 0) {
      *error = std::string("lost the thread: ") + strerror(errno);
      gone_ = errno == ESRCH;
      return false;
    }
    resume_signal = 0;
    int status = 0;
    pid_t got = WaitStopUntil(tid_, &status, deadline);
    if (got == 0) {
      *error = "the loading did not end within " + std::to_string(kPathLimit.count()) +
               " s; the process may be stuck (its thread finishes the loading alone)";
      Release();
      return false;
    }
    if (got < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
      *error = "the process exited during the loading";
      gone_ = true;
      return false;
    }
    const int sig = WSTOPSIG(status);
    if (sig == (SIGTRAP | 0x80)) {
      __ptrace_syscall_info info{};
      if (ptrace(PTRACE_GET_SYSCALL_INFO, tid_, reinterpret_cast<void*>(sizeof info), &info) <= 0) {
        *error = std::string("cannot read the thread's system call: ") + strerror(errno);
        Release();
        return false;
      }
      if (done(info)) return true;
    } else if ((status >> 16) == 0 && sig != SIGTRAP) {
      resume_signal = sig;  // the program's own signal: delivered as it would have been
    }
  }
}

bool RemoteThread::CallRestoring(uint64_t fn, const uint64_t (&args)[6], uint64_t* mapped, std::string* error) {
  ThreadState back = state_;
  back.regs = resume_;
  ReadBlockedSignals(pid_, tid_, &back.blocked);
  SigreturnFrame frame = BuildSigreturnFrame(back, restorer_, below_);
  if (!Write(frame.at, frame.bytes.data(), frame.bytes.size(), error)) return false;
  user_regs_struct call = resume_;
  call.rip = fn;
  call.rsp = frame.at;
  call.rdi = args[0], call.rsi = args[1], call.rdx = args[2], call.rcx = args[3], call.r8 = args[4], call.r9 = args[5];
  call.rax = 0;
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &call) != 0) {
    *error = std::string("cannot start a call in the thread: ") + strerror(errno);
    return false;
  }
  // From here the thread returns to its own state by itself.
  bool mask_checked = false;
  uint64_t last_call = ~uint64_t{0};
  return RunUntil(
      [&](const __ptrace_syscall_info& info) {
        if (!mask_checked) {
          // Left a wait that swaps the mask (ppoll, epoll_pwait...), the
          // thread got its own mask back only when it left the stop.
          uint64_t mask = 0;
          if (ReadBlockedSignals(pid_, tid_, &mask)) Write(frame.sigmask_at, &mask, 8, error);
          mask_checked = true;
        }
        if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
          last_call = info.entry.nr;
          return false;
        }
        if (info.op != PTRACE_SYSCALL_INFO_EXIT) return false;
        if (last_call == SYS_mmap && mapped && !*mapped) *mapped = static_cast<uint64_t>(info.exit.rval);
        last_call = ~uint64_t{0};
        return info.instruction_pointer == resume_.rip && info.stack_pointer == resume_.rsp;
      },
      error);
}

bool RemoteThread::LoadAgent(const StubCalls& calls, StubOutcome* outcome, std::string* error) {
  const uint64_t size = InjectionStubSize(calls, state_);
  uint64_t base = 0;
  const uint64_t map_args[6] = {0, size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                                ~uint64_t{0}, 0};
  if (!CallRestoring(mmap_, map_args, &base, error)) return false;
  if (base == 0 || base > ~uint64_t{4095}) {
    *error = std::string("the process could not map memory for the agent's loader: ") +
             strerror(static_cast<int>(-static_cast<int64_t>(base)));
    return false;
  }
  InjectionStub stub = BuildInjectionStub(base, calls, state_, resume_);
  bool ok = Write(base, stub.bytes.data(), stub.bytes.size(), error);
  if (ok) {
    user_regs_struct run = resume_;
    run.rip = base;
    run.rsp = below_;
    ok = ptrace(PTRACE_SETREGS, tid_, nullptr, &run) == 0;
    if (!ok) *error = std::string("cannot start the agent's loader: ") + strerror(errno);
  }
  // From here the stub restores the thread itself; memframe waits for its
  // marker, where the calls are over.
  if (ok) {
    ok = RunUntil(
        [&](const __ptrace_syscall_info& info) {
          return info.op == PTRACE_SYSCALL_INFO_EXIT && info.instruction_pointer == base + stub.marker_end;
        },
        error);
    if (!ok) return false;
    uint64_t results[5] = {};
    Read(base + StubResults::kHandle, results, sizeof results);
    outcome->handle = results[0], outcome->entry = results[1], outcome->status = results[2];
    char text[256] = {};
    if (results[3] && Read(results[3], text, sizeof text - 1)) outcome->dlerror = text;
  }
  // The stub's mapping goes, and the thread back to its own state.
  const uint64_t unmap_args[6] = {base, size, 0, 0, 0, 0};
  std::string unmap_error;
  bool unmapped = CallRestoring(munmap_, unmap_args, nullptr, &unmap_error);
  if (ok && !unmapped) *error = unmap_error;
  return ok && unmapped;
}

void RemoteThread::Release() {
  if (gone_ || released_) return;
  released_ = true;
  // A running thread must stop before it can be detached.
  int status = 0;
  int deliver = 0;
  if (ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) == 0 && waitpid(tid_, &status, __WALL) == tid_ &&
      WIFSTOPPED(status) && (status >> 16) == 0 && WSTOPSIG(status) != SIGTRAP &&
      WSTOPSIG(status) != (SIGTRAP | 0x80))
    deliver = WSTOPSIG(status);
  ptrace(PTRACE_DETACH, tid_, nullptr, reinterpret_cast<void*>(static_cast<long>(deliver)));
}

}  // namespace memframe::injector
