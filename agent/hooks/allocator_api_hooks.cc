// The hooks of allocator_api_hooks.h. Each shape of call (allocate a size,
// a count of a size, an aligned size; reallocate; free) is one template,
// instantiated once per function and per source of its real function: the
// definition found in the loaded modules (the import-slot hooks) or the
// executable's moved entry.
// Every hook runs its real call in the outer window (tracked_call.h): a
// mimalloc calls free (and, at attach, its own API) through its imports,
// which lead back into the agent's hooks.
#include "hooks/allocator_api_hooks.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "attach/import_slots.h"
#include "attach/own_allocator_patch.h"
#include "hooks/elf_symbols.h"
#include "hooks/tracked_call.h"
#include "memframe/elf_functions.h"
#include "runtime/diagnostics.h"

#pragma weak _dl_find_object  // glibc 2.35 and later

namespace memframe::agent {

namespace {

enum Api {
  kMiMalloc, kMiZalloc, kMiMallocSmall, kMiZallocSmall, kMiValloc, kMiPvalloc, kMiNew, kMiNewNothrow,
  kMiCalloc, kMiMallocn, kMiNewN,
  kMiMallocAligned, kMiZallocAligned, kMiNewAligned, kMiNewAlignedNothrow, kMiAlignedAlloc, kMiMemalign,
  kMiCallocAligned, kMiPosixMemalign,
  kMiRealloc, kMiNewRealloc, kMiReallocn, kMiReallocarray, kMiNewReallocn, kMiReallocAligned,
  kMiFree, kMiCfree, kMiFreeSize, kMiFreeAligned, kMiFreeSizeAligned,
  kMallocx, kRallocx, kXallocx, kSdallocx, kDallocx,
  kLibraryCount,  // the ones hooked in a shared library, through import slots
  // A jemalloc built with the je_ prefix: only an executable's own (static)
  // definitions are patched; no Debian library exports these.
  kJeMallocx = kLibraryCount, kJeRallocx, kJeXallocx, kJeSdallocx, kJeDallocx,
  kApiCount
};
static_assert(kApiCount <= kMaxAllocatorApiFunctions);

// The names, in this order.
constexpr const wire::AllocatorSignature (&kNames)[kApiCount] = wire::kHookedAllocatorApi;
static_assert(sizeof(wire::kHookedAllocatorApi) / sizeof(wire::kHookedAllocatorApi[0]) == kApiCount);
static_assert(wire::kHookedAllocatorApi[kMallocx].symbol == "mallocx" &&
              wire::kHookedAllocatorApi[kJeMallocx].symbol == "je_mallocx");

// The real functions: a shared library's definition (for the import-slot
// hooks: the first in load order, or the one a dlsym handed out) and the
// executable's moved entry (for its entry patches). g_next_real is set
// once, from null, before any slot or dlsym result leads to its hook, and
// never changed while hooks run: a hook only reads it. g_library_real is
// the same definition when it is a shared library's (the executable's own
// are its own allocator's), set after g_next_real: what the patchers and
// dlsym compare with.
std::atomic<void*> g_next_real[kApiCount];
std::atomic<void*> g_library_real[kApiCount];
std::atomic<void*> g_own_real[kApiCount];
struct Search {
  const char* symbol;
  void* found = nullptr;
  const char* module = nullptr;  // "" for the executable
};

// Whether `info` is the agent itself (whose definitions are the hooks).
bool IsAgent(const dl_phdr_info* info);

int FindDefinition(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  // A module still being loaded is found at a later pass, once relocated.
  if (!IsRelocated(info)) return 0;
  void* at = LookUpDefinedSymbol(info, search->symbol);
  if (!at || IsAgent(info)) return 0;
  search->found = at;
  search->module = info->dlpi_name ? info->dlpi_name : "";
  return 1;
}

bool IsAgent(const dl_phdr_info* info) {
  const auto self = reinterpret_cast<uintptr_t>(&FindDefinition);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && self >= start && self - start < ph.p_memsz) return true;
  }
  return false;
}

