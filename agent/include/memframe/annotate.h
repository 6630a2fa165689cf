// Optional annotations for games that want to help memframe. Nothing here is
// required: memframe finds frames by itself. Include this header, call the
// functions; when the game runs without memframe the calls do nothing (the
// functions are weak and resolve to null), so shipping builds can keep them.
//
//   memframe_frame_mark();                 // at the end of each frame
//   memframe_marker("level_load_begin");   // a named point in time
//   memframe_custom_alloc(p, size);        // a block handed out by the game's own allocator
//   memframe_custom_free(p);               // ... and given back to it
//
// Custom blocks are recorded like heap blocks (flagged as custom), so a
// pool or arena the game carves out of a big malloc shows its real users.
// The bytes then count twice in heap totals (the backing block and the
// blocks carved from it); the reports say which blocks are custom.
// Once a game calls memframe_frame_mark, it alone ends frames (swap calls
// no longer do). Marker names longer than 63 bytes are cut; at most 1024
// distinct names per run.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

void memframe_frame_mark(void) __attribute__((weak));
void memframe_marker(const char* name) __attribute__((weak));
void memframe_custom_alloc(const void* block, unsigned long size) __attribute__((weak));
void memframe_custom_free(const void* block) __attribute__((weak));

#ifdef __cplusplus
}
#endif

static inline void MemframeFrameMark(void) {
  if (memframe_frame_mark) memframe_frame_mark();
}

static inline void MemframeMarker(const char* name) {
  if (memframe_marker) memframe_marker(name);
}

static inline void MemframeCustomAlloc(const void* block, unsigned long size) {
  if (memframe_custom_alloc) memframe_custom_alloc(block, size);
}

static inline void MemframeCustomFree(const void* block) {
  if (memframe_custom_free) memframe_custom_free(block);
}
