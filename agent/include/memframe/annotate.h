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
// A game with allocators of its own names them, so that memframe shows
// each like a module (memframe report allocators):
//
//   unsigned arena = memframe_allocator_declare("frame arena", MEMFRAME_FRAME_ARENA, base, bytes);
//   memframe_custom_alloc(p, size);        // blocks carved from [base, base + bytes)
//   memframe_allocator_reset(arena);       // frees every block of it at once
//   memframe_allocator_rollback(stack, m); // frees its blocks at m and above (a stack's mark)
//
// A custom block belongs to the declared allocator whose region holds its
// address. Declare again (a new id) when an allocator moves to a new
// region. Without memframe memframe_allocator_declare returns 0 and the
// others do nothing. At most 256 declarations per run; names are cut at 63
// bytes.
//
// Each call looks its function up in the process once (dlsym; glibc 2.34
// and later have it in libc, older ones need -ldl; on Windows GetProcAddress
// in memframe_agent.dll, so windows.h is included) and remembers the answer,
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
// no longer do). On Windows `unsigned long` is 32 bits: a block or a
// declared capacity of 4 GiB or more is cut. Marker names longer than 63 bytes are cut; at most 1024
// distinct names per run.
#pragma once

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

// The block and region pointers are only recorded, never read: saying so
// keeps GCC from warning that a game passes memory it has not written yet.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define MEMFRAME_UNREAD(arg) __attribute__((access(none, arg)))
#else
#define MEMFRAME_UNREAD(arg)
#endif

// The function `name` of the agent, or null without it. `*cache` starts
// null (not looked up yet) and then holds the function or, when there is
// none, the address of `absent`. Racing first calls look it up twice,
// harmlessly.
static inline void* memframe_annotation_function(void** cache, const char* name) {
  static char absent;
  void* fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (fn == (void*)&absent) return 0;
  if (fn == 0) {
#ifdef _WIN32
    // memframe.exe loads the agent before anything of the game runs.
    HMODULE agent = GetModuleHandleA("memframe_agent.dll");
    fn = agent ? (void*)GetProcAddress(agent, name) : 0;
#else
    fn = dlsym((void*)0 /* RTLD_DEFAULT */, name);
#endif
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

MEMFRAME_UNREAD(1) static inline void memframe_custom_alloc(const void* block, unsigned long size) {
  static void* cache;
  void* fn = memframe_annotation_function(&cache, "memframe_custom_alloc");
  if (fn) ((void (*)(const void*, unsigned long))fn)(block, size);
}

MEMFRAME_UNREAD(1) static inline void memframe_custom_free(const void* block) {
  static void* cache;
  void* fn = memframe_annotation_function(&cache, "memframe_custom_free");
  if (fn) ((void (*)(const void*))fn)(block);
}

// Kinds of memframe_allocator_declare (proto/memframe.proto, AllocatorKind).
#define MEMFRAME_ALLOCATOR_OTHER 0
#define MEMFRAME_FRAME_ARENA 1  /* reset once a frame */
#define MEMFRAME_LEVEL_STACK 2  /* rolled back to a mark when a level ends */
#define MEMFRAME_POOL 3         /* fixed-size slots */
#define MEMFRAME_RING 4         /* freed in the order handed out */

MEMFRAME_UNREAD(3) static inline unsigned memframe_allocator_declare(const char* name, int kind, const void* base,
                                                  unsigned long capacity) {
  static void* cache;
  void* fn = memframe_annotation_function(&cache, "memframe_allocator_declare");
  return fn ? ((unsigned (*)(const char*, int, const void*, unsigned long))fn)(name, kind, base, capacity) : 0;
}

MEMFRAME_UNREAD(2) static inline void memframe_allocator_rollback(unsigned allocator, const void* mark) {
  static void* cache;
  void* fn = allocator ? memframe_annotation_function(&cache, "memframe_allocator_release") : 0;
  if (fn) ((void (*)(unsigned, const void*))fn)(allocator, mark);
}

static inline void memframe_allocator_reset(unsigned allocator) { memframe_allocator_rollback(allocator, 0); }

// The same in CamelCase, so that games written against those names keep
// compiling.
static inline void MemframeFrameMark(void) { memframe_frame_mark(); }
static inline void MemframeMarker(const char* name) { memframe_marker(name); }
static inline void MemframeCustomAlloc(const void* block, unsigned long size) { memframe_custom_alloc(block, size); }
static inline void MemframeCustomFree(const void* block) { memframe_custom_free(block); }