Search Find(Api which) {
  Search search{kNames[which].symbol.data()};  // the table's literals end with a NUL
  dl_iterate_phdr(FindDefinition, &search);
  return search;
}

// Makes `definition` the real function of `which` if none is known yet;
// false if one is (it stays).
bool Learn(Api which, void* definition, bool in_library) {
  void* unknown = nullptr;
  if (!g_next_real[which].compare_exchange_strong(unknown, definition, std::memory_order_acq_rel)) return false;
  if (in_library) g_library_real[which].store(definition, std::memory_order_release);
  return true;
}

// Never a lookup here: a hook may not take the loader's lock (a host thread
// inside a dl_iterate_phdr callback may be waiting for this one). A slot
// leads to a hook only once its real function is known.
template <bool kOwn, Api kWhich, typename Fn>
Fn Real() {
  std::atomic<void*>& slot = kOwn ? g_own_real[kWhich] : g_next_real[kWhich];
  return reinterpret_cast<Fn>(slot.load(std::memory_order_acquire));
}

// What a hook returns if its real function is unknown (never: only an
// import bound to a known definition is pointed at a hook).
void* NoAllocator() {
  errno = ENOMEM;
  return nullptr;
}

constexpr uint32_t kZeroed = wire::kFlagCalloc;
constexpr int kJemallocZero = 0x40;  // MALLOCX_ZERO

size_t Total(size_t count, size_t size) {
  size_t total;
  return __builtin_mul_overflow(count, size, &total) ? SIZE_MAX : total;  // the real call fails it
}

template <uint32_t kKind, typename Call>
void* Alloc(size_t size, Call call) {
  return TrackedAlloc<false, HookKind::kAllocatorApi, true>(size, kKind, call);
}
template <typename Call>
void* Realloc(void* old, size_t size, Call call) {
  return TrackedRealloc<HookKind::kAllocatorApi, true>(old, size, call);
}
template <typename Call>
void Free(void* block, size_t size, Call call) {
  if (!block) return call();
  TrackedFree<false, HookKind::kAllocatorApi, true>(block, size, kFreeKind, call);
}

// The shapes: F is the function's type; each returns what it does.
template <bool kOwn, Api kWhich, uint32_t kKind = kMallocKind>
void* AllocSize(size_t size) {
  auto real = Real<kOwn, kWhich, void* (*)(size_t)>();
  if (!real) return NoAllocator();
  return Alloc<kKind>(size, [&] { return real(size); });
}
template <bool kOwn, Api kWhich, uint32_t kKind = kMallocKind>
void* AllocCount(size_t count, size_t size) {
  auto real = Real<kOwn, kWhich, void* (*)(size_t, size_t)>();
  if (!real) return NoAllocator();
  return Alloc<kKind>(Total(count, size), [&] { return real(count, size); });
}
// (size, alignment) and, with kAlignFirst, (alignment, size).
template <bool kOwn, Api kWhich, uint32_t kKind = kMallocKind, bool kAlignFirst = false>
void* AllocAligned(size_t a, size_t b) {
  auto real = Real<kOwn, kWhich, void* (*)(size_t, size_t)>();
  if (!real) return NoAllocator();
  return Alloc<kKind>(kAlignFirst ? b : a, [&] { return real(a, b); });
}
template <bool kOwn, Api kWhich>
void* CallocAligned(size_t count, size_t size, size_t alignment) {
  auto real = Real<kOwn, kWhich, void* (*)(size_t, size_t, size_t)>();
  if (!real) return NoAllocator();
  return Alloc<kCallocKind>(Total(count, size), [&] { return real(count, size, alignment); });
}
template <bool kOwn, Api kWhich>
int PosixMemalign(void** out, size_t alignment, size_t size) {
  auto real = Real<kOwn, kWhich, int (*)(void**, size_t, size_t)>();
  if (!real) return ENOMEM;
  int result = 0;
  Alloc<kMallocKind>(size, [&]() -> void* {
    result = real(out, alignment, size);
    return result == 0 ? *out : nullptr;
  });
  return result;
}
template <bool kOwn, Api kWhich>
void* ReallocSize(void* old, size_t size) {
  auto real = Real<kOwn, kWhich, void* (*)(void*, size_t)>();
  if (!real) return NoAllocator();
  return Realloc(old, size, [&] { return real(old, size); });
}
template <bool kOwn, Api kWhich>
void* ReallocCount(void* old, size_t count, size_t size) {
  auto real = Real<kOwn, kWhich, void* (*)(void*, size_t, size_t)>();
  if (!real) return NoAllocator();
  return Realloc(old, Total(count, size), [&] { return real(old, count, size); });
}
template <bool kOwn, Api kWhich>
void* ReallocAligned(void* old, size_t size, size_t alignment) {
  auto real = Real<kOwn, kWhich, void* (*)(void*, size_t, size_t)>();
  if (!real) return NoAllocator();
  return Realloc(old, size, [&] { return real(old, size, alignment); });
}
template <bool kOwn, Api kWhich>
void FreeBlock(void* block) {
  auto real = Real<kOwn, kWhich, void (*)(void*)>();
  if (real) Free(block, 0, [&] { real(block); });
}
// (block, size), (block, alignment): kSized says which.
template <bool kOwn, Api kWhich, bool kSized>
void FreeWith(void* block, size_t value) {
  auto real = Real<kOwn, kWhich, void (*)(void*, size_t)>();
  if (real) Free(block, kSized ? value : 0, [&] { real(block, value); });
}
template <bool kOwn, Api kWhich>
void FreeSizedAligned(void* block, size_t size, size_t alignment) {
  auto real = Real<kOwn, kWhich, void (*)(void*, size_t, size_t)>();
  if (real) Free(block, size, [&] { real(block, size, alignment); });
}

