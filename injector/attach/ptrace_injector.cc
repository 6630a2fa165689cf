#include "attach/ptrace_injector.h"

#include <dlfcn.h>
#include <elf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "attach/target_process.h"
#include "attach/traced_threads.h"
#include "memframe/paths.h"

namespace memframe::injector {

namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// How often the process is let run for a millisecond to find a safe point.
constexpr int kMaxSafePointRounds = 500;
// How long one call in the process may take (dlopen reads the agent and its
// libraries from disk).
constexpr int kCallTimeoutMs = 15000;

// Modules whose code may hold the allocator's or the loader's lock.
bool IsUnsafeModule(const std::string& path) {
  const std::string base = Basename(path);
  static const char* const kPrefixes[] = {"libc.so",  "ld-linux", "ld-", "libstdc++", "libgcc_s", "libpthread",
                                          "libdl.so", "libunwind", "libmemframe_agent"};
  for (const char* prefix : kPrefixes)
    if (base.compare(0, strlen(prefix), prefix) == 0) return true;
  return base.find("malloc") != std::string::npos;  // jemalloc, tcmalloc, ...
}

// System calls a thread sleeps in while holding none of the locks dlopen
// needs. futex is not among them: a lock wait may sit inside the allocator.
bool IsSleepingSyscall(long nr) {
  switch (nr) {
    case 0: case 7: case 23: case 34: case 35: case 43: case 45: case 47: case 61: case 128: case 130:
    case 230: case 232: case 270: case 271: case 281: case 288:
      return true;
    default:
      return false;
  }
}

// The thread to run the calls in, or 0 if none is at a safe point now.
pid_t PickSafeThread(const TracedThreads& traced) {
  std::vector<MappedRange> maps = ReadMaps(traced.pid());
  auto module_of = [&](uint64_t pc) -> const MappedRange* {
    for (const MappedRange& r : maps)
      if (pc >= r.start && pc < r.end) return &r;
    return nullptr;
  };
  pid_t sleeping = 0, running = 0, waiting_on_futex = 0;
  for (const auto& entry : traced.threads()) {
    const pid_t tid = entry.first;  // a plain name: lambdas capture it (clang 14 rejects a structured binding)
    if (entry.second.pending_signal) continue;
    user_regs_struct regs{};
    if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) continue;
    const MappedRange* where = module_of(regs.rip);
    if (!where) continue;
    bool in_loader = where->path.find("/ld-linux") != std::string::npos;
    long nr = static_cast<long>(regs.orig_rax);
    auto prefer = [&](pid_t* slot) {
      if (!*slot || tid == traced.pid()) *slot = tid;  // the main thread first
    };
    if (nr >= 0 && !in_loader) {
      if (IsSleepingSyscall(nr)) prefer(&sleeping);
      else if (nr == 202) prefer(&waiting_on_futex);
      continue;
    }
    if (nr < 0 && !IsUnsafeModule(where->path)) prefer(&running);
  }
  return sleeping ? sleeping : running ? running : waiting_on_futex;
}


// The chosen thread's state, and the stack bytes the calls use.
class RemoteThread {
 public:
  explicit RemoteThread(pid_t tid) : tid_(tid) {}

  bool Save(std::string* error) {
    if (ptrace(PTRACE_GETREGS, tid_, nullptr, &regs_) != 0) {
      *error = std::string("cannot read the registers: ") + strerror(errno);
      return false;
    }
    xstate_.resize(64 * 1024);
    iovec io{xstate_.data(), xstate_.size()};
    if (ptrace(PTRACE_GETREGSET, tid_, reinterpret_cast<void*>(NT_X86_XSTATE), &io) == 0) {
      xstate_.resize(io.iov_len);
      xstate_type_ = NT_X86_XSTATE;
    } else {
      // No XSAVE: the legacy FPU/SSE area.
      xstate_.resize(sizeof(user_fpregs_struct));
      io = {xstate_.data(), xstate_.size()};
      if (ptrace(PTRACE_GETREGSET, tid_, reinterpret_cast<void*>(NT_PRFPREG), &io) != 0) {
        *error = std::string("cannot read the floating-point registers: ") + strerror(errno);
        return false;
      }
      xstate_.resize(io.iov_len);
      xstate_type_ = NT_PRFPREG;
    }
    // Scratch space below the red zone (the 128 bytes under rsp that leaf
    // functions use without moving rsp).
    scratch_top_ = (regs_.rsp - 128) & ~uint64_t{15};
    return true;
  }

