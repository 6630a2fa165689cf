#include "thread_merge.h"

#include <limits>
#include <queue>

#include "handoff_repair.h"

namespace memframe::analysis {

namespace {

constexpr uint64_t kProgressEvery = 1u << 20;

// Reads one run front to back, a decoded chunk at a time, freeing each
// compressed chunk once it is decoded.
class RunCursor {
 public:
  explicit RunCursor(ThreadRun* run) : run_(run), size_(run->events.size()) { Load(); }

  bool done() const { return index_ >= size_; }
  const Event& event() const { return buffer_[index_ - buffer_start_]; }
  uint64_t arrival() const { return run_->batches[batch_].arrival; }

  void Advance() {
    ++index_;
    while (batch_ + 1 < run_->batches.size() && run_->batches[batch_ + 1].first_event <= index_) ++batch_;
    if (!done() && index_ - buffer_start_ >= buffer_.size()) Load();
  }

 private:
  void Load() {
    if (done()) return;
    size_t chunk = index_ / EventStore::kChunkEvents;
    run_->events.DecodeChunk(chunk, &buffer_);
    run_->events.ReleaseChunksBefore(chunk + 1);
    buffer_start_ = chunk * EventStore::kChunkEvents;
  }

  ThreadRun* run_;
  uint64_t size_;
  uint64_t index_ = 0;
  size_t batch_ = 0;
  std::vector<Event> buffer_;
  uint64_t buffer_start_ = 0;
};

}  // namespace

EventStore MergeThreadRuns(std::vector<ThreadRun>& runs, const MergeProgress& progress, MergeStats* stats) {
  uint64_t total = 0;
  for (const ThreadRun& run : runs) total += run.events.size();
  EventStore out;
  if (total == 0) return out;
  // One thread: its run is the global order already.
  size_t busy = 0;
  ThreadRun* only = nullptr;
  for (ThreadRun& run : runs)
    if (!run.events.empty()) ++busy, only = &run;
  if (busy == 1) {
    out = std::move(only->events);
    for (ThreadRun& run : runs) run = ThreadRun();
    if (progress) progress(total, total);
    return out;
  }

  std::vector<RunCursor> cursors;
  cursors.reserve(runs.size());
  for (ThreadRun& run : runs)
    if (!run.events.empty()) cursors.emplace_back(&run);

  // Min-heap on (ticks, arrival). Ties on both cannot happen between two
  // runs: a batch belongs to one thread.
  auto later = [&](size_t a, size_t b) {
    const Event& ea = cursors[a].event();
    const Event& eb = cursors[b].event();
    if (ea.ticks != eb.ticks) return ea.ticks > eb.ticks;
    return cursors[a].arrival() > cursors[b].arrival();
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < cursors.size(); ++i) heap.push(i);

  HandoffRepair repair(&out);
  uint64_t done = 0;
  while (!heap.empty()) {
    size_t i = heap.top();
    heap.pop();
    RunCursor& c = cursors[i];
    // Take the run's events while they stay ahead of every other run: one
    // heap operation per switch of thread, not per event.
    const bool alone = heap.empty();
    do {
      repair.Push(c.event());
      c.Advance();
      if (++done % kProgressEvery == 0 && progress) progress(done, total);
    } while (!c.done() && (alone || !later(i, heap.top())));
    if (!c.done()) heap.push(i);
  }
  repair.Finish();
  if (stats) *stats = {repair.repairs()};
  for (ThreadRun& run : runs) run = ThreadRun();
  if (progress) progress(done, total);
  return out;
}

void StreamingMerge::AddBatch(uint16_t thread, const std::vector<Event>& events, uint64_t arrival) {
  if (failed_ || events.empty()) return;
  if (thread >= threads_.size()) threads_.resize(thread + 1u);
  ThreadQueue& q = threads_[thread];
  // Equal ticks are fine: this batch arrived after every event let out.
  if (events.front().ticks < latest_let_out_) return Fail();
  if (q.events.empty()) heads_.push({events.front().ticks, arrival, thread});
  for (const Event& e : events) q.events.push_back({e, arrival});
  newest_read_ = std::max(newest_read_, events.back().ticks);
  pending_ += events.size();
  const uint64_t limit = newest_read_ > margin_ticks_ ? newest_read_ - margin_ticks_ : 0;
  // Past the cap, down to three quarters of it: one scan lets out many.
  LetOutBelow(limit, pending_ > max_pending_ ? max_pending_ / 4 * 3 : pending_);
}

void StreamingMerge::Finish() {
  if (!failed_) LetOutBelow(std::numeric_limits<uint64_t>::max(), 0);
}

void StreamingMerge::Fail() {
  failed_ = true;
  threads_.clear();
  threads_.shrink_to_fit();
  heads_ = {};
  pending_ = 0;
}

void StreamingMerge::LetOutBelow(uint64_t limit, uint64_t keep) {
  // The earliest thread's events go out while they stay ahead of the
  // runner-up's head (one heap operation per switch of thread, as
  // MergeThreadRuns).
  auto ahead = [](const Pending& p, const Head& h) {
    return p.event.ticks != h.ticks ? p.event.ticks < h.ticks : p.arrival < h.arrival;
  };
  auto due = [&](const Pending& p) { return p.event.ticks < limit || pending_ > keep; };
  while (!heads_.empty()) {
    const uint16_t thread = heads_.top().thread;
    std::deque<Pending>& q = threads_[thread].events;
    if (!due(q.front())) return;
    heads_.pop();
    const Head* second = heads_.empty() ? nullptr : &heads_.top();
    while (!q.empty() && due(q.front()) && (!second || ahead(q.front(), *second))) {
      latest_let_out_ = q.front().event.ticks;
      out_->Push(q.front().event);
      q.pop_front();
      --pending_;
    }
    if (!q.empty()) heads_.push({q.front().event.ticks, q.front().arrival, thread});
  }
}

}  // namespace memframe::analysis
