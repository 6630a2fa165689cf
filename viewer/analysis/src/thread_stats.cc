#include "memframe/analysis/thread_stats.h"

#include <algorithm>
#include <unordered_set>

#include "memframe/analysis/event_pass.h"

namespace memframe::analysis {

namespace {

class ThreadPass : public EventPass {
 public:
  explicit ThreadPass(const Stream& stream) : stream_(stream), rows_(stream.threads.size()), frames_(rows_.size()) {}

  void OnEvent(const Event& e) override {
    if (e.thread >= rows_.size()) return;
    ThreadStats& t = rows_[e.thread];
    switch (e.kind()) {
      case EventKind::kAlloc:
        ++t.allocations;
        t.bytes += e.size;
        frames_[e.thread].insert(e.frame);
        break;
      case EventKind::kFree:
        ++t.frees;
        break;
      case EventKind::kMap:
        ++t.maps;
        t.mapped_bytes += e.size;
        break;
      default:
        return;
    }
    t.alloc_time_ns += stream_.clock.DurationNs(e.duration_ticks);
  }

  std::vector<ThreadStats> Finish() {
    for (size_t i = 0; i < rows_.size(); ++i) {
      rows_[i].tid = stream_.threads[i].tid;
      rows_[i].name = stream_.threads[i].name;
      rows_[i].frames_with_allocations = frames_[i].size();
      rows_[i].memframe = stream_.threads[i].memframe;
    }
    return std::move(rows_);
  }

 private:
  const Stream& stream_;
  std::vector<ThreadStats> rows_;  // by thread index
  std::vector<std::unordered_set<uint64_t>> frames_;
};

}  // namespace

ThreadReport AnalyzeThreads(const Stream& stream, uint64_t frames) {
  ThreadPass pass(stream);
  Replay(stream, {&pass});
  ThreadReport r;
  r.frames = frames;
  r.threads = pass.Finish();
  // A thread that never called the allocator has nothing to say, and
  // memframe's own is none of the game's.
  std::erase_if(r.threads, [&](const ThreadStats& t) { return t.memframe || t.allocations + t.frees + t.maps == 0; });
  for (const ThreadStats& t : r.threads) r.alloc_time_ns += t.alloc_time_ns;
  std::sort(r.threads.begin(), r.threads.end(), [](const ThreadStats& a, const ThreadStats& b) {
    if (a.allocations != b.allocations) return a.allocations > b.allocations;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.tid < b.tid;
  });
  return r;
}

}  // namespace memframe::analysis
