// The agent's entry for `memframe attach`: the injector loads the agent
// into a running process with dlopen and calls memframe_attach(config) in
// one of its threads, which it has stopped at a safe point. That thread
// must be given back at once, so memframe_attach only starts the attach
// thread, which does the rest:
//   1. reads the config file the injector wrote (the settings `memframe
//      run` passes in the environment, which a running process's cannot
//      take), sets the capture up and connects to the recorder;
//   2. patches the import slots of every loaded module (got_patcher.h), and
//      those of modules loaded later (it checks the loader's counter; a
//      dlopen hook cannot do it without changing whom glibc sees as
//      dlopen's caller, which picks the library search path), and hands
//      memframe the present entries to patch (entry_trampolines.h);
//   3. waits for a detach: a byte from the recorder on the agent's socket,
//      or the recorder gone. Then it writes every slot back, lets the
//      writer send the last events with EndOfStream "detach", and ends.
//      The agent stays loaded (NODELETE): a thread may still be inside a
//      hook, and a later attach reuses it.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "attach/entry_trampolines.h"
#include "attach/got_patcher.h"
#include "capture/recorder.h"
#include "capture/recursion_guard.h"
#include "hooks/tracked_call.h"
#include "memframe/format.h"
#include "runtime/agent_runtime.h"
#include "runtime/config.h"
#include "runtime/diagnostics.h"
#include "writer/module_map.h"

using namespace memframe::agent;

namespace {

// How often the attach thread looks for a detach request and new modules.
constexpr int kPollMs = 20;
constexpr size_t kAttachStackBytes = 256 * 1024;

char g_config_path[4096];
// "NAME=value" lines, each cut at its newline; lives as long as the
// settings that point into it.
char g_config_text[16384];
size_t g_config_size = 0;
std::atomic<bool> g_attach_running{false};

const char* LookUpSetting(const char* name, void*) {
  size_t length = strlen(name);
  for (size_t at = 0; at < g_config_size;) {
    const char* line = g_config_text + at;
    size_t line_length = strlen(line);
    if (line_length > length && memcmp(line, name, length) == 0 && line[length] == '=') return line + length + 1;
    at += line_length + 1;
  }
  return nullptr;
}

bool ReadConfigFile() {
  int fd = open(g_config_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, g_config_text, sizeof(g_config_text) - 1);
  close(fd);
  if (n <= 0) return false;
  g_config_size = static_cast<size_t>(n);
  for (size_t i = 0; i < g_config_size; ++i)
    if (g_config_text[i] == '\n') g_config_text[i] = '\0';
  g_config_text[g_config_size] = '\0';
  return true;
}

// Until a detach: a byte from the recorder, the recorder gone, or the
// writer stopped (an exec, a write error).
// `seen`: the loader's counts read before the last pass over the modules;
// `unrelocated`: that pass left a module that was still being loaded.
void ServeUntilDetach(const char* entries, LoaderCounts seen, bool unrelocated) {
  for (;;) {
    int fd = RecorderFd();
    if (fd < 0 || !Recording()) return;
    pollfd request{fd, POLLIN, 0};
    if (poll(&request, 1, kPollMs) > 0 && request.revents) {
      // Take the request byte: a socket closed with unread bytes resets the
      // connection, and the recorder would lose what is still in flight.
      char byte;
      if (request.revents & POLLIN) (void)recv(fd, &byte, 1, MSG_DONTWAIT);
      return;
    }
    LoaderCounts now = ReadLoaderCounts();
    if (now.adds != seen.adds || unrelocated) {
      size_t patched = PatchLoadedModules(&unrelocated);
      if (patched) Debug("patched %zu imports of newly loaded modules", patched);
      seen = now;
    }
    if (entries) PublishEntryPatches(entries);
  }
}

void* AttachMain(void*) {
  RecursionGuard guard;  // for its whole life: nothing this thread does is the game's
  if (!ReadConfigFile()) {
    Warn("memframe attach: cannot read the settings %s", g_config_path);
    g_attach_running.store(false);
    return nullptr;
  }
  Config config = ReadConfigWith(LookUpSetting, nullptr);
  int started = StartAttached(config);
  if (started != 0) {
    if (started == 1) Warn("memframe attach: this process is already being recorded");
    g_attach_running.store(false);
    return nullptr;
  }
  if (!PrepareGotPatching()) {
    Warn("memframe attach: the agent cannot find its own hooks; not recording");
    StopAttached();
    g_attach_running.store(false);
    return nullptr;
  }
  bool unrelocated = false;
  LoaderCounts seen = ReadLoaderCounts();  // before the pass: a module loaded during it is patched later
  size_t patched = PatchLoadedModules(&unrelocated);
  Debug("attached: %zu imports patched", patched);
  const char* entries = LookUpSetting(memframe::wire::kSettingAttachEntries, nullptr);
  // Before the ready file: memframe patches them before it says it records.
  if (entries) PublishEntryPatches(entries);
  // Tells memframe that from now on every call is recorded, with the
  // entries it could not patch (memframe prints them): written aside and
  // renamed, so that memframe never reads it half-written.
  if (const char* ready = LookUpSetting(memframe::wire::kSettingAttachReady, nullptr)) {
    char aside[4096 + 8];
    if (strlen(ready) < sizeof(aside) - 8) {
      strcpy(aside, ready);
      strcat(aside, ".part");
      int fd = open(aside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0) {
        const char* refusals = EntryTrampolineRefusals();
        ssize_t ignored = write(fd, refusals, strlen(refusals));
        (void)ignored;
        close(fd);
        if (rename(aside, ready) != 0) unlink(aside);
      }
    }
  }
  ServeUntilDetach(entries, seen, unrelocated);
  size_t restored = UnpatchAll();
  StopAttached();
  Debug("detached: %zu imports restored", restored);
  CloseDiagnostics();  // the agent's last fd
  g_attach_running.store(false);
  return nullptr;
}

}  // namespace

// 0: the attach thread runs; 1: already attached or recording; 2: failed.
MEMFRAME_EXPORT int memframe_attach(const char* config_path) {
  if (!config_path || strlen(config_path) >= sizeof(g_config_path)) return 2;
  if (Recording() || g_attach_running.exchange(true)) return 1;
  strcpy(g_config_path, config_path);
  // No signal handler of the game's may run on the agent's thread.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kAttachStackBytes);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  int rc = pthread_create(&thread, &attr, AttachMain, nullptr);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    g_attach_running.store(false);
    return 2;
  }
  return 0;
}
