// memframe run's summary kept while the program runs.
//
// Every record the capture is given is also fed, on a thread of its own, to
// the summary's one pass (analysis/summary_load.h): the same records in the
// same order as the file will hold, so the same model, and at the program's
// exit only the tail is left to read. The recorder never waits for it: Add
// copies the record into a queue and returns; should the queue pass
// kMaxQueuedBytes (the machine is too busy for the summary to keep up), the
// live summary gives up and the capture is read from the file at the end, as
// it is whenever the one pass cannot order the events.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "memframe/analysis/summary_load.h"

namespace memframe::injector {

class LiveSummary {
 public:
  // `capture_path`: the capture being written (the summary names it).
  explicit LiveSummary(const std::string& capture_path);
  ~LiveSummary();
  LiveSummary(const LiveSummary&) = delete;
  LiveSummary& operator=(const LiveSummary&) = delete;

  // From the recorder's thread (CaptureWriter::SetRecordTap).
  void Add(uint32_t stream, const void* packet, size_t size);

  // After the capture is closed, complete: prints what
  // analysis::PrintRunSummary(capture_path) prints, from the model kept
  // while recording when it holds, else from the file.
  int Print(std::ostream& out, std::ostream& err);

 private:
  struct Record {
    uint32_t stream;
    std::vector<uint8_t> bytes;
  };
  static constexpr uint64_t kMaxQueuedBytes = uint64_t{256} << 20;

  void Run();

  std::string path_;
  analysis::SummaryBuilder summary_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Record> queue_;
  uint64_t queued_bytes_ = 0;
  bool closing_ = false;
  bool given_up_ = false;  // the queue overflowed or a record did not read: use the file
  std::thread thread_;
};

}  // namespace memframe::injector
