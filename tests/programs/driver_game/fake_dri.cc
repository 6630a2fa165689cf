// libfake_dri.so: allocates on the game's behalf inside its present, from
// two places, and frees the blocks of the frame before (a driver keeps its
// command buffers until the GPU is done with them), and frees the last
// frame's at shutdown.
#include <cstdlib>

#include "driver_game_truth.h"
#include "fake_dri.h"
#include "memframe/annotate.h"

using namespace memframe::driver_game;

namespace {

void* g_command[kCommandBlocks];
void* g_staging[kStagingBlocks];

__attribute__((noinline)) void RecordCommands() {
  for (void*& block : g_command) {
    free(block);
    block = malloc(kCommandBlockBytes);
  }
}

__attribute__((noinline)) void UploadStaging() {
  for (void*& block : g_staging) {
    free(block);
    block = malloc(kStagingBlockBytes);
  }
}

}  // namespace

extern "C" void FakePresent(int) {
  RecordCommands();
  UploadStaging();
  MemframeFrameMark();
}

extern "C" void FakeShutdown() {
  for (void* block : g_command) free(block);
  for (void* block : g_staging) free(block);
}
