#include "attach/got_patcher.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "attach/entry_trampolines.h"
#include "attach/hooked_imports.h"
#include "attach/import_slots.h"
#include "attach/x86_prologue.h"
#include "hooks/allocator_api_hooks.h"
#include "hooks/elf_symbols.h"
#include "hooks/gl_hooks.h"
#include "hooks/present_hooks.h"
#include "hooks/real_functions.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

namespace {

// The imports taken over by name (hooked_imports.h), first in g_hooks.
constexpr size_t kHookCount = std::size(kHookedImportNames);
// Then the GL and Vulkan object calls and the GL context calls (gl_hooks.h),
// whose hooks are the tables' own; then the allocators' own API (mi_malloc, mallocx, ...), from
// its list: hook i >= ApiBase() is API name i - ApiBase().
constexpr size_t kMaxGlHooks = 128;
constexpr size_t kMaxHooks = kHookCount + kMaxGlHooks + kMaxAllocatorApiFunctions;
void* g_hooks[kMaxHooks];

// GPU hook i (0-based) of the tables, or null past their end.
const InterceptedFunction* GlHook(size_t i) {
  for (InterceptedTable table : kGpuHookTables) {
    int count = 0;
    const InterceptedFunction* functions = table(&count);
    if (i < static_cast<size_t>(count)) return &functions[i];
    i -= static_cast<size_t>(count);
  }
  return nullptr;
}
size_t GlHookCount() {
  size_t hooks = 0;
  for (InterceptedTable table : kGpuHookTables) {
    int count = 0;
    table(&count);
    hooks += static_cast<size_t>(count);
  }
  return hooks;
}
size_t ApiBase() { return kHookCount + GlHookCount(); }

const char* HookName(size_t i) {
  if (i < kHookCount) return kHookedImportNames[i];
  if (const InterceptedFunction* gl = GlHook(i - kHookCount)) return gl->name;
  return AllocatorApiImportName(i - ApiBase());
}
uintptr_t g_agent_base = 0;

struct PatchedSlot {
  void** slot;
  void* original;
  PatchRank rank;
};
// Enough for every import of these names in a large game with its drivers.
constexpr size_t kMaxSlots = 1 << 15;
PatchedSlot g_slots[kMaxSlots];
std::atomic<size_t> g_slot_count{0};
bool g_slots_full_warned = false;

int HookIndex(const char* name) {
  // Cheap pre-filter: most imports are none of these.
  switch (name[0]) {
    case 'm': case 'c': case 'r': case 'f': case 'p': case 'a': case 'v': case '_': case 'd': case 'e': case 'g':
    case 'S': case 'x': case 's':
      break;
    default:
      return -1;
  }
  for (size_t i = 0; i < kMaxHooks; ++i) {
    const char* hooked = HookName(i);
    if (!hooked) break;
    if (strcmp(hooked, name) == 0) return static_cast<int>(i);
  }
  return -1;
}

bool AlreadyPatched(void** slot) {
  size_t n = g_slot_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i)
    if (g_slots[i].slot == slot) return true;
  return false;
}

bool IsSkipped(const dl_phdr_info* info) { return info->dlpi_addr == g_agent_base || IsLoaderOrVdso(info); }

// A module still being loaded (IsRelocated) was passed over by the last
// pass: the attach thread comes back for it.
bool g_unrelocated_seen = false;

// Whether the slot of allocator API function `api` may lead to its hook:
// only when the hook's real function is known, and the slot is bound to
// that very definition or not bound yet (a lazy slot points into its own
// module's PLT). One bound to another copy (a local scope's) stays.
bool TakesApiHook(size_t api, void* slot_value, uintptr_t module_start, uintptr_t module_end) {
  void* definition = AllocatorApiDefinition(api);
  if (!definition) return false;
  auto value = reinterpret_cast<uintptr_t>(slot_value);
  return slot_value == definition || (value >= module_start && value < module_end);
}

