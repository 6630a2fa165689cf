#include "runtime/own_dependencies.h"

#include <link.h>

#include <cstring>

#include "attach/import_slots.h"

namespace memframe::agent {

namespace {

// Modules and ranges kept: fixed arrays, nothing allocated (this runs in
// the first hook of the process).
constexpr int kMaxModules = 128;
constexpr int kMaxNeeded = 32;
constexpr int kMaxRanges = 16;

struct Module {
  const char* base = "";  // the file name: what DT_NEEDED names
  const char* needed[kMaxNeeded] = {};
  int needed_count = 0;
  uintptr_t text_start = 0, text_end = 0;  // the executable segment
  bool agent = false, program = false, agents = false;
};

struct Scan {
  Module modules[kMaxModules];
  int count = 0;
  uintptr_t self = 0;
};

struct Range {
  uintptr_t start, end;
};
Range g_ranges[kMaxRanges];
int g_range_count = 0;

const char* BaseName(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

int Collect(dl_phdr_info* info, size_t, void* data) {
  Scan& scan = *static_cast<Scan*>(data);
  if (scan.count == kMaxModules) return 1;
  Module& m = scan.modules[scan.count++];
  m.base = BaseName(info->dlpi_name ? info->dlpi_name : "");
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    m.text_start = info->dlpi_addr + ph.p_vaddr;
    m.text_end = m.text_start + ph.p_memsz;
  }
  m.agent = scan.self >= m.text_start && scan.self < m.text_end;
  ModuleTables tables;
  const Elf64_Dyn* dynamic = ReadLayout(info, &tables);
  if (!dynamic || !ReadTables(info, &tables) || !tables.strings) return 0;
  for (const Elf64_Dyn* d = dynamic; d->d_tag != DT_NULL && m.needed_count < kMaxNeeded; ++d)
    if (d->d_tag == DT_NEEDED) m.needed[m.needed_count++] = tables.strings + d->d_un.d_val;
  return 0;
}

// Marks with `mark` every module reachable from `from` through DT_NEEDED.
void MarkClosure(Scan& scan, int from, bool Module::*mark) {
  int stack[kMaxModules], depth = 0;
  stack[depth++] = from;
  scan.modules[from].*mark = true;
  while (depth > 0) {
    const Module& m = scan.modules[stack[--depth]];
    for (int n = 0; n < m.needed_count; ++n)
      for (int i = 0; i < scan.count; ++i) {
        Module& dep = scan.modules[i];
        if (dep.*mark || strcmp(dep.base, m.needed[n]) != 0) continue;
        dep.*mark = true;
        stack[depth++] = i;
      }
  }
}

}  // namespace

void FindAgentOnlyModules() {
  static Scan scan;  // large: not on a hook's stack
  scan = Scan{};
  scan.self = reinterpret_cast<uintptr_t>(&FindAgentOnlyModules);
  dl_iterate_phdr(Collect, &scan);
  int agent = -1;
  for (int i = 0; i < scan.count; ++i)
    if (scan.modules[i].agent) agent = i;
  if (agent < 0 || scan.count == 0) return;
  MarkClosure(scan, 0, &Module::program);  // the first module listed is the executable
  MarkClosure(scan, agent, &Module::agents);
  int count = 0;
  for (int i = 0; i < scan.count && count < kMaxRanges; ++i) {
    const Module& m = scan.modules[i];
    if (i != agent && m.agents && !m.program && m.text_end > m.text_start) g_ranges[count++] = {m.text_start, m.text_end};
  }
  __atomic_store_n(&g_range_count, count, __ATOMIC_RELEASE);
}

bool IsAgentOnlyCode(uintptr_t pc) {
  const int count = __atomic_load_n(&g_range_count, __ATOMIC_ACQUIRE);
  for (int i = 0; i < count; ++i)
    if (pc >= g_ranges[i].start && pc < g_ranges[i].end) return true;
  return false;
}

}  // namespace memframe::agent
