// A game that uses the optional annotation header as its comment shows (the
// plain calls): it marks its own frames and a named point, and reports its
// frame arena's blocks. Built as a PIE and as a non-PIE executable; both run
// the same without memframe.
#include <cstdio>
#include <cstdlib>

#include "host_truth.h"
#include "memframe/annotate.h"

using namespace memframe::targets;

static void* volatile g_block;

// A tiny frame arena, as engines have: one malloc'd slab, blocks carved from
// it and handed back at the end of the frame.
struct FrameArena {
  char* slab = static_cast<char*>(malloc(1 << 16));
  size_t used = 0;
  void* Allocate(size_t size) {
    void* p = slab + used;
    used += size;
    memframe_custom_alloc(p, size);
    return p;
  }
  void Reset(void** blocks, int count) {
    for (int i = 0; i < count; ++i) memframe_custom_free(blocks[i]);
    used = 0;
  }
};

int main() {
  FrameArena arena;
  for (int frame = 0; frame < kAnnotatedFrames; ++frame) {
    if (frame == kAnnotatedMarkerFrame) memframe_marker("level_load_begin");
    g_block = malloc(kAnnotatedBlockSize);
    free(g_block);
    void* carved[kArenaBlocksPerFrame];
    for (int i = 0; i < kArenaBlocksPerFrame; ++i) carved[i] = arena.Allocate(kArenaBlockSize);
    arena.Reset(carved, kArenaBlocksPerFrame);
    memframe_frame_mark();
  }
  free(arena.slab);
  std::printf("annotated %d frames\n", kAnnotatedFrames);
  return 0;
}
