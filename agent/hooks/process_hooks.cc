// Process-level events the agent must see:
// - exec*: everything recorded so far is sent and the stream ended before
//   the image is replaced (the new image opens its own stream; with
//   MEMFRAME_FOLLOW_EXEC=0 it runs without the agent);
// - posix_spawn*: glibc execs the child through its internal execve, past
//   the hook above, so MEMFRAME_FOLLOW_EXEC=0 strips the agent from the
//   child's environment here (system() and popen() spawn the same internal
//   way and cannot be reached: their children keep the agent);
// - dlopen: RTLD_DEEPBIND is dropped, as heaptrack does, because a
//   deep-bound library would call libc's malloc directly, past the hooks;
// - dlclose: the module map is brought up to date first, so addresses in a
//   library that is about to go can still be symbolized; afterwards, if it
//   unloaded anything, the stack capture's cached unwind rules are dropped.
#include <dlfcn.h>
#include <spawn.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdlib>
#include <cstring>

#include "capture/stack_capture.h"
#include "hooks/elf_symbols.h"
#include "hooks/process_hooks.h"
#include "hooks/tracked_call.h"
#include "runtime/agent_runtime.h"
#include "runtime/diagnostics.h"
#include "writer/module_map.h"
#include "writer/writer_thread.h"

extern char** environ;

using namespace memframe::agent;

namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using ExecvpeFn = int (*)(const char*, char* const[], char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);
std::atomic<ExecveFn> g_execve{nullptr};
std::atomic<ExecvpeFn> g_execvpe{nullptr};
std::atomic<FexecveFn> g_fexecve{nullptr};

bool IsAgentPath(const char* begin, const char* end) {
  static const char kAgent[] = "libmemframe_agent.so";
  size_t n = static_cast<size_t>(end - begin), m = sizeof(kAgent) - 1;
  return n >= m && memcmp(end - m, kAgent, m) == 0;
}

// The bytes WithoutAgent needs for `env`: its array and the rebuilt
// LD_PRELOAD entry.
size_t WithoutAgentBytes(char* const* env) {
  size_t count = 0, preload = 0;
  for (; env && env[count]; ++count)
    if (strncmp(env[count], "LD_PRELOAD=", 11) == 0) preload += strlen(env[count]) + 1;
  return sizeof(char*) * (count + 1) + preload;
}

// `env` without the agent: no MEMFRAME_* variables, and LD_PRELOAD without
// the agent's entry, built in `space` (WithoutAgentBytes of it).
char** WithoutAgent(char* const* env, void* space) {
  size_t count = 0;
  while (env && env[count]) ++count;
  auto** out = static_cast<char**>(space);
  char* strings = reinterpret_cast<char*>(out + count + 1);
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    const char* entry = env[i];
    if (strncmp(entry, "MEMFRAME_", 9) == 0) continue;
    if (strncmp(entry, "LD_PRELOAD=", 11) != 0) {
      out[kept++] = const_cast<char*>(entry);
      continue;
    }
    // Rebuild LD_PRELOAD from its other entries (':' or ' ' separated).
    char* rebuilt = strings;
    strings += strlen(entry) + 1;
    strcpy(rebuilt, "LD_PRELOAD=");
    bool any = false;
    for (const char* p = entry + 11; *p;) {
      const char* end = p + strcspn(p, ": ");
      if (end > p && !IsAgentPath(p, end)) {
        if (any) strcat(rebuilt, ":");
        strncat(rebuilt, p, static_cast<size_t>(end - p));
        any = true;
      }
      p = *end ? end + 1 : end;
    }
    if (any) out[kept++] = rebuilt;
  }
  out[kept] = nullptr;
  return out;
}

// An environment up to this size is stripped on the stack: in a vfork
// child the heap is the parent's, and an exec that succeeds never frees.
// A larger one goes to the heap (a vfork child then leaves it there).
constexpr size_t kMaxStackEnvironment = 1 << 20;

// Calls call(env without the agent), the stripped copy on the stack.
template <typename Call>
auto WithAgentStripped(char* const* env, Call call) {
  const size_t bytes = WithoutAgentBytes(env);
  void* space = nullptr;
  if (bytes <= kMaxStackEnvironment) {
    space = __builtin_alloca(bytes);
  } else {
    RecursionGuard guard;
    space = malloc(bytes);
  }
  auto result = call(WithoutAgent(env, space));
  if (bytes > kMaxStackEnvironment) {
    RecursionGuard guard;
    free(space);
  }
  return result;
}

// Runs one exec: flush and end the stream, strip the agent if asked, exec,
// and if the exec comes back (it failed), record again.
template <typename Call>
int Exec(char* const* env, Call call) {
  BeforeExec();
  int rc = FollowExec() ? call(env) : WithAgentStripped(env, call);
  int saved_errno = errno;
  AfterFailedExec();
  errno = saved_errno;
  return rc;
}

// execl-style argument lists, copied into an argv array on the stack.
constexpr int kMaxListArgs = 4096;

}  // namespace

MEMFRAME_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  ExecveFn real = CachedNextSymbol(g_execve, "execve");
  return Exec(envp, [&](char* const* env) { return real(path, argv, env); });
}

