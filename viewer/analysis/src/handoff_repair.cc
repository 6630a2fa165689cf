#include "handoff_repair.h"

#include <algorithm>

namespace memframe::analysis {

namespace {
constexpr size_t kMaxOpenContradictions = 16;

bool IsHeapEvent(const Event& e) { return e.kind() == EventKind::kAlloc || e.kind() == EventKind::kFree; }
}  // namespace

bool HandoffRepair::Resolves(const Contradiction& c, const Event& e) const {
  if (c.thread == e.thread) return false;
  // An allocation over a live block waits for that block's free; a free of
  // no block waits for the block's allocation.
  return c.is_alloc ? e.kind() == EventKind::kFree : e.kind() == EventKind::kAlloc;
}

void HandoffRepair::Push(const Event& e) {
  if (!open_.empty()) Settle(e.ticks);  // first: a contradiction older than the window is final
  if (IsHeapEvent(e) && e.address != 0) {
    auto open = std::find_if(open_.begin(), open_.end(),
                             [&](const Contradiction& c) { return c.address == e.address; });
    bool still_open = false;
    if (open != open_.end()) {
      Contradiction c = *open;
      // The contradicting thread's own later events at the address keep it
      // open: a thread that frees a block it was handed and gets the same
      // address straight back (its own cache) does both before the handing
      // thread's stamp, which can come out after them, or tie with them at
      // the wire's tick unit (clock.h) and lose on arrival.
      still_open = e.thread == c.thread;
      if (!still_open) open_.erase(open);
      if (Resolves(c, e)) {
        // The live set already holds the outcome of the right order:
        // free + alloc leaves the address live, alloc + free leaves it free.
        window_.push_back(e);
        MoveThreadBefore(c.position, e.thread);
        ++repairs_;
        Settle(e.ticks);
        return;
      }
      // Anything else at the address first: a contradiction after all.
    }
    bool consistent = e.kind() == EventKind::kAlloc ? live_.Insert(e.address) : live_.Erase(e.address);
    // A stream full of contradictions (events dropped, blocks from before
    // the agent started) keeps a few open at a time, not every one: each
    // open one holds the window back and is checked on every heap event.
    if (!consistent && !still_open && open_.size() < kMaxOpenContradictions)
      open_.push_back({e.address, window_start_ + window_.size(), e.ticks, e.thread, e.kind() == EventKind::kAlloc});
  }
  if (open_.empty() && window_.empty()) {
    out_->Push(e);
    ++window_start_;
    return;
  }
  window_.push_back(e);
  Settle(e.ticks);
}

void HandoffRepair::MoveThreadBefore(uint64_t position, uint16_t thread) {
  const size_t first = static_cast<size_t>(position - window_start_);
  const uint64_t ticks = window_[first].ticks;
  std::vector<Event> moved, stayed;
  for (size_t i = first; i < window_.size(); ++i) {
    Event e = window_[i];
    if (e.thread == thread) {
      e.ticks = std::min(e.ticks, ticks);
      moved.push_back(e);
    } else {
      stayed.push_back(e);
    }
  }
  window_.erase(window_.begin() + static_cast<std::ptrdiff_t>(first), window_.end());
  window_.insert(window_.end(), moved.begin(), moved.end());
  window_.insert(window_.end(), stayed.begin(), stayed.end());
  // Contradictions still open among the events that changed places: find
  // them again (there are next to none).
  for (Contradiction& c : open_) {
    if (c.position < position) continue;
    for (size_t i = first; i < window_.size(); ++i) {
      const Event& e = window_[i];
      if (e.address == c.address && e.thread == c.thread && (e.kind() == EventKind::kAlloc) == c.is_alloc)
        c.position = window_start_ + i, c.ticks = e.ticks;
    }
  }
}

void HandoffRepair::Settle(uint64_t now) {
  // A contradiction older than the window stays one.
  open_.erase(std::remove_if(open_.begin(), open_.end(),
                             [&](const Contradiction& c) { return c.ticks + window_ticks_ < now; }),
              open_.end());
  uint64_t keep_from = window_start_ + window_.size();
  for (const Contradiction& c : open_) keep_from = std::min(keep_from, c.position);
  while (window_start_ < keep_from) {
    out_->Push(window_.front());
    window_.pop_front();
    ++window_start_;
  }
}

void HandoffRepair::Finish() {
  for (const Event& e : window_) out_->Push(e);
  window_start_ += window_.size();
  window_.clear();
  open_.clear();
}

}  // namespace memframe::analysis
