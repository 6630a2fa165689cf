// The summary index: CAPTURE.mfi beside a capture, holding what the summary,
// the frames' and the phases' figures are made of (a Capture less its
// events, a HeapAnalysis less its live-set index), so that opening a capture
// of hundreds of millions of events reads megabytes instead of replaying
// every event (proto/FORMAT.md, "The summary index").
//
// It is written after a capture's first whole read (and by `memframe run`
// from the summary it keeps while recording; the viewer's whole load adds
// the viewer summary below), atomically, mode 0600, and only
// over a file that is an index itself. It is used only when its stamp
// matches the capture now on disk: the capture's size, a hash of its first
// and last 64 KiB, the index format and the memframe version that wrote it;
// anything else (stale, foreign, damaged, crafted) is refused with a reason
// and the capture is read whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/live_series.h"
#include "memframe/analysis/live_set_at.h"
#include "memframe/analysis/load_progress.h"
#include "memframe/analysis/mismatches.h"
#include "memframe/analysis/module_class.h"

namespace memframe::analysis {

// Bump when the payload's fields or the analysis that fills them change.
constexpr uint32_t kSummaryIndexFormat = 4;

// What the viewer's whole load adds to an index, for its first picture to
// be the whole load's: what needs the events (the markers, the mismatches,
// the first event's time) or every site named (the live series by module
// class, under the built-in rules, and the classes' totals). `memframe
// report` and `memframe run` keep neither, so their indexes have none; the
// viewer's next whole load writes it in.
struct ViewerSummary {
  std::vector<MarkerEvent> markers;     // FindMarkerEvents
  uint64_t start_ticks = 0;             // of the first event, every thread's
  LiveSeries class_series;              // ComputeClassSeries, rows as the frame table's
  ModuleClassTotals class_totals;       // allocations and bytes per class, of the sites
  MismatchReport mismatches;            // FindMismatches
};

std::string SummaryIndexPath(const std::string& capture_path);

// What identifies a capture's bytes; valid = false when it cannot be read.
struct CaptureStamp {
  bool valid = false;
  uint64_t size = 0;
  uint64_t head_hash = 0;
  uint64_t tail_hash = 0;
  bool operator==(const CaptureStamp&) const = default;
};
CaptureStamp StampCapture(const std::string& capture_path);

enum class SummaryIndexRead { kUsed, kAbsent, kRefused };

// Fills *capture (path set, events counted but not held) and *heap (no
// live_sets) from the index, and *viewer (may be null) with its viewer
// summary or nullopt when it has none; on kRefused *why says why.
SummaryIndexRead ReadSummaryIndex(const std::string& capture_path, Capture* capture, HeapAnalysis* heap,
                                  std::string* why, std::optional<ViewerSummary>* viewer = nullptr);

// Writes the index of the capture whose bytes had `stamp` while they were
// read. False (with *why, "" when there was nothing to say) when the capture
// changed since, the directory is not writable, or CAPTURE.mfi is a file of
// someone else's.
bool WriteSummaryIndex(const std::string& capture_path, const CaptureStamp& stamp, const Capture& capture,
                       const HeapAnalysis& heap, std::string* why, const ViewerSummary* viewer = nullptr);

// LoadSummary (summary_load.h) through the index: from it when it matches,
// else the whole read, then the index written for the next open. *note
// (may be null) gets a line to show when an index was there but refused, or
// could not be written over.
bool LoadSummaryIndexed(const std::string& path, Capture* capture, HeapAnalysis* heap, std::string* error,
                        const LoadProgressFn& progress = {}, std::string* note = nullptr);

}  // namespace memframe::analysis
