#include "live_summary.h"

#include <new>

#include "memframe/analysis/summary_index.h"
#include "memframe/report/report.h"

namespace memframe::injector {

LiveSummary::LiveSummary(const std::string& capture_path)
    : path_(capture_path), summary_(capture_path), thread_([this] { Run(); }) {}

LiveSummary::~LiveSummary() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    given_up_ = true;  // nobody will print: stop reading
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void LiveSummary::Add(uint32_t stream, const void* packet, size_t size) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (given_up_ || closing_) return;
    if (queued_bytes_ + size > kMaxQueuedBytes) {
      given_up_ = true;
      queue_.clear();
      queued_bytes_ = 0;
      return;
    }
    const auto* bytes = static_cast<const uint8_t*>(packet);
    queue_.push_back({stream, std::vector<uint8_t>(bytes, bytes + size)});
    queued_bytes_ += size;
  }
  wake_.notify_one();
}

void LiveSummary::Run() {
  std::deque<Record> taken;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return closing_ || given_up_ || !queue_.empty(); });
      if (given_up_) return;
      if (queue_.empty() && closing_) return;
      taken.swap(queue_);
      queued_bytes_ = 0;
    }
    bool ok = true;
    try {
      for (const Record& r : taken) {
        std::string problem;
        // A record that does not read: the file's reader says what is wrong.
        ok = ok && summary_.builder().Add(r.stream, r.bytes.data(), r.bytes.size(), &problem) ==
                       analysis::CaptureBuilder::Status::kOk;
      }
    } catch (const std::bad_alloc&) {
      ok = false;  // the capture is bigger than this machine: the file's reader says so
    }
    taken.clear();
    if (!ok) {
      std::lock_guard<std::mutex> lock(mutex_);
      given_up_ = true;
      queue_.clear();
      return;
    }
  }
}

int LiveSummary::Print(std::ostream& out, std::ostream& err) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  wake_.notify_one();
  thread_.join();
  if (!given_up_) {
    try {
      analysis::Capture capture = summary_.builder().Finish("");
      analysis::HeapAnalysis heap;
      if (summary_.TakeHeap(capture, &heap)) {
        // The capture is closed: its summary index makes the next open
        // instant (summary_index.h). The model is the file's, read as written.
        capture.path = path_;
        std::string why;
        analysis::WriteSummaryIndex(path_, analysis::StampCapture(path_), capture, heap, &why);
        return analysis::PrintRunSummary(capture, heap, out, err);
      }
    } catch (const std::bad_alloc&) {
    }
  }
  return analysis::PrintRunSummary(path_, out, err);
}

}  // namespace memframe::injector
