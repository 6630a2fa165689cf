// What mimalloc_api and jemalloc_api share: kApiRounds rounds of their
// UseAllocatorApi (host_truth.h has what each round allocates), then one
// line of output, the same with or without memframe.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "host_truth.h"

namespace memframe::targets {

// Writes every byte of a block the program was given (aborts on null).
inline void Touch(void* block, size_t size) {
  if (!block) abort();
  memset(block, 1, size);
}

inline int RunApiRounds(void (*round)(), const char* done) {
  for (int i = 0; i < kApiRounds; ++i) round();
  std::printf("%s\n", done);
  return 0;
}

}  // namespace memframe::targets