template <bool kOwn, Api kWhich>
void* Mallocx(size_t size, int flags) {
  auto real = Real<kOwn, kWhich, void* (*)(size_t, int)>();
  if (!real) return NoAllocator();
  if (flags & kJemallocZero) return Alloc<kCallocKind>(size, [&] { return real(size, flags); });
  return Alloc<kMallocKind>(size, [&] { return real(size, flags); });
}
template <bool kOwn, Api kWhich>
void* Rallocx(void* old, size_t size, int flags) {
  auto real = Real<kOwn, kWhich, void* (*)(void*, size_t, int)>();
  if (!real) return NoAllocator();
  return Realloc(old, size, [&] { return real(old, size, flags); });
}
// Resizes in place: recorded as a realloc to the size asked for when the
// block now holds it (the result is its usable size), else not at all.
template <bool kOwn, Api kWhich>
size_t Xallocx(void* block, size_t size, size_t extra, int flags) {
  auto real = Real<kOwn, kWhich, size_t (*)(void*, size_t, size_t, int)>();
  if (!real) return 0;
  size_t usable = 0;
  Realloc(block, size, [&]() -> void* {
    usable = real(block, size, extra, flags);
    return usable >= size ? block : nullptr;
  });
  return usable;
}
template <bool kOwn, Api kWhich>
void Sdallocx(void* block, size_t size, int flags) {
  auto real = Real<kOwn, kWhich, void (*)(void*, size_t, int)>();
  if (real) Free(block, size, [&] { real(block, size, flags); });
}
template <bool kOwn, Api kWhich>
void Dallocx(void* block, int flags) {
  auto real = Real<kOwn, kWhich, void (*)(void*, int)>();
  if (real) Free(block, 0, [&] { real(block, flags); });
}

