#include "event_streaming.h"

namespace memframe::analysis {

namespace {
// Events that may wait for the frame source's guess, decoded (~48 bytes
// each): past this, the guess is made.
constexpr uint64_t kMaxWaitingEvents = uint64_t{4} << 20;
// How long events wait for the other threads' (StreamingMerge): ~2.9 s of
// a 3 GHz TSC, or less while more than kMaxMergeWaiting wait (~56 bytes
// each; 0.3 s of a game making 7 M events a second), against the writer's
// drain every 0.2-2 ms. The cap bounds the memory, so the margin can be
// wide: on a loaded machine the writer can be kept from its rings for half
// a second while the game, slowed too, makes few events.
constexpr uint64_t kOrderMarginTicks = uint64_t{1} << 33;
constexpr uint64_t kMaxMergeWaiting = uint64_t{2} << 20;
}  // namespace

void FrameSpeculation::Push(const Event& e) {
  if (e.kind() == EventKind::kFrameEnd) ++ends_[e.address];
  if (guess_) return Forward(e);
  waiting_.push_back(e);
  auto marker = stream_->markers.find(static_cast<uint32_t>(e.address));
  const bool slice = marker != stream_->markers.end() && marker->second == kTimeSliceMarker;
  if (e.kind() == EventKind::kFrameEnd && !slice && ends_[e.address] >= 2) {
    FrameSourceChoice choice;
    choice.driver = e.address;
    choice.renumber = ends_.size() > 1;
    Decide(choice);
  } else if (waiting_.size() > max_waiting_) {
    Decide(ChooseFrameSource(ends_, stream_->markers));
  }
}

void FrameSpeculation::Decide(const FrameSourceChoice& choice) {
  guess_ = choice;
  if (choice.renumber) renumber_.emplace(choice.driver);
  for (const Event& e : waiting_) Forward(e);
  waiting_.clear();
}

void FrameSpeculation::Forward(Event e) {
  if (renumber_ && !renumber_->Apply(e)) return;
  ++events_out_;
  out_->Push(e);
}

bool FrameSpeculation::Finish() {
  const FrameSourceChoice final_choice = ChooseFrameSource(ends_, stream_->markers);
  if (!guess_) {
    Decide(final_choice);
    return true;
  }
  if (guess_->renumber != final_choice.renumber) return false;
  return !final_choice.renumber || guess_->driver == final_choice.driver;
}

EventStreaming::EventStreaming(const Stream* stream, EventSink* out)
    : frames_(stream, out, kMaxWaitingEvents),
      expander_(&stream->allocators, &frames_),
      repair_(static_cast<EventSink*>(&expander_)),
      merge_(&repair_, kMaxMergeWaiting, kOrderMarginTicks) {}

bool EventStreaming::Finish(uint64_t* handoffs_repaired, uint64_t* events_out) {
  merge_.Finish();
  if (merge_.failed() || allocators_changed_after_use_ || snapshots_) return false;
  repair_.Finish();
  *handoffs_repaired = repair_.repairs();
  const bool ok = frames_.Finish();
  *events_out = frames_.events_out();
  return ok;
}

}  // namespace memframe::analysis
