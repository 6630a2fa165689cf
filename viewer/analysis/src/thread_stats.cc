#include "memframe/analysis/thread_stats.h"

#include <algorithm>

#include "memframe/analysis/event_pass.h"
#include "memframe/analysis/live_set.h"

namespace memframe::analysis {

namespace {

class ThreadPass : public EventPass {
 public:
  explicit ThreadPass(const Stream& stream) : stream_(stream), rows_(stream.threads.size()) {}

  void OnEvent(const Event& e) override {
    if (e.thread >= rows_.size()) return;
    ThreadStats* t = nullptr;
    switch (e.kind()) {
      case EventKind::kAlloc: {
        // The block an ALLOC replaced lost its free: no thread freed it.
        LiveBlock replaced;
        live_.Alloc(e, &replaced);
        t = &rows_[e.thread].At(e.frame);
        ++t->allocations;
        t->bytes += e.size;
        break;
      }
      case EventKind::kFree: {
        LiveBlock freed;
        const bool known = live_.Free(e.address, &freed);
        t = &rows_[e.thread].At(e.frame);
        ++t->frees;
        if (known) t->bytes_freed += freed.size;
        break;
      }
      case EventKind::kMap:
        t = &rows_[e.thread].At(e.frame);
        ++t->maps;
        t->mapped_bytes += e.size;
        break;
      default:
        return;
    }
    t->alloc_time_ns += stream_.clock.DurationNs(e.duration_ticks);
  }

  ThreadHistory Finish() {
    ThreadHistory history;
    history.threads.resize(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i) {
      ThreadHistory::Thread& thread = history.threads[i];
      thread.tid = stream_.threads[i].tid;
      thread.name = stream_.threads[i].name;
      thread.memframe = stream_.threads[i].memframe;
      for (auto& [frame, figures] : rows_[i].TakeSorted()) thread.frames.push_back({frame, std::move(figures)});
    }
    return history;
  }

 private:
  const Stream& stream_;
  std::vector<FrameRows<ThreadStats>> rows_;  // by thread index
  LiveSet live_;
};

}  // namespace

ThreadHistory RecordThreadHistory(const Stream& stream) {
  ThreadPass pass(stream);
  Replay(stream, {&pass});
  return pass.Finish();
}

ThreadReport SumThreads(const ThreadHistory& history, const std::vector<FrameRange>& ranges, uint64_t frames) {
  ThreadReport r;
  r.frames = frames;
  for (const ThreadHistory::Thread& thread : history.threads) {
    ThreadStats t;
    t.tid = thread.tid;
    t.name = thread.name;
    for (const FrameRange& range : ranges) {
      auto first = std::lower_bound(thread.frames.begin(), thread.frames.end(), range.from,
                                    [](const ThreadFrame& f, uint64_t frame) { return f.frame < frame; });
      for (auto it = first; it != thread.frames.end() && it->frame <= range.to; ++it) {
        const ThreadStats& f = it->figures;
        t.allocations += f.allocations;
        t.bytes += f.bytes;
        t.frees += f.frees;
        t.bytes_freed += f.bytes_freed;
        t.maps += f.maps;
        t.mapped_bytes += f.mapped_bytes;
        t.alloc_time_ns += f.alloc_time_ns;
        if (f.allocations) ++t.frames_with_allocations;
      }
    }
    // A thread that never called the allocator has nothing to say, and
    // memframe's own is none of the game's.
    if (thread.memframe || t.allocations + t.frees + t.maps == 0) continue;
    r.alloc_time_ns += t.alloc_time_ns;
    r.threads.push_back(std::move(t));
  }
  std::sort(r.threads.begin(), r.threads.end(), [](const ThreadStats& a, const ThreadStats& b) {
    if (a.allocations != b.allocations) return a.allocations > b.allocations;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.tid < b.tid;
  });
  return r;
}

ThreadReport AnalyzeThreads(const Stream& stream, uint64_t frames) {
  return SumThreads(RecordThreadHistory(stream), {{0, UINT64_MAX}}, frames);
}

}  // namespace memframe::analysis