// A present or lookup hook must know the real function before any call
// reaches it: from a dlopen'ed agent, RTLD_NEXT cannot see the game's GL.
// Runs inside dl_iterate_phdr, so it must not ask the loader anything (see
// ResolveInterceptedFunctions): a real function it does not know yet is the slot's
// own value, unless that points back into its module's PLT (a lazily bound
// slot). Returns false if the real function is unknown (the slot stays).
bool KnowsReal(const char* name, void* slot_value, uintptr_t module_start, uintptr_t module_end) {
  auto knows = [&](const InterceptedFunction& f) {
    if (f.real->load(std::memory_order_acquire)) return true;
    auto value = reinterpret_cast<uintptr_t>(slot_value);
    if (!slot_value || (value >= module_start && value < module_end)) return false;
    f.real->store(slot_value, std::memory_order_release);
    return true;
  };
  int count = 0;
  const InterceptedFunction* functions = InterceptedFunctions(&count);
  for (int i = 0; i < count; ++i)
    if (strcmp(functions[i].name, name) == 0) return knows(functions[i]);
  for (size_t i = 0; const InterceptedFunction* gl = GlHook(i); ++i)
    if (strcmp(gl->name, name) == 0) return knows(*gl);
  return true;  // neither a present nor GL: malloc's real functions come from real_functions.cc
}

// The real functions of the presents and lookups not known yet are looked
// up before the slots are walked (ResolveInterceptedFunctions). Never inside
// dl_iterate_phdr: it holds the loader's write lock, dlsym takes the
// loader's lock, and a thread in dlopen holds the second and waits for the
// first (in a library constructor that unwinds an exception, say): both
// would wait forever.

struct PatchPass {
  size_t* patched;
  PatchRank rank;
};

// One pass of PatchLoadedModules over one module: the slots of one rank.
int PatchModule(dl_phdr_info* info, size_t, void* data) {
  if (IsSkipped(info)) return 0;
  if (!IsRelocated(info)) {
    g_unrelocated_seen = true;
    return 0;
  }
  ModuleTables t;
  if (!ReadTables(info, &t)) return 0;
  const PatchPass* pass = static_cast<const PatchPass*>(data);
  int stop = 0;
  ForEachImportSlot(info, t, [&](const char* name, void** slot) {
    int hook = HookIndex(name);
    if (hook < 0 || !g_hooks[hook]) return true;
    const PatchRank rank = RankOf(name);
    if (rank != pass->rank) return true;
    void* value = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    // Null: a weak import nothing defines (`if (&mi_malloc)` must stay false).
    if (!value || value == g_hooks[hook] || AlreadyPatched(slot)) return true;
    if (static_cast<size_t>(hook) >= ApiBase() ? !TakesApiHook(hook - ApiBase(), value, t.start, t.end)
                                                : !KnowsReal(name, value, t.start, t.end))
      return true;
    size_t n = g_slot_count.load(std::memory_order_relaxed);
    if (n == kMaxSlots) {
      if (!g_slots_full_warned) Warn("more than %zu imports to patch; the rest are not hooked", kMaxSlots);
      g_slots_full_warned = true;
      stop = 1;
      return false;
    }
    if (!WriteSlot(slot, g_hooks[hook], InReadOnlyPage(t, reinterpret_cast<uintptr_t>(slot)))) return true;
    g_slots[n] = {slot, value, rank};
    g_slot_count.store(n + 1, std::memory_order_release);
    ++*pass->patched;
    return true;
  });
  return stop;
}

// Keeps, in g_slots[0..*kept), only slots that lie in `info`'s module;
// restores them when `restore` (inside the callback, so that the module
// cannot be unloaded meanwhile: dlclose waits for dl_iterate_phdr).
struct SlotSweep {
  bool restore;
  PatchRank rank;  // restore: the slots of this rank
  bool* in_loaded_module;  // one flag per slot
};

int SweepModule(dl_phdr_info* info, size_t, void* data) {
  auto* sweep = static_cast<SlotSweep*>(data);
  ModuleTables t;
  ReadLayout(info, &t);
  size_t n = g_slot_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    auto at = reinterpret_cast<uintptr_t>(g_slots[i].slot);
    if (at < t.start || at >= t.end) continue;
    sweep->in_loaded_module[i] = true;
    if (sweep->restore && g_slots[i].rank == sweep->rank)
      WriteSlot(g_slots[i].slot, g_slots[i].original, InReadOnlyPage(t, at));
  }
  return 0;
}

