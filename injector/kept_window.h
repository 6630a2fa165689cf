// `memframe run --keep-last DURATION`: a bounded window of the recording.
//
// Instead of one capture of the whole run, the records go to segment files
// (each about a quarter of DURATION) in a private directory beside the
// output, and a segment is deleted once the newer ones cover DURATION, so
// the disk holds at most DURATION plus one segment of events. What every
// window needs whatever its start is kept for the whole run, bounded by
// distinct entries rather than by time: each stream's Hello and definitions
// (stacks, modules, markers, allocators, threads, symbols), the first clock
// pair, the batch decoder's state at each segment's start (a WindowStart
// record at the segment's head), and per-frame totals (FrameTotals).
//
// Save writes a capture that reads on its own: the definitions known when
// the oldest kept segment began, that segment and the later ones, the
// totals and a closing record that says what was kept (FORMAT.md, "Kept
// windows"). The recorder's thread calls everything here.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "memframe.pb.h"

namespace memframe::wire {
class CaptureWriter;
}

namespace memframe::injector {

class KeptWindow {
 public:
  // `output`: the capture written at the end; segments go to OUTPUT.window/
  // (created here, removed with what is left in it by the destructor).
  // `header`: the recorder's opening record, repeated at every saved
  // window's head.
  static std::unique_ptr<KeptWindow> Create(const std::string& output, uint64_t keep_last_ms,
                                            const wire::RecorderInfo& header, std::ostream& log, std::string* error);
  ~KeptWindow();
  KeptWindow(const KeptWindow&) = delete;
  KeptWindow& operator=(const KeptWindow&) = delete;

  // Replaces the opening record (memframe attach learns how long the
  // injection paused the process only once the agent is in).
  void SetHeader(const wire::RecorderInfo& header);

  // One record, as the recorder would append it to a capture. A Snapshot on
  // stream 0 (`memframe mark`) also saves the window beside the output.
  // False when a segment cannot be written (error() says why).
  bool Add(uint32_t stream, const void* packet, size_t size);
  bool Flush();

  // Writes the window to `path` (never replacing a file unless `force`):
  // `closing` is the closing record (finished is set here), `saved_for`
  // says why it was saved. False with *error.
  bool Save(const std::string& path, wire::RecorderInfo closing, const std::string& saved_for, bool force,
            std::string* error);
  // Saves the window while the program runs, to a new file beside the
  // output (OUTPUT-WHAT.mfc, -2, -3, ... never one that exists), and says
  // where on the log.
  void SaveBeside(const std::string& what, const std::string& saved_for);

  // SIGUSR1 asks for a SaveBeside: the handler only sets a flag, which
  // TakeSignal returns (and clears) between the recorder's polls.
  static void WatchSignal();
  static bool TakeSignal();

  uint64_t max_disk_bytes() const { return max_disk_bytes_; }
  size_t max_segments() const { return max_segments_; }
  const std::string& error() const { return error_; }

 private:
  struct Stream;
  struct Segment;

  KeptWindow(std::string output, std::string directory, uint64_t keep_last_ms, const wire::RecorderInfo& header,
             std::ostream& log);
  bool OpenSegment();
  bool CloseSegment();
  void DropExpiredSegments();
  void Follow(Stream& stream, const wire::Packet& packet);
  wire::FrameTotals Totals(uint32_t id, const Stream& stream) const;
  bool Fail(const std::string& why);

  std::string output_, directory_;
  std::chrono::milliseconds keep_last_, segment_length_;
  wire::RecorderInfo header_;
  std::ostream& log_;
  std::map<uint32_t, std::unique_ptr<Stream>> streams_;
  std::vector<Segment> segments_;  // oldest first; the last is being written
  std::unique_ptr<wire::CaptureWriter> writer_;
  uint64_t next_segment_ = 0;
  uint64_t records_ = 0, events_ = 0;  // agent records and events of the whole run
  uint64_t disk_bytes_ = 0, max_disk_bytes_ = 0;
  size_t max_segments_ = 0;
  std::string error_;
};

}  // namespace memframe::injector
