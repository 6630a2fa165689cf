// What a capture's figures leave out or could not see (events the agent
// dropped, frees of blocks it never saw, a block reused without its free):
// the summary prints these as "note: ..." lines and the viewer's header
// shows the same sentences, so neither hides what the other says.
#pragma once

#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"

namespace memframe::analysis {

// One sentence each, without "note: ", in a fixed order; empty when the
// figures are whole.
std::vector<std::string> CaptureNotes(const Capture& capture, const HeapAnalysis& heap);

// For a capture of `memframe attach`: "recording starts at an attach to the
// running process (...); blocks allocated before it are unknown", as the
// summary's "Attached" line and the viewer's header say it; empty for a
// capture of `memframe run`.
// A kept window (memframe run --keep-last) says what it holds instead:
// "a kept window of the run (the last 30 s, saved at end of run): frames
// from 540 in full, 1.2 M events before them dropped; ...".
std::string DescribeAttach(const Capture& capture);
// The per-frame totals of the main stream of a kept window; null otherwise.
const FrameTotalsSeries* MainFrameTotals(const Capture& capture);

// For a program whose executable defines its own allocator: "the
// executable's own malloc (jemalloc) was hooked by entry patch (malloc,
// ...)", or "... was not hooked: SYMBOL: why; ..." naming the functions the
// agent could not patch (one of CaptureNotes); empty for other programs.
std::string DescribeOwnAllocator(const Capture& capture);

// For each allocator library whose own API the agent hooked: "calls to
// mimalloc's own API in libmimalloc.so.2 are recorded (mi_malloc, ...)"
// (among CaptureNotes, after the executable's own allocator).
std::vector<std::string> DescribeAllocatorApis(const Capture& capture);

}  // namespace memframe::analysis
