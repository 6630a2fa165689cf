// A game that uses the optional annotation header: it marks its own frames
// and a named point. Runs the same without memframe (the calls are weak).
#include <cstdio>
#include <cstdlib>

#include "host_truth.h"
#include "memframe/annotate.h"

using namespace memframe::targets;

static void* volatile g_block;

int main() {
  for (int frame = 0; frame < kAnnotatedFrames; ++frame) {
    if (frame == kAnnotatedMarkerFrame) MemframeMarker("level_load_begin");
    g_block = malloc(kAnnotatedBlockSize);
    free(g_block);
    MemframeFrameMark();
  }
  std::printf("annotated %d frames\n", kAnnotatedFrames);
  return 0;
}
