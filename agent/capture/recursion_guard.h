// What a thread is doing as far as memframe is concerned, in one
// thread-local byte that every hook reads first. Initial-exec TLS: reading
// it costs one instruction and never allocates, unlike a dynamic TLS access.
//
// An allocation made while the thread is inside memframe (libunwind, dlsym,
// the loader, the real allocator calling itself, the writer thread, which is
// inside for its whole life) goes straight to the real function and is never
// recorded. The one exception is a signal handler: it can interrupt a hook
// anywhere, and what it allocates is the game's. The state says where the
// hook was, and so what a hook entered now can be:
//   kHook            the hook's own bookkeeping (clock, stack, ring), which
//                    never allocates: only a signal handler gets here. Not
//                    recorded (the ring and the stack table are mid-update),
//                    but counted and reported.
//   kInRealAlloc     the real allocation of a malloc/new hook: a heap hook
//                    entered now is a signal handler's and is recorded (its
//                    events land in the ring before the interrupted
//                    allocation's own, which is stamped after the call, so
//                    the order of any block they share stays right).
//   kInRealFree      the real free or realloc: a signal handler's free is
//                    recorded, but its allocation could reuse the block being
//                    freed before that free is in the ring, so it is counted
//                    instead.
//   kInRealOuter     real operator new/delete, which call malloc/free
//                    themselves: the block's own inner call passes through
//                    unrecorded, in its own kInRealAlloc / kInRealFree
//                    window. Real operator new's other inner calls are the
//                    game's and recorded (OuterNew): the exception object
//                    of a std::bad_alloc it throws (which the game's catch
//                    frees), and what a new_handler allocates or frees.
// A hook that waits for room in its ring is in the same position as in its
// real call: its event is complete and not yet in the ring, the ring and the
// stack table are consistent (RingWaitWindow). A program that allocates
// faster than the writer drains spends most of its hook time there.
// Region hooks (mmap, munmap) nested in a real allocator call are the
// allocator's own mappings (a non-glibc malloc maps through the PLT) and pass
// through unrecorded and uncounted.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace memframe::agent {

enum class ThreadState : uint8_t { kOutside, kAgent, kHook, kInRealAlloc, kInRealFree, kInRealOuter };

extern __thread ThreadState t_thread_state __attribute__((tls_model("initial-exec")));

// While a recorded real operator new of libstdc++'s runs: the sizes it
// asks the allocator for its block (malloc(max(size, 1)), or aligned_alloc
// of that rounded up to the alignment). 0 while any other real call that
// allocates through the hooks runs (operator delete, whose inner free is its
// block's; an executable's own operator new, an allocator's API): all their
// inner calls are theirs. An inner allocation of the block's size made by a
// new_handler passes for the block's own and is not recorded.
struct OuterNew {
  size_t size = 0, rounded = 0;
};
extern __thread OuterNew t_outer_new __attribute__((tls_model("initial-exec")));

// Sets t_outer_new for one real call that allocates through the hooks
// itself; restores it after (also when the real call throws).
class OuterNewScope {
 public:
  explicit OuterNewScope(OuterNew outer) : saved_(t_outer_new) { t_outer_new = outer; }
  ~OuterNewScope() { t_outer_new = saved_; }
  OuterNewScope(const OuterNewScope&) = delete;
  OuterNewScope& operator=(const OuterNewScope&) = delete;

 private:
  OuterNew saved_;
};

// Allocator calls made by signal handlers that interrupted a hook where they
// could not be recorded (see above); reported at the end of the stream.
extern std::atomic<uint64_t> g_unrecorded_in_signal_handlers;

// Which family of hook takes the guard (realloc counts as an allocation).
// kAllocatorApi: an allocator's own API (mi_malloc, mallocx, ...), which
// that allocator's malloc may call itself: recorded only from outside, like
// a region hook, so that such a call is not recorded a second time.
enum class HookKind : uint8_t { kHeapAlloc, kHeapFree, kRegion, kAllocatorApi };

// A heap call made inside a recorded real operator new that is not its
// block's own (see OuterNew).
inline bool InnerCallIsTheGames(HookKind kind, size_t size) {
  const OuterNew& outer = t_outer_new;
  if (outer.size == 0) return false;
  if (kind == HookKind::kHeapFree) return true;
  return kind == HookKind::kHeapAlloc && size != outer.size && size != outer.rounded;
}

class RecursionGuard {
 public:
  // The agent's own work, which may allocate for itself: everything nested
  // passes through. Acquired when the thread was outside memframe.
  RecursionGuard() : previous_(t_thread_state), acquired_(previous_ == ThreadState::kOutside) {
    t_thread_state = ThreadState::kAgent;
  }
  // A hook's entry: acquired (the call is recorded) from the game's code, or
  // for a heap hook from a signal handler that interrupted a real allocation.
  // `size`: an allocation's, for the inner calls of real operator new.
  explicit RecursionGuard(HookKind kind, size_t size = 0) : previous_(t_thread_state) {
    acquired_ = previous_ == ThreadState::kOutside ||
                (IsHeap(kind) && previous_ == ThreadState::kInRealAlloc) ||
                (kind == HookKind::kHeapFree && previous_ == ThreadState::kInRealFree) ||
                (previous_ == ThreadState::kInRealOuter && InnerCallIsTheGames(kind, size));
    if (acquired_) {
      t_thread_state = ThreadState::kHook;
    } else if (previous_ == ThreadState::kHook ||
               (kind == HookKind::kHeapAlloc && previous_ == ThreadState::kInRealFree)) {
      g_unrecorded_in_signal_handlers.fetch_add(1, std::memory_order_relaxed);
    }
  }
  ~RecursionGuard() { t_thread_state = previous_; }
  RecursionGuard(const RecursionGuard&) = delete;
  RecursionGuard& operator=(const RecursionGuard&) = delete;

  static constexpr bool IsHeap(HookKind kind) { return kind == HookKind::kHeapAlloc || kind == HookKind::kHeapFree; }

  // False when the call must pass straight through unrecorded.
  bool acquired() const { return acquired_; }

  // Runs the real function in the window `state` (one of the kInReal*).
  // Not acquired, a heap call nested in real operator new/delete still gets
  // its window, so a signal inside libstdc++'s malloc is told apart.
  template <typename Call>
  __attribute__((always_inline)) auto CallReal(ThreadState state, Call call) {
    if (!acquired_ && previous_ != ThreadState::kInRealOuter) return call();
    ThreadState saved = t_thread_state;
    t_thread_state = state;
    struct Restore {
      ThreadState state;
      ~Restore() { t_thread_state = state; }
    } restore{saved};
    return call();
  }

 private:
  ThreadState previous_;
  bool acquired_;
};

// Around a hook's wait for ring space: the window of its pending event's
// kind (a free's or an allocation's), so a signal handler's calls meanwhile
// are treated as in that real call. Anything but a hook's own wait (the
// agent's frame ends, the writer) keeps its state.
class RingWaitWindow {
 public:
  explicit RingWaitWindow(bool pending_free) : saved_(t_thread_state) {
    if (saved_ == ThreadState::kHook)
      t_thread_state = pending_free ? ThreadState::kInRealFree : ThreadState::kInRealAlloc;
  }
  ~RingWaitWindow() { t_thread_state = saved_; }
  RingWaitWindow(const RingWaitWindow&) = delete;
  RingWaitWindow& operator=(const RingWaitWindow&) = delete;

 private:
  ThreadState saved_;
};

}  // namespace memframe::agent