// Each function's hook: with kOwn the entry-patch one (its real function
// the moved entry), else the import-slot one (the definition found).
template <bool kOwn>
struct Hooks {
  static constexpr uint32_t kZ = kCallocKind;
  static void* Of(Api which) {
    auto hook = [](auto* fn) { return reinterpret_cast<void*>(fn); };
    switch (which) {
      case kMiMalloc: return hook(AllocSize<kOwn, kMiMalloc>);
      case kMiZalloc: return hook(AllocSize<kOwn, kMiZalloc, kZ>);
      case kMiMallocSmall: return hook(AllocSize<kOwn, kMiMallocSmall>);
      case kMiZallocSmall: return hook(AllocSize<kOwn, kMiZallocSmall, kZ>);
      case kMiValloc: return hook(AllocSize<kOwn, kMiValloc>);
      case kMiPvalloc: return hook(AllocSize<kOwn, kMiPvalloc>);
      case kMiNew: return hook(AllocSize<kOwn, kMiNew>);
      case kMiNewNothrow: return hook(AllocSize<kOwn, kMiNewNothrow>);
      case kMiCalloc: return hook(AllocCount<kOwn, kMiCalloc, kZ>);
      case kMiMallocn: return hook(AllocCount<kOwn, kMiMallocn>);
      case kMiNewN: return hook(AllocCount<kOwn, kMiNewN>);
      case kMiMallocAligned: return hook(AllocAligned<kOwn, kMiMallocAligned>);
      case kMiZallocAligned: return hook(AllocAligned<kOwn, kMiZallocAligned, kZ>);
      case kMiNewAligned: return hook(AllocAligned<kOwn, kMiNewAligned>);
      case kMiNewAlignedNothrow: return hook(AllocAligned<kOwn, kMiNewAlignedNothrow>);
      case kMiAlignedAlloc: return hook(AllocAligned<kOwn, kMiAlignedAlloc, kMallocKind, true>);
      case kMiMemalign: return hook(AllocAligned<kOwn, kMiMemalign, kMallocKind, true>);
      case kMiCallocAligned: return hook(CallocAligned<kOwn, kMiCallocAligned>);
      case kMiPosixMemalign: return hook(PosixMemalign<kOwn, kMiPosixMemalign>);
      case kMiRealloc: return hook(ReallocSize<kOwn, kMiRealloc>);
      case kMiNewRealloc: return hook(ReallocSize<kOwn, kMiNewRealloc>);
      case kMiReallocn: return hook(ReallocCount<kOwn, kMiReallocn>);
      case kMiReallocarray: return hook(ReallocCount<kOwn, kMiReallocarray>);
      case kMiNewReallocn: return hook(ReallocCount<kOwn, kMiNewReallocn>);
      case kMiReallocAligned: return hook(ReallocAligned<kOwn, kMiReallocAligned>);
      case kMiFree: return hook(FreeBlock<kOwn, kMiFree>);
      case kMiCfree: return hook(FreeBlock<kOwn, kMiCfree>);
      case kMiFreeSize: return hook(FreeWith<kOwn, kMiFreeSize, true>);
      case kMiFreeAligned: return hook(FreeWith<kOwn, kMiFreeAligned, false>);
      case kMiFreeSizeAligned: return hook(FreeSizedAligned<kOwn, kMiFreeSizeAligned>);
      case kMallocx: return hook(Mallocx<kOwn, kMallocx>);
      case kRallocx: return hook(Rallocx<kOwn, kRallocx>);
      case kXallocx: return hook(Xallocx<kOwn, kXallocx>);
      case kSdallocx: return hook(Sdallocx<kOwn, kSdallocx>);
      case kDallocx: return hook(Dallocx<kOwn, kDallocx>);
      case kJeMallocx: return hook(Mallocx<kOwn, kJeMallocx>);
      case kJeRallocx: return hook(Rallocx<kOwn, kJeRallocx>);
      case kJeXallocx: return hook(Xallocx<kOwn, kJeXallocx>);
      case kJeSdallocx: return hook(Sdallocx<kOwn, kJeSdallocx>);
      case kJeDallocx: return hook(Dallocx<kOwn, kJeDallocx>);
      case kApiCount: break;
    }
    return nullptr;
  }
};

AllocatorApiReport g_reports[kMaxAllocatorApis];
bool g_reported[kLibraryCount];
size_t g_report_count = 0;

