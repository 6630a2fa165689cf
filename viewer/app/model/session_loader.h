// Loads a capture on a background thread so the window keeps drawing: read
// the records, run the heap analysis, index sizes, and name the call sites
// (symbolizing is the slow part of a first open). When the capture's summary
// index (CAPTURE.mfi, summary_index.h) matches, a preview session built from
// it comes first, in milliseconds: the timeline and the header are drawn
// from it while the whole load goes on; without one, the whole load writes it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "memframe/analysis/live_follow.h"
#include "session.h"

namespace memframe::viewer {

class SessionLoader {
 public:
  enum class State { kLoading, kReady, kFailed };
  enum class Phase { kReading, kAnalysing, kSymbolizing, kDone };

  struct Progress {
    Phase phase = Phase::kReading;
    uint64_t records = 0;        // kReading: records read so far
    uint64_t record_bytes = 0;   // kReading: bytes of those records (decompressed)
    uint64_t file_bytes = 0;     // size of the capture file on disk
    uint64_t done = 0, total = 0;  // kSymbolizing: call sites named so far / to name
    uint64_t read_bytes = 0;     // kReading: bytes of the (compressed) file consumed so far
  };
  // How far the whole load is, 0..100: reading is most of it, then the
  // analysis (no figure of its own), then naming the sites.
  static int Percent(const Progress& p);

  // `threads`: --thread values (thread_filter.h); the session shows only
  // those threads, and an unknown one fails the load.
  // `first_picture_only`: stop at the preview when there is one (--first-picture).
  explicit SessionLoader(std::string path, std::vector<std::string> threads = {}, bool first_picture_only = false);
  // Builds from a run being followed (its Build(): the capture file so far
  // plus the live records); `follower` must outlive the loader. `path` names
  // it in messages.
  SessionLoader(std::string path, analysis::LiveFollower* follower, std::vector<std::string> threads = {});
  ~SessionLoader();  // asks the thread to stop and joins it
  SessionLoader(const SessionLoader&) = delete;
  SessionLoader& operator=(const SessionLoader&) = delete;

  const std::string& path() const { return path_; }
  State state() const { return state_.load(std::memory_order_acquire); }
  Progress progress() const;
  std::string error() const;  // when kFailed
  // Failed because a --thread value names no thread (a usage error).
  bool bad_threads() const { return bad_threads_.load(); }

  // Blocks until the thread is done (for the command-line modes).
  State Wait();
  // The session, once, when kReady; null otherwise.
  std::unique_ptr<Session> Take();
  // The preview (Session::preview()) from the summary index, once, when
  // there is one and the whole load is not done; null otherwise.
  std::unique_ptr<Session> TakePreview();

 private:
  void Run();
  bool Load(std::string* error);
  bool Read(analysis::Capture* capture, std::string* error);
  // True when the index matched and the preview was handed over.
  bool Preview();
  void SetPhase(Phase phase);

  std::string path_;
  std::vector<std::string> threads_;
  analysis::LiveFollower* follower_ = nullptr;
  std::atomic<State> state_{State::kLoading};
  std::atomic<bool> stop_{false};
  std::atomic<bool> bad_threads_{false};
  mutable std::mutex mutex_;  // guards progress_, error_, session_
  Progress progress_;
  std::string error_;
  std::unique_ptr<Session> session_;
  bool first_picture_only_ = false;
  std::unique_ptr<Session> preview_;  // guarded by mutex_
  // The index had the viewer's summary: the whole load need not write it.
  bool index_complete_ = false;
  std::thread thread_;  // last: started once every member above exists
};

const char* PhaseName(SessionLoader::Phase phase);

}  // namespace memframe::viewer
