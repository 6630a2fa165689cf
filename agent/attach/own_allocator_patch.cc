#include "attach/own_allocator_patch.h"

#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "attach/entry_trampolines.h"
#include "memframe/elf_functions.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

namespace {

OwnAllocatorReport g_report;

int FirstObject(dl_phdr_info* info, size_t, void* out) {
  *static_cast<uintptr_t*>(out) = info->dlpi_addr;
  return 1;  // the first object is the program itself
}

// At an attach the game's stderr is not memframe's: memframe prints the
// refusals the agent hands it (EntryTrampolineRefusals) instead.
void AddRefusal(const char* symbol, const char* why, OwnAllocatorPatching when) {
  if (g_report.refused_count == kMaxOwnAllocatorHooks) return;
  char* line = g_report.refused[g_report.refused_count++];
  snprintf(line, sizeof(g_report.refused[0]), "%s: %s", symbol, why);
  if (when == OwnAllocatorPatching::kAtLaunch)
    Warn("the executable's own %s is not hooked: %s; its calls are not recorded", symbol, why);
}

}  // namespace

void HookOwnAllocator(const OwnAllocatorHook* hooks, size_t count, OwnAllocatorPatching when) {
  g_report = OwnAllocatorReport{};
  if (count > kMaxOwnAllocatorHooks) count = kMaxOwnAllocatorHooks;
  uintptr_t entries[kMaxOwnAllocatorHooks] = {};
  bool indirect[kMaxOwnAllocatorHooks] = {};
  {
    wire::MappedElfFile program("/proc/self/exe");
    wire::ForEachDefinedFunction(program, [&](std::string_view name, uint64_t value, bool ifunc) {
      if (const wire::AllocatorSignature* s = wire::FindAllocatorSignature(name); s && !*g_report.name)
        g_report.name = s->allocator.data();  // the table's literals end with a NUL
      for (size_t i = 0; i < count; ++i)
        if (!entries[i] && value && name == hooks[i].symbol) {
          entries[i] = value;
          indirect[i] = ifunc;
        }
    });
  }
  uintptr_t bias = 0;
  dl_iterate_phdr(FirstObject, &bias);
  bool armed[kMaxOwnAllocatorHooks] = {};
  for (size_t i = 0; i < count; ++i) {
    if (!entries[i]) continue;
    g_report.defines_allocator = true;
    const uintptr_t entry = bias + entries[i];
    if (indirect[i]) {
      AddRefusal(hooks[i].symbol, "an indirect function (its value is the resolver, not the allocator)", when);
      continue;
    }
    // An alias of a function patched already (one body under two names):
    // its calls reach the first name's hook.
    bool alias = false;
    for (size_t j = 0; j < i; ++j) alias |= armed[j] && entries[j] == entries[i];
    const char* refusal = nullptr;
    const bool patched =
        alias || (when == OwnAllocatorPatching::kAtLaunch
                      ? ArmEntryTrampolineAlone(hooks[i].symbol, entry, hooks[i].hook, hooks[i].real, &refusal)
                      : PrepareEntryTrampoline(hooks[i].symbol, entry, hooks[i].hook, hooks[i].real, &refusal));
    if (patched) {
      armed[i] = true;
      g_report.hooked[g_report.hooked_count++] = hooks[i].symbol;
      Debug("the executable's own %s (%#lx) is hooked at its entry", hooks[i].symbol,
            static_cast<unsigned long>(entry));
    } else {
      AddRefusal(hooks[i].symbol, refusal, when);
    }
  }
}

const OwnAllocatorReport& OwnAllocator() { return g_report; }

}  // namespace memframe::agent