// Drops the slots of modules that are gone (restoring the others first if
// `restore`). Returns how many slots were live.
size_t Sweep(bool restore) {
  static bool in_loaded_module[kMaxSlots];
  size_t n = g_slot_count.load(std::memory_order_acquire);
  memset(in_loaded_module, 0, n);
  // Restored allocations first, releases last (PatchRank).
  for (int rank = kPatchRanks - 1; rank >= (restore ? 0 : kPatchRanks - 1); --rank) {
    SlotSweep sweep{restore, static_cast<PatchRank>(rank), in_loaded_module};
    dl_iterate_phdr(SweepModule, &sweep);
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i)
    if (in_loaded_module[i]) g_slots[kept++] = g_slots[i];
  g_slot_count.store(restore ? 0 : kept, std::memory_order_release);
  return kept;
}

// The presents' definitions, gathered under dl_iterate_phdr and patched
// after it: arming maps memory and asks dladdr, which must not run inside
// the loader's lock.
struct PresentDefinition {
  int function;  // index in InterceptedFunctions()
  uintptr_t entry;
};
struct DefinitionScan {
  PresentDefinition found[64];
  size_t count = 0;
};
// The one entry patched per present: its hook has a single real function,
// so two patched entries of one name would call each other's code.
constexpr int kMaxIntercepted = 32;
uintptr_t g_entry_of[kMaxIntercepted];

int FindPresentDefinitions(dl_phdr_info* info, size_t, void* data) {
  if (IsSkipped(info) || !IsRelocated(info)) return 0;
  auto* scan = static_cast<DefinitionScan*>(data);
  int count = 0;
  const InterceptedFunction* functions = InterceptedFunctions(&count);
  for (int i = 0; i < count && i < kMaxIntercepted; ++i) {
    if (!functions[i].marker) continue;  // lookups: the GOT slots are enough
    void* at = LookUpDefinedSymbol(info, functions[i].name);
    if (at && scan->count < sizeof(scan->found) / sizeof(scan->found[0]))
      scan->found[scan->count++] = {i, reinterpret_cast<uintptr_t>(at)};
  }
  return 0;
}

// Prepares the entry of every present a loaded module defines (after the
// stubs that forward to it) for memframe to patch, so that calls through
// pointers fetched before the attach reach the hooks too. Returns the
// entries prepared now.
size_t PreparePresentEntries() {
  static DefinitionScan scan;
  scan.count = 0;
  dl_iterate_phdr(FindPresentDefinitions, &scan);
  int count = 0;
  const InterceptedFunction* functions = InterceptedFunctions(&count);
  size_t prepared = 0;
  for (size_t i = 0; i < scan.count; ++i) {
    const InterceptedFunction& f = functions[scan.found[i].function];
    uintptr_t entry = FollowForwarders(scan.found[i].entry);
    if (entry == reinterpret_cast<uintptr_t>(f.hook)) continue;  // a stub whose slot is already the hook's
    uintptr_t& chosen = g_entry_of[scan.found[i].function];
    if (chosen && chosen != entry) {
      Debug("%s: a second definition at %#lx is not patched at its entry", f.name, static_cast<unsigned long>(entry));
      continue;
    }
    chosen = entry;
    if (PrepareEntryTrampoline(f.name, entry, f.hook, f.real)) ++prepared;
  }
  return prepared;
}

// The GL object calls a game fetched before the attach (glXGetProcAddress,
// SDL_GL_GetProcAddress, eglGetProcAddress) are called through those
// pointers, never through a slot. A lookup hands out the same pointer for a
// name in the whole process (glvnd's dispatch stubs, whatever the context),
// so asking the real lookup again gives the very entry the game holds, which
// is patched as a present's is. A stub dispatches through the current
// context's table, so the entry is the stub itself, not what it leads to.
// One entry per name, as for the presents (the hook has one real function):
// a pointer from dlsym of libGL (the linked stub, another entry) stays
// unseen. Outside dl_iterate_phdr: the lookup takes glvnd's lock and may
// allocate.
using GetProcAddress = void* (*)(const char*);
constexpr const char* kGlLookups[] = {"glXGetProcAddressARB", "glXGetProcAddress", "eglGetProcAddress"};

