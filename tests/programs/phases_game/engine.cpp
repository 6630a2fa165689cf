#include "engine.h"

#include <cstdlib>

#include "phases_truth.h"

using namespace memframe::phases_game;

extern "C" __attribute__((noinline)) int engine_find_path(int steps) {
  void* nodes[kEngineAllocations];
  int length = 0;
  for (int i = 0; i < kEngineAllocations; ++i) {
    nodes[i] = std::malloc(kEngineBlockBytes);
    length += (nodes[i] != nullptr) * (steps + i);
  }
  for (void* node : nodes) std::free(node);
  return length;
}
