// The summary index's payload: a Capture less its events and a HeapAnalysis
// less its live-set index, as varints (proto/FORMAT.md, "The summary
// index"). One field list (summary_index_codec.cc) serves both directions,
// so writing and reading cannot drift apart.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/summary_index.h"

namespace memframe::analysis {

std::string EncodeSummaryPayload(const Capture& capture, const HeapAnalysis& heap,
                                const ViewerSummary* viewer = nullptr);

// False, with *error saying where, for bytes that are not a payload this
// build wrote: truncated, a count larger than the bytes left, an enum out of
// range, rows out of order, a thread index past the threads. Never reads
// past `bytes` and never allocates more than a small multiple of its size.
// *viewer (may be null) gets the viewer summary, nullopt when there is none.
bool DecodeSummaryPayload(std::string_view bytes, Capture* capture, HeapAnalysis* heap, std::string* error,
                          std::optional<ViewerSummary>* viewer = nullptr);

}  // namespace memframe::analysis
