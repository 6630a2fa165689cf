// memframe_annotate.exe: annotate.h, compiled with MinGW. Declares a frame
// arena, places a marker, and for each of kFrames frames carves
// kBlocksPerFrame custom blocks from the arena, resets it and marks the
// frame's end (tests/windows/annotate_test.sh checks the capture).
#include <memframe/annotate.h>

#include <stdio.h>
#include <stdlib.h>

enum { kFrames = 12, kBlocksPerFrame = 3, kBlockBytes = 100, kArenaBytes = 1 << 16 };

int main(void) {
  char* arena = malloc(kArenaBytes);
  unsigned id = memframe_allocator_declare("frame arena", MEMFRAME_FRAME_ARENA, arena, kArenaBytes);
  memframe_marker("level_loaded");
  for (int frame = 0; frame < kFrames; ++frame) {
    for (int block = 0; block < kBlocksPerFrame; ++block) memframe_custom_alloc(arena + block * kBlockBytes, kBlockBytes);
    memframe_allocator_reset(id);
    memframe_frame_mark();
  }
  printf("memframe_annotate: allocator %u, %d frames\n", id, kFrames);
  free(arena);
  return 0;
}
