// mimalloc's API from a library loaded after the agent's start, with
// dlopen (nothing here links libmimalloc). Modes:
//   plugin PATH [--wait-for-hooks]   dlopens the plugin PATH
//       (mimalloc_plugin.cc, which links libmimalloc) and runs kApiRounds of
//       its UsePluginApi. Under memframe, --wait-for-hooks first waits until
//       the plugin's imports are hooked (the agent looks at the loader every
//       100 ms), so that every call is recorded and the counts are exact.
//   dlsym   dlopens libmimalloc.so.2 and calls mi_malloc, mi_calloc and
//       mi_free through pointers from dlsym on its handle, kApiRounds times
//       in UseDlsymApi (per round: 100 bytes and 3 x 30, both freed). Says
//       whether dlsym(RTLD_DEFAULT, "mi_malloc") finds it (it must not: the
//       library was loaded locally).
//   --wait-for-attach PATH   driven from stdin for `memframe attach`:
//       load (dlopen PATH: "loaded"), hooked? ("hooked" or "not hooked"
//       after up to 20 s of waiting for the hooks), unhooked? (the same,
//       waiting for the detach to restore the slots), work (kApiRounds of
//       UsePluginApi: "done"), end.
// Every mode ends with one line, the same with or without memframe.
#include <dlfcn.h>
#include <time.h>

#include <cstdio>
#include <cstring>

#include "allocator_api_rounds.h"

using namespace memframe::targets;

namespace {

struct Plugin {
  bool (*hooked)() = nullptr;
  void (*use)() = nullptr;
};

bool LoadPlugin(const char* path, Plugin* plugin) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "late_mimalloc: %s\n", dlerror());
    return false;
  }
  plugin->hooked = reinterpret_cast<bool (*)()>(dlsym(handle, "PluginApiHooked"));
  plugin->use = reinterpret_cast<void (*)()>(dlsym(handle, "UsePluginApi"));
  return plugin->hooked && plugin->use;
}

// Waits up to 20 s for the plugin's imports to be hooked (or, with
// `hooked` false, restored).
bool WaitUntil(const Plugin& plugin, bool hooked) {
  for (int i = 0; i < 2000; ++i) {
    if (plugin.hooked() == hooked) return true;
    timespec ten_ms{0, 10'000'000};
    nanosleep(&ten_ms, nullptr);
  }
  return false;
}

int RunPlugin(const char* path, bool wait) {
  Plugin plugin;
  if (!LoadPlugin(path, &plugin)) return 1;
  if (wait && !WaitUntil(plugin, true)) {
    std::printf("the plugin's imports were not hooked\n");
    return 1;
  }
  return RunApiRounds(plugin.use, "plugin api done");
}

using MallocFn = void* (*)(size_t);
using CallocFn = void* (*)(size_t, size_t);
using FreeFn = void (*)(void*);
MallocFn g_malloc;
CallocFn g_calloc;
FreeFn g_free;

__attribute__((noinline)) void UseDlsymApi() {
  void* a = g_malloc(100);
  Touch(a, 100);
  void* b = g_calloc(3, 30);
  Touch(b, 90);
  g_free(a);
  g_free(b);
}

int RunDlsym() {
  void* handle = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "late_mimalloc: %s\n", dlerror());
    return 1;
  }
  g_malloc = reinterpret_cast<MallocFn>(dlsym(handle, "mi_malloc"));
  g_calloc = reinterpret_cast<CallocFn>(dlsym(handle, "mi_calloc"));
  g_free = reinterpret_cast<FreeFn>(dlsym(handle, "mi_free"));
  if (!g_malloc || !g_calloc || !g_free) return 1;
  std::printf("RTLD_DEFAULT mi_malloc: %s\n", dlsym(RTLD_DEFAULT, "mi_malloc") ? "found" : "absent");
  return RunApiRounds(UseDlsymApi, "dlsym api done");
}

int RunDriven(const char* path) {
  std::printf("ready\n");
  std::fflush(stdout);
  Plugin plugin;
  char line[64];
  while (std::fgets(line, sizeof line, stdin)) {
    if (std::strcmp(line, "load\n") == 0) {
      std::printf(LoadPlugin(path, &plugin) ? "loaded\n" : "not loaded\n");
    } else if (std::strcmp(line, "hooked?\n") == 0 || std::strcmp(line, "unhooked?\n") == 0) {
      bool hooked = line[0] == 'h';
      std::printf(plugin.hooked && WaitUntil(plugin, hooked) ? "%s\n" : "not %s\n", hooked ? "hooked" : "unhooked");
    } else if (std::strcmp(line, "work\n") == 0 && plugin.use) {
      for (int i = 0; i < kApiRounds; ++i) plugin.use();
      std::printf("done\n");
    } else if (std::strcmp(line, "end\n") == 0) {
      std::printf("late mimalloc done\n");
      return 0;
    } else {
      std::printf("unknown command\n");
    }
    std::fflush(stdout);
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "plugin") == 0)
    return RunPlugin(argv[2], argc > 3 && std::strcmp(argv[3], "--wait-for-hooks") == 0);
  if (argc == 2 && std::strcmp(argv[1], "dlsym") == 0) return RunDlsym();
  if (argc == 3 && std::strcmp(argv[1], "--wait-for-attach") == 0) return RunDriven(argv[2]);
  std::fprintf(stderr, "usage: late_mimalloc plugin PATH [--wait-for-hooks] | dlsym | --wait-for-attach PATH\n");
  return 2;
}
