// The live heap at one point of a capture: the start, the end of a frame, a
// named marker, or the end. The diff report compares two of them.
//
// Everything goes through LiveSetAt so that a later implementation (replay
// from a checkpoint instead of from the first event) changes this file and
// live_set_at.cc only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/live_set.h"
#include "memframe/analysis/live_set_index.h"

namespace memframe::analysis {

struct LiveSetCut {
  enum class Kind { kStart, kEndOfFrame, kMarker, kEnd };
  Kind kind = Kind::kEnd;
  uint64_t frame = 0;       // kEndOfFrame: the frame; kMarker: filled in by ResolveCut
  uint32_t marker_id = 0;   // kMarker
  uint64_t position = 0;    // kMarker: index of that MARKER event in the global order
  std::string text;         // as the user wrote it, for messages
};

// Parses "start", "end", a frame number or a marker name (the first MARKER
// event with that name in the capture). Returns nullopt with *error when the
// frame is not one of `frames` or no MARKER event has that name.
std::optional<LiveSetCut> ResolveCut(const Stream& stream, const std::string& text, const FrameTable& frames,
                                     std::string* error);

// kEndOfFrame F: every ALLOC and FREE whose frame is <= F, in global order
// (the same cut as FrameStats::live_bytes, so the totals agree with the
// frames report). kMarker: every event before the first MARKER event with
// that id. kStart: empty. kEnd: every event.
LiveSet LiveSetAt(const Stream& stream, const LiveSetCut& cut);

// The same live set as LiveSetAt, from the live-set index's checkpoints
// (a replay of at most one checkpoint interval, not of the whole capture):
// what a viewer uses when the user picks a cut.
LiveSet LiveSetAt(const Stream& stream, const LiveSetIndex& index, const LiveSetCut& cut);

// Every MARKER event of the stream, in global order, with its name (empty
// when the id has none). The first of each name is the one ResolveCut picks.
struct MarkerEvent {
  std::string name;
  uint32_t marker_id = 0;
  uint64_t frame = 0;
  uint64_t ticks = 0;
  uint64_t position = 0;  // index in the global order
};
std::vector<MarkerEvent> FindMarkerEvents(const Stream& stream);

// Shorthand for the end of frame `frame`.
LiveSet LiveSetAtFrame(const Stream& stream, uint64_t frame);

}  // namespace memframe::analysis