// A lookup a loaded module defines, searched module by module: GLFW and
// SDL open libGL themselves, RTLD_LOCAL, where no global lookup finds it.
int FindGlLookup(dl_phdr_info* info, size_t, void* data) {
  if (IsSkipped(info) || !IsRelocated(info)) return 0;
  for (const char* name : kGlLookups) {
    if (void* at = LookUpDefinedSymbol(info, name)) {
      *static_cast<void**>(data) = at;
      return 1;
    }
  }
  return 0;
}

GetProcAddress RealGlLookup() {
  int count = 0;
  const InterceptedFunction* functions = InterceptedFunctions(&count);
  for (const char* lookup : kGlLookups)
    for (int i = 0; i < count; ++i)
      if (strcmp(functions[i].name, lookup) == 0)
        if (void* real = functions[i].real->load(std::memory_order_acquire)) return reinterpret_cast<GetProcAddress>(real);
  void* defined = nullptr;
  dl_iterate_phdr(FindGlLookup, &defined);
  return reinterpret_cast<GetProcAddress>(defined);
}

size_t PrepareGlEntries() {
  GetProcAddress lookup = RealGlLookup();
  if (!lookup) return 0;  // no GL in the process (yet)
  int count = 0;
  const InterceptedFunction* functions = GlObjectFunctions(&count);
  size_t prepared = 0, refused = 0;
  for (int i = 0; i < count; ++i) {
    const InterceptedFunction& f = functions[i];
    auto entry = reinterpret_cast<uintptr_t>(lookup(f.name));
    if (!entry || entry == reinterpret_cast<uintptr_t>(f.hook)) continue;
    const char* why = nullptr;  // listed with the refusals memframe prints; no present's warning
    if (PrepareEntryTrampoline(f.name, entry, f.hook, f.real, &why)) ++prepared;
    else ++refused;
  }
  if (refused) Debug("%zu GL entries not patched (EntryTrampolineRefusals says why)", refused);
  return prepared;
}

}  // namespace

bool PrepareGotPatching() {
  Dl_info self{};
  if (!dladdr(reinterpret_cast<void*>(&PrepareGotPatching), &self) || !self.dli_fname) return false;
  g_agent_base = reinterpret_cast<uintptr_t>(self.dli_fbase);
  // The agent's own definitions: its handle's lookup starts with the agent.
  void* agent = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (!agent) return false;
  for (size_t i = 0; i < kHookCount; ++i) g_hooks[i] = RealDlsym()(agent, HookName(i));
  if (GlHookCount() > kMaxGlHooks) Warn("more GL hooks than kMaxGlHooks: the rest are not patched at an attach");
  for (size_t i = 0; i < GlHookCount() && i < kMaxGlHooks; ++i) g_hooks[kHookCount + i] = GlHook(i)->hook;
  for (size_t i = ApiBase(); i < kMaxHooks && HookName(i); ++i) g_hooks[i] = AllocatorApiImportHook(i - ApiBase());
  dlclose(agent);  // only the reference just taken; the agent is NODELETE
  return g_hooks[0] != nullptr;
}

size_t PatchLoadedModules(bool* unrelocated) {
  Sweep(false);  // a module unloaded since may have left its slots' addresses to a new one
  g_unrelocated_seen = false;
  // Entries first: they set the presents' real functions, which the GOT
  // hooks then call.
  size_t patched = PreparePresentEntries();
  ResolveInterceptedFunctions(InterceptLookup::kGlobal);
  // After the lookups' real functions are known; a GL entry's moved
  // prologue then replaces the real function found by name.
  patched += PrepareGlEntries();
  // The allocator APIs' definitions in libraries loaded since, before any
  // of their slots is pointed at a hook.
  ResolveAllocatorApis();
  for (int rank = 0; rank < kPatchRanks; ++rank) {
    PatchPass pass{&patched, static_cast<PatchRank>(rank)};
    dl_iterate_phdr(PatchModule, &pass);
  }
  if (unrelocated) *unrelocated = g_unrelocated_seen;
  return patched;
}

size_t UnpatchAll() { return Sweep(true) + DisarmEntryTrampolines(); }

size_t PatchedSlots() { return g_slot_count.load(std::memory_order_acquire); }

}  // namespace memframe::agent
