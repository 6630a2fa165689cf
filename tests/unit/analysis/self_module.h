// The test executable as a capture Module, and real return addresses inside
// it, so that symbolizer and report tests resolve genuine debug info.
#pragma once

#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <string>

#include "memframe/analysis/capture_model.h"

namespace memframe::testing {

inline analysis::Module SelfModule() {
  analysis::Module module;
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  module.path = std::string(path, n > 0 ? static_cast<size_t>(n) : 0);
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* m = static_cast<analysis::Module*>(data);
        m->load_bias = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type == PT_LOAD)
            m->segments.push_back({info->dlpi_phdr[i].p_vaddr, info->dlpi_phdr[i].p_memsz});
        }
        return 1;  // the first object is the main program
      },
      &module);
  return module;
}

// The return address of the call to it: the caller's call site.
__attribute__((noinline)) inline uint64_t CallerReturnAddress() {
  uint64_t address = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  asm volatile("" ::: "memory");  // keep it a real call, not a tail call
  return address;
}

}  // namespace memframe::testing
