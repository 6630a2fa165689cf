#include "attach/ptrace_injector.h"

#include <sys/ptrace.h>
#include <sys/user.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "attach/remote_thread.h"
#include "attach/sigreturn_frame.h"
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
  const uint64_t mmap_at = RemoteSymbol(pid, maps, "libc.so.6", "mmap");
  const uint64_t munmap_at = RemoteSymbol(pid, maps, "libc.so.6", "munmap");
  const uint64_t restorer = FindSignalRestorer(pid, maps);
  if (!mmap_at || !munmap_at || !restorer) {
    result.error = "cannot find mmap, munmap and the signal restorer in the libc of process " + std::to_string(pid);
    return result;
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

  StubCalls calls{dlopen_at, dlsym_at, dlerror_at, agent, config_path};
  RemoteThread thread(pid, tid);
  StubOutcome outcome;
  bool ok = thread.Prepare(restorer, mmap_at, munmap_at, &result.error) &&
            thread.LoadAgent(calls, &outcome, &result.error);
  if (ok && !outcome.handle) {
    result.error = "the process could not load the agent " + agent +
                   (outcome.dlerror.empty() ? "" : ": " + outcome.dlerror);
    ok = false;
  } else if (ok && !outcome.entry) {
    result.error = "the agent " + agent + " has no memframe_attach entry (an older agent?)";
    ok = false;
  }
  if (ok) result.attach_status = static_cast<int>(outcome.status);
  session.DetachAll();
  result.call_thread_ms = MsSince(stop_start);
  result.ok = ok;
  return result;
}

}  // namespace memframe::injector
