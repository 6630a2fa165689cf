#include "attach/entry_trampolines.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "attach/x86_prologue.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

namespace {

// The relay (an absolute jump to the hook) sits at the page's start, the
// moved prologue after it.
constexpr size_t kJumpBytes = 5;  // jmp rel32
constexpr size_t kPrologueAt = 16;

struct Trampoline {
  const char* name;
  uintptr_t entry;
  uintptr_t word_at;          // the aligned 8 bytes that hold the jump
  void* module_base;          // to tell, at detach, that the module is still the one patched
  uint8_t* page;
  uint64_t original_word;     // the aligned 8 bytes at the entry, before and after
  uint64_t patched_word;
  std::atomic<void*>* real;
  bool published;             // given to memframe to write since the last detach
  bool permanent;             // the agent's alone at launch: never published nor written back (published: written)
};
// The presents, the own allocators' entries, and the GL object calls (some
// 60, gl_object_hooks.cc) a game may have fetched before an attach.
constexpr size_t kMaxTrampolines = 192;
Trampoline g_trampolines[kMaxTrampolines];
std::atomic<size_t> g_count{0};

size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// A page within reach of a rel32 from `near` (and of the RIP-relative
// operands the moved prologue keeps): tries free addresses 1 MiB apart on
// both sides, nearest first.
uint8_t* MapNear(uintptr_t near) {
  const size_t page = PageSize();
  constexpr uintptr_t kStep = 1 << 20;
  constexpr uintptr_t kReach = (uintptr_t{1} << 31) - 2 * kStep;
  for (uintptr_t distance = kStep; distance < kReach; distance += kStep) {
    for (int side = 0; side < 2; ++side) {
      if (side == 0 && near < distance + page) continue;
      uintptr_t hint = (side == 0 ? near - distance : near + distance) & ~(page - 1);
      void* p = mmap(reinterpret_cast<void*>(hint), page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == MAP_FAILED) continue;
      if (reinterpret_cast<uintptr_t>(p) == hint) return static_cast<uint8_t*>(p);
      munmap(p, page);  // a kernel without MAP_FIXED_NOREPLACE took it as a hint
    }
  }
  return nullptr;
}

// False once the trampoline's module is unloaded (its entry may be unmapped).
bool StillLoaded(const Trampoline& t) {
  Dl_info module{};
  return dladdr(reinterpret_cast<void*>(t.entry), &module) && module.dli_fbase == t.module_base;
}

uint64_t CodeWord(const Trampoline& t) { return __atomic_load_n(reinterpret_cast<uint64_t*>(t.word_at), __ATOMIC_ACQUIRE); }

// Stores `word` at the 8-aligned `at` in one instruction; the code page is
// writable only meanwhile and never stops being executable.
bool WriteCodeWord(uintptr_t at, uint64_t word) {
  const size_t page = PageSize();
  void* start = reinterpret_cast<void*>(at & ~(page - 1));
  if (mprotect(start, page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return false;
  __atomic_store_n(reinterpret_cast<uint64_t*>(at), word, __ATOMIC_SEQ_CST);
  mprotect(start, page, PROT_READ | PROT_EXEC);
  return true;
}

// Stores `size` bytes at `at` with plain stores, across words and pages if
// need be: only while no other thread can run them.
bool WriteCodeBytes(uintptr_t at, const uint8_t* bytes, size_t size) {
  const size_t page = PageSize();
  const uintptr_t start = at & ~(page - 1);
  const size_t length = ((at + size + page - 1) & ~(page - 1)) - start;
  void* first = reinterpret_cast<void*>(start);
  if (mprotect(first, length, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return false;
  memcpy(reinterpret_cast<void*>(at), bytes, size);
  mprotect(first, length, PROT_READ | PROT_EXEC);
  return true;
}

// Lines of EntryTrampolineRefusals(), and the entries they refused (asked
// again at every pass over new modules, and at every attach, they are
// refused once); only the attach thread writes.
char g_refusals[8192];
size_t g_refusals_size = 0;
struct Refused {
  uintptr_t entry;
  const char* why;  // a static string
};
Refused g_refused[kMaxTrampolines];
size_t g_refused_count = 0;

// The reason `entry` was refused before, or null.
const char* RefusedBefore(uintptr_t entry) {
  for (size_t i = 0; i < g_refused_count; ++i)
    if (g_refused[i].entry == entry) return g_refused[i].why;
  return nullptr;
}

void NoteRefusal(const char* name, const char* why) {
  int n = snprintf(g_refusals + g_refusals_size, sizeof(g_refusals) - g_refusals_size,
                   "%s: not patched at its entry: %s\n", name, why);
  if (n > 0 && g_refusals_size + static_cast<size_t>(n) < sizeof(g_refusals)) g_refusals_size += static_cast<size_t>(n);
  else g_refusals[g_refusals_size] = '\0';  // full: keep the whole lines written so far
}

// With `refusal`, the caller says what the refusal costs: *refusal gets
// the reason and nothing is printed here.
bool Refuse(const char* name, uintptr_t entry, const char* why, const char** refusal) {
  if (g_refused_count < sizeof(g_refused) / sizeof(g_refused[0])) g_refused[g_refused_count++] = {entry, why};
  NoteRefusal(name, why);
  if (refusal) {
    *refusal = why;
    return false;
  }
  Warn("memframe attach: %s is not patched at its entry: %s; frames presented through a pointer fetched before "
       "the attach are not seen",
       name, why);
  return false;
}

// The relay and the moved prologue of a new entry, *real set to the latter:
// what PrepareEntryTrampoline and ArmEntryTrampolineAlone share. `alone`:
// the jump may span two aligned words (it is not written with one store).
// The new trampoline's index in *index.
bool PrepareNew(const char* name, uintptr_t entry, void* hook, std::atomic<void*>* real, const char** refusal,
                bool alone, size_t* index) {
  const size_t count = g_count.load(std::memory_order_acquire);
  if (count == kMaxTrampolines) return Refuse(name, entry, "too many entries patched", refusal);
  if (!alone && (entry & 7) > 8 - kJumpBytes)
    return Refuse(name, entry, "the jump would not fit in one aligned 8-byte store", refusal);
  Dl_info module{};
  if (!dladdr(reinterpret_cast<void*>(entry), &module) || !module.dli_fbase)
    return Refuse(name, entry, "not in a module", refusal);
  uint8_t* page = MapNear(entry);
  if (!page) return Refuse(name, entry, "no free page within 2 GiB of it", refusal);
  MovedPrologue moved;
  if (!RelocatePrologue(reinterpret_cast<const uint8_t*>(entry), kJumpBytes, page + kPrologueAt,
                        PageSize() - kPrologueAt, &moved)) {
    munmap(page, PageSize());
    return Refuse(name, entry, moved.refusal, refusal);
  }
  WriteAbsoluteJump(page, reinterpret_cast<uintptr_t>(hook));
  if (mprotect(page, PageSize(), PROT_READ | PROT_EXEC) != 0) {
    munmap(page, PageSize());
    return Refuse(name, entry, "its relay page cannot be made executable", refusal);
  }
  Trampoline t{};
  t.name = name;
  t.entry = entry;
  t.module_base = module.dli_fbase;
  t.page = page;
  t.real = real;
  t.word_at = entry & ~uintptr_t{7};
  t.original_word = CodeWord(t);
  const size_t shift = entry & 7;
  const auto rel = static_cast<int32_t>(reinterpret_cast<intptr_t>(page) - static_cast<intptr_t>(entry + kJumpBytes));
  if (shift <= 8 - kJumpBytes) {
    uint8_t bytes[8];
    memcpy(bytes, &t.original_word, sizeof(bytes));
    bytes[shift] = 0xe9;
    memcpy(bytes + shift + 1, &rel, sizeof(rel));
    memcpy(&t.patched_word, bytes, sizeof(bytes));
  }
  // The hook must find the moved prologue before any call can reach it;
  // until memframe writes the jump, calls through the moved prologue run
  // the function as before.
  real->store(page + kPrologueAt, std::memory_order_release);
  g_trampolines[count] = t;
  g_count.store(count + 1, std::memory_order_release);
  Debug("%s: entry %#lx prepared; %zu bytes moved", name, static_cast<unsigned long>(entry), moved.taken);
  *index = count;
  return true;
}

}  // namespace

bool PrepareEntryTrampoline(const char* name, uintptr_t entry, void* hook, std::atomic<void*>* real,
                            const char** refusal) {
  if (const char* why = RefusedBefore(entry)) {
    if (refusal) *refusal = why;
    return false;
  }
  const size_t count = g_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < count; ++i) {
    Trampoline& t = g_trampolines[i];
    if (t.entry != entry) continue;
    if (t.permanent) return Refuse(name, entry, "the agent patched it at launch for another hook", refusal);
    // Attached again: the moved prologue is still there.
    const uint64_t now = CodeWord(t);
    if (now != t.original_word && now != t.patched_word)
      return Refuse(name, entry, "its code changed since the last attach", refusal);
    real->store(t.page + kPrologueAt, std::memory_order_release);
    return true;
  }
  size_t index;
  return PrepareNew(name, entry, hook, real, refusal, false, &index);
}

bool ArmEntryTrampolineAlone(const char* name, uintptr_t entry, void* hook, std::atomic<void*>* real,
                             const char** refusal) {
  if (const char* why = RefusedBefore(entry)) {
    *refusal = why;
    return false;
  }
  size_t index;
  if (!PrepareNew(name, entry, hook, real, refusal, true, &index)) return false;
  Trampoline& t = g_trampolines[index];
  t.permanent = true;
  uint8_t jump[kJumpBytes] = {0xe9};
  const auto rel = static_cast<int32_t>(reinterpret_cast<intptr_t>(t.page) - static_cast<intptr_t>(entry + kJumpBytes));
  memcpy(jump + 1, &rel, sizeof(rel));
  if (!WriteCodeBytes(entry, jump, sizeof(jump)))
    return Refuse(name, entry, "its code page cannot be made writable", refusal);
  t.published = true;
  return true;
}

size_t PublishEntryPatches(const char* path) {
  if (access(path, F_OK) == 0) return 0;  // memframe has not taken the last ones yet
  char text[kMaxTrampolines * 96];
  size_t size = 0, published = 0;
  const size_t count = g_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < count; ++i) {
    const Trampoline& t = g_trampolines[i];
    if (t.permanent || t.published || !StillLoaded(t) || CodeWord(t) != t.original_word) continue;
    int n = snprintf(text + size, sizeof(text) - size, "%lx %lx %lx %lx %zx %s\n", static_cast<unsigned long>(t.word_at),
                     static_cast<unsigned long>(t.original_word), static_cast<unsigned long>(t.patched_word),
                     static_cast<unsigned long>(t.entry), kJumpBytes, t.name);
    if (n <= 0 || size + static_cast<size_t>(n) >= sizeof(text)) break;
    size += static_cast<size_t>(n);
    ++published;
  }
  if (published == 0) return 0;
  char aside[4096 + 8];
  if (strlen(path) >= sizeof(aside) - 8) return 0;
  snprintf(aside, sizeof(aside), "%s.part", path);
  int fd = open(aside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return 0;
  bool written = write(fd, text, size) == static_cast<ssize_t>(size);
  close(fd);
  if (!written || rename(aside, path) != 0) {
    unlink(aside);
    return 0;
  }
  // Only what was written: an entry cut off by the buffer goes next time.
  size_t marked = 0;
  for (size_t i = 0; i < count && marked < published; ++i) {
    Trampoline& t = g_trampolines[i];
    if (t.permanent || t.published || !StillLoaded(t) || CodeWord(t) != t.original_word) continue;
    t.published = true;
    ++marked;
  }
  return published;
}

size_t DisarmEntryTrampolines() {
  size_t restored = 0;
  const size_t count = g_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < count; ++i) {
    Trampoline& t = g_trampolines[i];
    if (t.permanent) continue;
    t.published = false;  // a later attach publishes it again
    if (!StillLoaded(t) || CodeWord(t) != t.patched_word) continue;  // memframe restored it (or never wrote it)
    if (WriteCodeWord(t.word_at, t.original_word)) ++restored;
  }
  return restored;
}

size_t ArmPreparedEntriesInPlaceForTest() {
  size_t armed = 0;
  const size_t count = g_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < count; ++i) {
    Trampoline& t = g_trampolines[i];
    if (!t.permanent && StillLoaded(t) && CodeWord(t) == t.original_word && WriteCodeWord(t.word_at, t.patched_word))
      ++armed;
  }
  return armed;
}

bool IsEntryTrampolineReal(const std::atomic<void*>* real) {
  const size_t count = g_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < count; ++i)
    if (g_trampolines[i].real == real) return true;
  return false;
}

const char* EntryTrampolineRefusals() { return g_refusals; }

size_t ArmedEntryTrampolines() {
  size_t armed = 0;
  const size_t count = g_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < count; ++i) {
    const Trampoline& t = g_trampolines[i];
    armed += StillLoaded(t) && (t.permanent ? t.published : CodeWord(t) == t.patched_word);
  }
  return armed;
}

}  // namespace memframe::agent
