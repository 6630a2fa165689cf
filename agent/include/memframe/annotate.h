// Optional annotations for games that want to help memframe. Nothing here is
// required: memframe finds frames by itself. Include this header and call
// the functions; when the game runs without memframe they do nothing, so
// shipping builds can keep them:
//
//   memframe_frame_mark();                 // at the end of each frame
//   memframe_marker("level_load_begin");   // a named point in time
//   memframe_custom_alloc(p, size);        // a block handed out by the game's own allocator
//   memframe_custom_free(p);               // ... and given back to it
//
// Each call looks its function up in the process once (dlsym; glibc 2.34
// and later have it in libc, older ones need -ldl) and remembers the answer,
// so a later call costs one load and one test. The lookup is at run time, not
// through a weak symbol: a weak undefined function is null in a PIE but has
// a non-null PLT address in a non-PIE executable, and calling either without
// the agent crashes. A run without memframe makes each lookup once and then
// calls nothing.
//
// Custom blocks are recorded like heap blocks (flagged as custom), so a
// pool or arena the game carves out of a big malloc shows its real users.
// The bytes then count twice in heap totals (the backing block and the
// blocks carved from it); the reports say which blocks are custom.
// Once a game calls memframe_frame_mark, it alone ends frames (swap calls
// no longer do). Marker names longer than 63 bytes are cut; at most 1024
// distinct names per run.
#pragma once

#include <dlfcn.h>

// The function `name` of the agent, or null without it. `*cache` starts
// null (not looked up yet) and then holds the function or, when there is
// none, the address of `absent`. Racing first calls look it up twice,
// harmlessly.
static inline void* memframe_annotation_function(void** cache, const char* name) {
  static char absent;
  void* fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (fn == (void*)&absent) return 0;
  if (fn == 0) {
    fn = dlsym((void*)0 /* RTLD_DEFAULT */, name);
    __atomic_store_n(cache, fn ? fn : (void*)&absent, __ATOMIC_RELEASE);
  }
  return fn;
}

static inline void memframe_frame_mark(void) {
  static void* cache;
  void* fn = memframe_annotation_function(&cache, "memframe_frame_mark");
  if (fn) ((void (*)(void))fn)();
}

static inline void memframe_marker(const char* name) {
  static void* cache;
  void* fn = memframe_annotation_function(&cache, "memframe_marker");
  if (fn) ((void (*)(const char*))fn)(name);
}

static inline void memframe_custom_alloc(const void* block, unsigned long size) {
  static void* cache;
  void* fn = memframe_annotation_function(&cache, "memframe_custom_alloc");
  if (fn) ((void (*)(const void*, unsigned long))fn)(block, size);
}

static inline void memframe_custom_free(const void* block) {
  static void* cache;
  void* fn = memframe_annotation_function(&cache, "memframe_custom_free");
  if (fn) ((void (*)(const void*))fn)(block);
}

// The same under the names earlier versions of this header gave them.
static inline void MemframeFrameMark(void) { memframe_frame_mark(); }
static inline void MemframeMarker(const char* name) { memframe_marker(name); }
static inline void MemframeCustomAlloc(const void* block, unsigned long size) { memframe_custom_alloc(block, size); }
static inline void MemframeCustomFree(const void* block) { memframe_custom_free(block); }
