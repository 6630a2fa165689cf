#include "memframe/analysis/live_set_at.h"

#include <cerrno>
#include <cstdlib>

#include "memframe/analysis/event_pass.h"

namespace memframe::analysis {

namespace {

// Applies ALLOC/FREE events to a live set up to the cut. Replay cannot stop
// early, so the pass ignores what comes after the cut.
class LiveSetPass : public EventPass {
 public:
  explicit LiveSetPass(const LiveSetCut& cut) : cut_(cut) {}

  void OnEvent(const Event& e) override {
    if (stopped_) return;
    switch (cut_.kind) {
      case LiveSetCut::Kind::kStart:
        stopped_ = true;
        return;
      case LiveSetCut::Kind::kMarker:
        if (e.kind() == EventKind::kMarker && e.size == cut_.marker_id) {
          stopped_ = true;
          return;
        }
        break;
      case LiveSetCut::Kind::kEndOfFrame:
        if (e.frame > cut_.frame) return;  // a later frame; an earlier one may still follow from another thread
        break;
      case LiveSetCut::Kind::kEnd:
        break;
    }
    LiveBlock ignored;
    if (e.kind() == EventKind::kAlloc) live_.Alloc(e, &ignored);
    if (e.kind() == EventKind::kFree) live_.Free(e.address, &ignored);
  }

  LiveSet Take() { return std::move(live_); }

 private:
  LiveSetCut cut_;
  LiveSet live_;
  bool stopped_ = false;
};

bool ParseFrameNumber(const std::string& text, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  unsigned long long value = strtoull(text.c_str(), nullptr, 10);
  if (errno) return false;
  *out = value;
  return true;
}

}  // namespace

std::optional<LiveSetCut> ResolveCut(const Stream& stream, const std::string& text, const FrameTable& frames,
                                     std::string* error) {
  const uint64_t last_frame = frames.All().to;
  LiveSetCut cut;
  cut.text = text;
  if (text == "start") {
    cut.kind = LiveSetCut::Kind::kStart;
    return cut;
  }
  if (text == "end") {
    cut.kind = LiveSetCut::Kind::kEnd;
    cut.frame = last_frame;
    return cut;
  }
  if (ParseFrameNumber(text, &cut.frame)) {
    // An empty capture still has the (empty) end of frame 0.
    bool known = frames.frames.empty() ? cut.frame == 0 : frames.Find(cut.frame) != nullptr;
    if (!known) {
      *error = "frame " + text + " is not in the capture (" + DescribeFrames(frames) + ")";
      return std::nullopt;
    }
    cut.kind = LiveSetCut::Kind::kEndOfFrame;
    return cut;
  }
  // Several ids can carry one name (one per agent marker table entry); the
  // first MARKER event with any of them is the cut.
  uint64_t position = 0;
  for (const Event& e : stream.events) {
    if (e.kind() != EventKind::kMarker) {
      ++position;
      continue;
    }
    auto it = stream.markers.find(static_cast<uint32_t>(e.size));
    if (it == stream.markers.end() || it->second != text) {
      ++position;
      continue;
    }
    cut.kind = LiveSetCut::Kind::kMarker;
    cut.marker_id = static_cast<uint32_t>(e.size);
    cut.frame = e.frame;
    cut.position = position;
    return cut;
  }
  *error = "'" + text + "' is neither a frame number, 'start', 'end' nor the name of a marker in the capture";
  return std::nullopt;
}

LiveSet LiveSetAt(const Stream& stream, const LiveSetCut& cut) {
  LiveSetPass pass(cut);
  Replay(stream, {&pass});
  return pass.Take();
}

LiveSet LiveSetAt(const Stream& stream, const LiveSetIndex& index, const LiveSetCut& cut) {
  switch (cut.kind) {
    case LiveSetCut::Kind::kStart: return LiveSet();
    case LiveSetCut::Kind::kEndOfFrame: return index.AtFrame(stream, cut.frame);
    case LiveSetCut::Kind::kMarker: return index.AtPosition(stream, cut.position);  // the events before it
    case LiveSetCut::Kind::kEnd: return index.AtPosition(stream, stream.events.size());
  }
  return LiveSet();
}

std::vector<MarkerEvent> FindMarkerEvents(const Stream& stream) {
  std::vector<MarkerEvent> markers;
  uint64_t position = 0;
  for (const Event& e : stream.events) {
    if (e.kind() == EventKind::kMarker) {
      auto it = stream.markers.find(static_cast<uint32_t>(e.size));
      markers.push_back({it == stream.markers.end() ? std::string() : it->second, static_cast<uint32_t>(e.size),
                         e.frame, e.ticks, position});
    }
    ++position;
  }
  return markers;
}

LiveSet LiveSetAtFrame(const Stream& stream, uint64_t frame) {
  LiveSetCut cut;
  cut.kind = LiveSetCut::Kind::kEndOfFrame;
  cut.frame = frame;
  return LiveSetAt(stream, cut);
}

}  // namespace memframe::analysis
