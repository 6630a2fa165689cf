// What an attach leaves in the process after its detach, measured rather
// than assumed: the process's fds, mappings and resident memory before the
// injection and after the detach. The agent closes every fd of its own and
// gives back what only its writer used; it cannot unload itself nor its
// libraries (a thread may still return into them), nor free the threads'
// rings and its stack table (a thread may still be inside a hook), nor
// the C library's caches its threads filled (a malloc arena, reserved
// 64 MiB, and their stacks).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "attach/target_process.h"

namespace memframe::injector {

struct ProcessFootprint {
  std::set<int> fds;
  std::vector<MappedRange> maps;
  uint64_t resident_kib = 0;
};

ProcessFootprint ReadFootprint(pid_t pid);

// One sentence: the libraries the attach loaded, the address space and
// resident memory added, the fds added ("no fd" when none).
std::string DescribeLeftovers(const ProcessFootprint& before, const ProcessFootprint& after);

}  // namespace memframe::injector