  // Writes `text` (with its NUL) into the scratch space; its address.
  uint64_t PushString(const std::string& text, std::string* error) {
    size_t size = (text.size() + 1 + 7) & ~size_t{7};
    uint64_t at = scratch_top_ - used_ - size;
    std::vector<char> bytes(size, '\0');
    memcpy(bytes.data(), text.c_str(), text.size());
    if (!WriteWords(at, bytes.data(), size, error)) return 0;
    used_ += size;
    return at;
  }

  // Calls fn(a, b, c) in the thread; its return value.
  bool Call(uint64_t fn, uint64_t a, uint64_t b, uint64_t c, uint64_t* result, std::string* error) {
    user_regs_struct call = regs_;
    uint64_t sp = (scratch_top_ - used_ - 256) & ~uint64_t{15};
    sp -= 8;  // the return address: 0, so that returning stops the thread
    uint64_t zero = 0;
    if (!WriteWords(sp, &zero, 8, error)) return false;
    call.rsp = sp;
    call.rip = fn;
    call.rdi = a;
    call.rsi = b;
    call.rdx = c;
    call.rax = 0;
    call.orig_rax = static_cast<unsigned long long>(-1);  // no system call restart on the way out
    if (ptrace(PTRACE_SETREGS, tid_, nullptr, &call) != 0 || ptrace(PTRACE_CONT, tid_, nullptr, nullptr) != 0) {
      *error = std::string("cannot start the call: ") + strerror(errno);
      return false;
    }
    auto start = Clock::now();
    for (;;) {
      int status = 0;
      pid_t got = waitpid(tid_, &status, __WALL | WNOHANG);
      if (got < 0) {
        *error = std::string("lost the thread: ") + strerror(errno);
        gone_ = true;
        return false;
      }
      if (got == 0) {
        if (MsSince(start) > kCallTimeoutMs) {
          *error = "the call did not return within " + std::to_string(kCallTimeoutMs / 1000) +
                   " s; the process may be stuck";
          stuck_ = true;
          return false;
        }
        timespec nap{0, 100000};
        nanosleep(&nap, nullptr);
        continue;
      }
      if (WIFEXITED(status) || WIFSIGNALED(status)) {
        *error = "the process exited during the call";
        gone_ = true;
        return false;
      }
      int event = status >> 16, sig = WSTOPSIG(status);
      if (event != 0 || sig == SIGTRAP) {  // an interrupt left over, or an event stop
        ptrace(PTRACE_CONT, tid_, nullptr, nullptr);
        continue;
      }
      if (sig == SIGSEGV) {
        user_regs_struct after{};
        ptrace(PTRACE_GETREGS, tid_, nullptr, &after);
        if (after.rip == 0) {
          *result = after.rax;
          return true;
        }
        *error = "the call crashed (SIGSEGV at " + std::to_string(after.rip) + ")";
        crashed_ = true;
        return false;
      }
      // The program's own signal: delivered as it would have been.
      ptrace(PTRACE_CONT, tid_, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
    }
  }

  // Reads a NUL-terminated string of the process (for dlerror).
  std::string ReadString(uint64_t at) {
    std::string text;
    for (int i = 0; at && i < 64; ++i, at += 8) {
      errno = 0;
      long word = ptrace(PTRACE_PEEKDATA, tid_, reinterpret_cast<void*>(at), nullptr);
      if (errno) break;
      const char* bytes = reinterpret_cast<const char*>(&word);
      for (int j = 0; j < 8; ++j) {
        if (!bytes[j]) return text;
        text += bytes[j];
      }
    }
    return text;
  }

  // Puts back every byte and register. False if the thread cannot be
  // restored (then it must not be resumed where it stands).
  bool Restore() {
    if (gone_ || stuck_) return false;
    bool ok = true;
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it)
      ok = ptrace(PTRACE_POKEDATA, tid_, reinterpret_cast<void*>(it->first), reinterpret_cast<void*>(it->second)) == 0 && ok;
    iovec io{xstate_.data(), xstate_.size()};
    ok = ptrace(PTRACE_SETREGSET, tid_, reinterpret_cast<void*>(xstate_type_), &io) == 0 && ok;
    ok = ptrace(PTRACE_SETREGS, tid_, nullptr, &regs_) == 0 && ok;
    return ok;
  }

  bool stuck() const { return stuck_; }