MEMFRAME_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  ExecvpeFn real = CachedNextSymbol(g_execvpe, "execvpe");
  return Exec(envp, [&](char* const* env) { return real(file, argv, env); });
}

MEMFRAME_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  FexecveFn real = CachedNextSymbol(g_fexecve, "fexecve");
  return Exec(envp, [&](char* const* env) { return real(fd, argv, env); });
}

MEMFRAME_EXPORT int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }
MEMFRAME_EXPORT int execvp(const char* file, char* const argv[]) { return execvpe(file, argv, environ); }

#define MEMFRAME_COLLECT_ARGS(first, argv, extra_env)                    \
  char* argv[kMaxListArgs];                                              \
  {                                                                      \
    va_list args;                                                        \
    va_start(args, first);                                               \
    int n = 0;                                                           \
    argv[n++] = const_cast<char*>(first);                                \
    while (n < kMaxListArgs - 1 && (argv[n] = va_arg(args, char*))) ++n; \
    argv[n] = nullptr;                                                   \
    extra_env;                                                           \
    va_end(args);                                                        \
  }

MEMFRAME_EXPORT int execl(const char* path, const char* arg, ...) {
  MEMFRAME_COLLECT_ARGS(arg, argv, (void)0);
  return execve(path, argv, environ);
}

MEMFRAME_EXPORT int execlp(const char* file, const char* arg, ...) {
  MEMFRAME_COLLECT_ARGS(arg, argv, (void)0);
  return execvpe(file, argv, environ);
}

MEMFRAME_EXPORT int execle(const char* path, const char* arg, ...) {
  char* const* envp = nullptr;
  MEMFRAME_COLLECT_ARGS(arg, argv, envp = va_arg(args, char* const*));
  return execve(path, argv, envp);
}
#undef MEMFRAME_COLLECT_ARGS

namespace {
using PosixSpawnFn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                             char* const[], char* const[]);
std::atomic<PosixSpawnFn> g_posix_spawn{nullptr};
std::atomic<PosixSpawnFn> g_posix_spawnp{nullptr};

// The parent goes on recording; only the child's environment changes, and
// only when exec'd programs are not to be followed.
template <typename Call>
int Spawn(char* const* env, Call call) {
  // An error number; errno is not part of the result.
  return FollowExec() ? call(env) : WithAgentStripped(env, call);
}
}  // namespace

MEMFRAME_EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                                const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  PosixSpawnFn real = CachedNextSymbol(g_posix_spawn, "posix_spawn");
  return Spawn(envp, [&](char* const* env) { return real(pid, path, actions, attributes, argv, env); });
}

MEMFRAME_EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                                 const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  PosixSpawnFn real = CachedNextSymbol(g_posix_spawnp, "posix_spawnp");
  return Spawn(envp, [&](char* const* env) { return real(pid, file, actions, attributes, argv, env); });
}

namespace {
using DlopenFn = void* (*)(const char*, int) noexcept;
using DlcloseFn = int (*)(void*) noexcept;
std::atomic<DlopenFn> g_dlopen{nullptr};
std::atomic<DlcloseFn> g_dlclose{nullptr};

// libc's own dlopen (found without dlsym, like RealDlsym).
DlopenFn RealDlopen() noexcept {
  DlopenFn fn = g_dlopen.load(std::memory_order_acquire);
  if (!fn) {
    fn = reinterpret_cast<DlopenFn>(FindLibrarySymbol("libc.so.6", "dlopen"));
    if (!fn) fn = reinterpret_cast<DlopenFn>(FindLibrarySymbol("libdl.so.2", "dlopen"));
    g_dlopen.store(fn, std::memory_order_release);
  }
  return fn;
}
}  // namespace

MEMFRAME_EXPORT void* dlopen(const char* file, int mode) noexcept {
  // Tail call: glibc resolves $ORIGIN and the namespace from its caller.
  return RealDlopen()(file, mode & ~RTLD_DEEPBIND);
}

MEMFRAME_EXPORT int dlclose(void* handle) noexcept {
  // Most dlcloses unload nothing: they drop one reference of a library that
  // stays (LLVM does one per shader llvmpipe compiles, in the middle of a
  // frame). The loader's counters tell: the wait for a fresh module map is
  // only needed when the last one sent misses an object loaded since, and
  // the unwind rules only go when an object was really removed.
  LoaderCounts before = ReadLoaderCounts();
  if (Recording() && !ModuleMapCovers(before)) {
    RecursionGuard guard;
    SyncWithWriter(100);
  }
  DlcloseFn real = CachedNextSymbol(g_dlclose, "dlclose");
  int result = real ? real(handle) : -1;
  // Cached unwind rules must not outlive the code they describe.
  if (ReadLoaderCounts().subs != before.subs) ModulesUnloaded();
  return result;
}

namespace memframe::agent {

void ResolveProcessFunctions() {
  CachedNextSymbol(g_execve, "execve");
  CachedNextSymbol(g_execvpe, "execvpe");
  CachedNextSymbol(g_fexecve, "fexecve");
  CachedNextSymbol(g_posix_spawn, "posix_spawn");
  CachedNextSymbol(g_posix_spawnp, "posix_spawnp");
  CachedNextSymbol(g_dlclose, "dlclose");
}

}  // namespace memframe::agent
