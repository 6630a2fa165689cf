// Which threads the analyses look at (`--thread NAME|TID`, the viewer's
// Threads list): the events of the other threads are taken out of the
// stream before any analysis runs, so every report and view honours the
// choice the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

// One flag per Stream::threads entry; empty = every thread.
using ThreadSelection = std::vector<bool>;

// Resolves `--thread` values against the stream's threads: a number is a
// TID, anything else a name, which selects every thread of that name. An
// unknown one is false with *error naming it and listing the threads.
bool ResolveThreads(const Stream& stream, const std::vector<std::string>& specs, ThreadSelection* selection,
                    std::string* error);

// Keeps what the selected threads did: their allocations and mappings, the
// frees and unmaps of those blocks and regions whoever made them (a worker's
// buffer freed on the main thread is still the worker's), their frees of
// pointers that were not live (mismatches), and every FRAME_END and MARKER
// (the frames stay the capture's). An empty selection keeps everything.
void FilterThreads(Stream* stream, const ThreadSelection& selection);

// Why a report or view (by its name) cannot honour a thread selection, or
// nullptr when it can: every one can but those whose figures need every
// thread's events.
const char* ThreadFilterRefusal(const std::string& report);

// "main" / "main, worker" / "4 threads": what a header says about a selection.
std::string DescribeThreads(const Stream& stream, const ThreadSelection& selection);

// A thread as tables name it: its name, or "tid N" when it has none.
std::string ThreadName(const Stream& stream, uint16_t thread);

// The thread cell of a row: the thread that allocated most there, and how
// many others did ("main", "main+2"); "" when none.
std::string ThreadsCell(const Stream& stream, const std::vector<SiteThread>& threads);

}  // namespace memframe::analysis