 private:
  bool WriteWords(uint64_t at, const void* data, size_t size, std::string* error) {
    for (size_t i = 0; i < size; i += 8) {
      uint64_t address = at + i;
      errno = 0;
      long old = ptrace(PTRACE_PEEKDATA, tid_, reinterpret_cast<void*>(address), nullptr);
      if (errno) {
        *error = std::string("cannot read the thread's stack: ") + strerror(errno);
        return false;
      }
      saved_.emplace_back(address, old);
      long word = 0;
      memcpy(&word, static_cast<const char*>(data) + i, 8);
      if (ptrace(PTRACE_POKEDATA, tid_, reinterpret_cast<void*>(address), reinterpret_cast<void*>(word)) != 0) {
        *error = std::string("cannot write the thread's stack: ") + strerror(errno);
        return false;
      }
    }
    return true;
  }

  pid_t tid_;
  user_regs_struct regs_{};
  std::vector<uint8_t> xstate_;
  int xstate_type_ = NT_PRFPREG;
  uint64_t scratch_top_ = 0;
  size_t used_ = 0;
  std::vector<std::pair<uint64_t, long>> saved_;
  bool gone_ = false, stuck_ = false, crashed_ = false;
};

}  // namespace

InjectResult InjectAgent(pid_t pid, const std::string& agent, const std::string& config_path) {
  InjectResult result;
  std::vector<MappedRange> maps = ReadMaps(pid);
  // glibc >= 2.34 keeps dlopen in libc; older ones in libdl (only if the
  // program linked it).
  const char* const kLibraries[] = {"libc.so.6", "libdl.so.2"};
  uint64_t dlopen_at = 0, dlsym_at = 0, dlerror_at = 0;
  for (const char* library : kLibraries) {
    dlopen_at = RemoteSymbol(pid, maps, library, "dlopen");
    if (!dlopen_at) continue;
    dlsym_at = RemoteSymbol(pid, maps, library, "dlsym");
    dlerror_at = RemoteSymbol(pid, maps, library, "dlerror");
    break;
  }
  if (!dlopen_at || !dlsym_at) {
    result.error = "cannot find dlopen in process " + std::to_string(pid) +
                   " (no glibc 2.34 or later, and no libdl loaded): memframe cannot load its agent there";
    return result;
  }

  TracedThreads session(pid);
  auto stop_start = Clock::now();
  if (!session.SeizeAll(&result.error) || !session.WaitAllStopped(&result.error)) return result;
  pid_t tid = PickSafeThread(session);
  while (!tid && result.safe_point_rounds < kMaxSafePointRounds) {
    ++result.safe_point_rounds;
    if (!session.RunFor(1, &result.error)) return result;
    stop_start = Clock::now();
    tid = PickSafeThread(session);
  }
  result.threads = static_cast<int>(session.size());
  if (!tid) {
    result.error = "no thread of process " + std::to_string(pid) +
                   " reached a safe point (all were inside the allocator, the loader or the C++ runtime)";
    return result;
  }
  result.call_thread = tid;
  // The others run on: a lock the calls need may be theirs.
  session.DetachAllBut(tid);
  result.all_stopped_ms = MsSince(stop_start);
  ptrace(PTRACE_SETOPTIONS, tid, nullptr, nullptr);  // the agent's own threads stay untraced

  RemoteThread thread(tid);
  if (!thread.Save(&result.error)) return result;
  uint64_t path_at = thread.PushString(agent, &result.error);
  uint64_t config_at = path_at ? thread.PushString(config_path, &result.error) : 0;
  uint64_t name_at = config_at ? thread.PushString("memframe_attach", &result.error) : 0;
  bool ok = name_at != 0;
  uint64_t handle = 0, entry = 0, status = 0;
  if (ok) ok = thread.Call(dlopen_at, path_at, RTLD_NOW | RTLD_LOCAL, 0, &handle, &result.error);
  if (ok && !handle) {
    uint64_t message = 0;
    std::string why;
    if (dlerror_at && thread.Call(dlerror_at, 0, 0, 0, &message, &result.error)) why = thread.ReadString(message);
    result.error = "the process could not load the agent " + agent + (why.empty() ? "" : ": " + why);
    ok = false;
  }
  if (ok) ok = thread.Call(dlsym_at, handle, name_at, 0, &entry, &result.error);
  if (ok && !entry) {
    result.error = "the agent " + agent + " has no memframe_attach entry (an older agent?)";
    ok = false;
  }
  if (ok) ok = thread.Call(entry, config_at, 0, 0, &status, &result.error);
  if (ok) result.attach_status = static_cast<int>(status);
  bool restored = thread.Restore();
  if (!restored && !thread.stuck() && result.error.empty()) result.error = "cannot restore the thread's registers";
  session.DetachAll();
  result.call_thread_ms = MsSince(stop_start);
  result.ok = ok && restored;
  return result;
}

}  // namespace memframe::injector
