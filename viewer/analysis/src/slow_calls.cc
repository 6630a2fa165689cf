#include "memframe/analysis/slow_calls.h"

#include <algorithm>

#include "memframe/analysis/event_pass.h"
#include "memframe/analysis/mismatches.h"

namespace memframe::analysis {

namespace {

// Slower first; of equal calls, the earlier first (a stable answer).
bool Slower(const SlowCall& a, const SlowCall& b) {
  if (a.duration_ticks != b.duration_ticks) return a.duration_ticks > b.duration_ticks;
  return a.ticks < b.ticks;
}

// Keeps the `count` slowest calls in a heap whose top is the fastest kept.
class SlowCallPass : public EventPass {
 public:
  SlowCallPass(const std::vector<FrameRange>& ranges, size_t count, const std::function<bool(uint32_t)>& keep)
      : ranges_(ranges), count_(count), keep_(keep) {}

  void OnEvent(const Event& e) override {
    const EventKind kind = e.kind();
    if ((kind != EventKind::kAlloc && kind != EventKind::kFree) || e.is_custom()) return;
    if (!InRanges(ranges_, e.frame)) return;
    if (keep_ && !keep_(e.stack_id)) return;
    ++result_.calls_timed;
    result_.time_ticks += e.duration_ticks;
    if (count_ == 0) return;
    SlowCall call{e.ticks, e.frame, e.duration_ticks, kind == EventKind::kAlloc ? e.size : 0, e.stack_id, e.thread,
                  e.packed_kind};
    if (heap_.size() < count_) {
      heap_.push_back(call);
      std::push_heap(heap_.begin(), heap_.end(), Slower);
    } else if (Slower(call, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Slower);
      heap_.back() = call;
      std::push_heap(heap_.begin(), heap_.end(), Slower);
    }
  }

  SlowCalls Take() {
    std::sort(heap_.begin(), heap_.end(), Slower);
    result_.calls = std::move(heap_);
    return std::move(result_);
  }

 private:
  const std::vector<FrameRange>& ranges_;
  size_t count_;
  const std::function<bool(uint32_t)>& keep_;
  std::vector<SlowCall> heap_;
  SlowCalls result_;
};

}  // namespace

SlowCalls FindSlowCalls(const Stream& stream, const std::vector<FrameRange>& ranges, size_t count,
                        const std::function<bool(uint32_t stack_id)>& keep) {
  SlowCallPass pass(ranges, count, keep);
  Replay(stream, {&pass});
  return pass.Take();
}

std::string CallName(uint8_t packed_kind) {
  Event e;
  e.packed_kind = packed_kind;
  if (e.is_realloc()) return "realloc";  // both halves: the old block's FREE and the new one's ALLOC
  if (e.kind() == EventKind::kFree) return FreeName(e.family());
  if (e.is_calloc()) return "calloc";
  return AllocName(e.family());
}

}  // namespace memframe::analysis
