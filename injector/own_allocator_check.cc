#include "own_allocator_check.h"

#include <string_view>

#include "host_elf.h"
#include "memframe/elf_functions.h"

namespace memframe::injector {

namespace {

bool IsMallocEntry(std::string_view name) {
  return name == "malloc" || name == "free" || name == "calloc" || name == "realloc";
}

bool IsOperatorNew(std::string_view name) { return name == "_Znwm" || name == "_Znam"; }

struct Findings {
  bool defines_malloc = false;
  bool defines_new = false;
  std::string_view allocator;
  std::string_view allocator_symbol;
};

Findings Scan(const std::string& path) {
  Findings found;
  HostElf(path).ForEachDefinedFunction(/*dynamic_only=*/false, [&](std::string_view name, uint64_t, bool) {
    if (IsMallocEntry(name)) found.defines_malloc = true;
    if (IsOperatorNew(name)) found.defines_new = true;
    const wire::AllocatorSignature* signature = wire::FindAllocatorSignature(name);
    if (signature && found.allocator.empty()) {
      found.allocator = signature->allocator;
      found.allocator_symbol = signature->symbol;
    }
    return true;
  });
  return found;
}

}  // namespace

std::string OwnAllocatorWarning(const std::string& path) {
  Findings found = Scan(path);
  std::string linked = found.allocator.empty() ? "" : "statically linked " + std::string(found.allocator);
  const bool api_hooked = wire::IsHookedAllocatorApi(found.allocator_symbol);
  const std::string api = "its own API (" + std::string(found.allocator_symbol) + ", ...)";
  std::string own_api = found.allocator.empty() ? ""
                        : api_hooked          ? "; " + api + " is patched too"
                                              : "; calls to " + api + " are not recorded";
  if (found.defines_malloc || found.defines_new) {
    return path + " defines its own " + (found.defines_malloc ? "malloc" : "operator new") +
           (linked.empty() ? "" : " (" + linked + ")") +
           ", which the loader binds before any preloaded library: the agent patches its entry points before "
           "main, and the capture's notes say which it could not" +
           own_api;
  }
  if (!found.allocator.empty()) {
    return path + " contains a " + linked + " (" + std::string(found.allocator_symbol) + "): " +
           (api_hooked ? "the agent patches the entry points of its own API before main, and the capture's notes "
                         "say which it could not"
                       : "allocations through its own API are not recorded, only those through malloc and new");
  }
  return "";
}

}  // namespace memframe::injector
