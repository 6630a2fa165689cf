// Loads plugin_lib (argv[1]: "deepbind" or "plain"), allocates through it,
// frees, and unloads it at once.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "host_truth.h"

int main(int argc, char** argv) {
  int mode = RTLD_NOW | (argc > 1 && strcmp(argv[1], "deepbind") == 0 ? RTLD_DEEPBIND : 0);
  void* plugin = dlopen(PLUGIN_PATH, mode);
  if (!plugin) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  auto allocate = reinterpret_cast<void* (*)()>(dlsym(plugin, "plugin_allocate"));
  for (int i = 0; i < memframe::targets::kPluginBlocks; ++i) free(allocate());
  dlclose(plugin);
  std::printf("plugin done\n");
  return 0;
}