AllocatorApiReport* ReportFor(const char* allocator, const char* module) {
  for (size_t i = 0; i < g_report_count; ++i)
    if (strcmp(g_reports[i].name, allocator) == 0 && strcmp(g_reports[i].library, module) == 0) return &g_reports[i];
  if (g_report_count == kMaxAllocatorApis) return nullptr;
  AllocatorApiReport* report = &g_reports[g_report_count++];
  report->name = allocator;
  strncpy(report->library, module, sizeof(report->library) - 1);
  return report;
}

// The module that defines `definition`, for the report.
const char* ModuleOf(Api which, void* definition) {
  Search first = Find(which);
  if (first.found == definition) return first.module;
  Dl_info where{};  // a second copy, which a dlsym handed out
  return dladdr(definition, &where) && where.dli_fname ? where.dli_fname : "";
}

// Which API function `name` is (import-slot ones only), or -1.
int LibraryApiIndex(const char* name) {
  for (int i = 0; i < kLibraryCount; ++i)
    if (strcmp(kNames[i].symbol.data(), name) == 0) return i;
  return -1;
}

}  // namespace

size_t ResolveAllocatorApis() {
  size_t learnt = 0;
  for (int i = 0; i < kLibraryCount; ++i) {
    auto which = static_cast<Api>(i);
    if (!g_next_real[i].load(std::memory_order_acquire)) {
      Search found = Find(which);
      // The executable's own definitions are its own allocator's.
      if (found.found && Learn(which, found.found, *found.module)) ++learnt;
    }
    void* definition = g_library_real[i].load(std::memory_order_acquire);
    if (!definition || g_reported[i]) continue;
    const char* module = ModuleOf(which, definition);
    if (AllocatorApiReport* report = ReportFor(kNames[i].allocator.data(), module)) {
      report->hooked[report->hooked_count++] = kNames[i].symbol.data();
      g_reported[i] = true;
    }
    Debug("%s is hooked; its real function is in %s", kNames[i].symbol.data(), module);
  }
  return learnt;
}

const AllocatorApiReport* AllocatorApis(size_t* count) {
  *count = g_report_count;
  return g_reports;
}

size_t AllocatorApiEntryHooks(OwnAllocatorHook* out, size_t room) {
  size_t n = 0;
  for (int i = 0; i < kApiCount && n < room; ++i)
    out[n++] = {kNames[i].symbol.data(), Hooks<true>::Of(static_cast<Api>(i)), &g_own_real[i]};
  return n;
}

const char* AllocatorApiImportName(size_t i) { return i < kLibraryCount ? kNames[i].symbol.data() : nullptr; }

void* AllocatorApiImportHook(size_t i) { return i < kLibraryCount ? Hooks<false>::Of(static_cast<Api>(i)) : nullptr; }

void* AllocatorApiDefinition(size_t i) {
  return i < kLibraryCount ? g_library_real[i].load(std::memory_order_acquire) : nullptr;
}

void* InterceptAllocatorApi(const char* name, void* found) {
  // Passive (no recorder, a fork child not followed): the library's own.
  if (!found || !Recording()) return found;
  int i = LibraryApiIndex(name);
  if (i < 0) return found;
  auto which = static_cast<Api>(i);
  void* known = g_library_real[i].load(std::memory_order_acquire);
  if (known == found) return Hooks<false>::Of(which);
  if (known || g_next_real[i].load(std::memory_order_acquire)) return found;  // another copy, or the executable's
  // A library loaded since the last pass (dlopen then dlsym at once): what
  // dlsym found is that name's definition, in the module that holds it,
  // which _dl_find_object names without a lock (the executable's own
  // definitions are its own allocator's, patched at their entries).
  if (!&_dl_find_object) return found;
  dl_find_object where;
  if (_dl_find_object(found, &where) != 0 || !where.dlfo_link_map || !where.dlfo_link_map->l_name ||
      !*where.dlfo_link_map->l_name)
    return found;
  Learn(which, found, true);
  // Another thread may have learnt a different copy first.
  return g_library_real[i].load(std::memory_order_acquire) == found ? Hooks<false>::Of(which) : found;
}

}  // namespace memframe::agent
