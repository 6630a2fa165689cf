// PatchAllocatorApiImports (allocator_api_hooks.h): the modules' imports of
// an allocator's own API, pointed at the agent's internal hooks at launch
// and when modules are loaded later. Preloading already hooks malloc and
// the rest; only these names are here.
#include <link.h>

#include <cstdint>
#include <cstring>

#include "attach/import_slots.h"
#include "hooks/allocator_api_hooks.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

namespace {

struct ApiImports {
  void* hooks[kMaxAllocatorApiFunctions] = {};
  void* definitions[kMaxAllocatorApiFunctions] = {};
  size_t count = 0;
  uintptr_t agent = 0;  // an address inside the agent
  size_t patched = 0;
};

int ApiIndex(const ApiImports& api, const char* name) {
  // Cheap pre-filter: mi_* and *allocx only.
  if (name[0] != 'm' && name[0] != 'r' && name[0] != 'x' && name[0] != 's' && name[0] != 'd') return -1;
  for (size_t i = 0; i < api.count; ++i)
    if (api.definitions[i] && strcmp(AllocatorApiImportName(i), name) == 0) return static_cast<int>(i);
  return -1;
}

int PatchModule(dl_phdr_info* info, size_t, void* data) {
  auto* api = static_cast<ApiImports*>(data);
  if (IsLoaderOrVdso(info) || !IsRelocated(info)) return 0;
  ModuleTables t;
  if (!ReadTables(info, &t)) return 0;
  if (api->agent >= t.start && api->agent < t.end) return 0;
  auto inside = [&](const void* at) {
    auto value = reinterpret_cast<uintptr_t>(at);
    return value >= t.start && value < t.end;
  };
  ForEachImportSlot(info, t, [&](const char* name, void** slot) {
    int i = ApiIndex(*api, name);
    if (i < 0) return true;
    void* definition = api->definitions[i];
    // The allocator library itself keeps calling its own functions.
    if (inside(definition)) return true;
    // Only a slot bound to the definition found, or not bound yet (a lazy
    // slot points into its own module's PLT); one bound elsewhere (another
    // copy in a local scope) is left as it is.
    void* value = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (value != definition && !inside(value)) return true;
    if (WriteSlot(slot, api->hooks[i], InReadOnlyPage(t, reinterpret_cast<uintptr_t>(slot)))) ++api->patched;
    return true;
  });
  return 0;
}

int NoteUnrelocated(dl_phdr_info* info, size_t, void* data) {
  if (IsLoaderOrVdso(info) || IsRelocated(info)) return 0;
  *static_cast<bool*>(data) = true;
  return 1;
}

}  // namespace

size_t PatchAllocatorApiImports() {
  static ApiImports api;  // the constructor's stack is the game's: keep it small
  api = ApiImports{};
  api.agent = reinterpret_cast<uintptr_t>(&PatchAllocatorApiImports);
  bool any = false;
  for (const char* name; (name = AllocatorApiImportName(api.count)) && api.count < kMaxAllocatorApiFunctions;
       ++api.count) {
    api.hooks[api.count] = AllocatorApiImportHook(api.count);
    api.definitions[api.count] = AllocatorApiDefinition(api.count);
    any = any || api.definitions[api.count];
  }
  if (!any) return 0;  // neither allocator's library is loaded: nothing imports it bound
  dl_iterate_phdr(PatchModule, &api);
  if (api.patched) Debug("%zu imports of an allocator's own API point at the hooks", api.patched);
  return api.patched;
}

bool HookAllocatorApisOfNewModules() {
  // Looked at first: a module mapped after this look changes the loader's
  // count again, and the writer comes back for it anyway.
  bool loading = false;
  dl_iterate_phdr(NoteUnrelocated, &loading);
  ResolveAllocatorApis();
  PatchAllocatorApiImports();
  return loading;
}

}  // namespace memframe::agent
