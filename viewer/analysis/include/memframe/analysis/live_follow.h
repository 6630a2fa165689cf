// Following a run live: the client side of `memframe run`'s live socket
// (injector/live_server.h, proto/FORMAT.md "Live socket").
//
// The socket sends a LiveStart record (the capture file and how many records
// it holds so far), then every later record of the capture as it is written.
// A LiveFollower reads the socket on its own thread and keeps only the
// records the file may not hold yet; Build() makes a model of the whole run
// so far from the file's records plus those. Everything received is
// untrusted input: records are length-checked here and parsed by the same
// CaptureBuilder as a capture file.
//
// Why rebuild rather than append to the model: the model's events are put in
// global order once (a k-way merge into compressed chunks), frames are
// resolved in one rewrite pass and the heap analysis is one pass; none of
// them can be extended in place. A rebuild costs one load of the run so far,
// so callers rebuild in the background at an interval that grows with the
// rebuild time (the viewer: at least 4x), keeping the previous model on
// screen meanwhile: refreshing then never takes more than a fifth of a core,
// however long the game runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

// One connection to a live socket. Next() blocks; RequestSnapshot may be
// called from another thread meanwhile.
class LiveConnection {
 public:
  // Connects and reads the LiveStart record. Null with *error when the
  // socket cannot be reached or does not speak memframe's live protocol.
  static std::unique_ptr<LiveConnection> Connect(const std::string& socket_path, std::string* error);
  ~LiveConnection();
  LiveConnection(const LiveConnection&) = delete;
  LiveConnection& operator=(const LiveConnection&) = delete;

  const std::string& capture_path() const { return capture_path_; }
  uint64_t records_in_file() const { return records_in_file_; }

  // The next record. False when the run ended (error() empty) or the
  // stream is unusable (error() says why).
  bool Next(uint32_t* stream, std::vector<uint8_t>* packet);
  const std::string& error() const { return error_; }

  // Asks the recorder to mark this moment; "" lets it name the mark
  // "snapshot N". The mark comes back as a Snapshot record on stream 0.
  bool RequestSnapshot(const std::string& name, std::string* error);
  // Makes a blocked Next() return (from another thread).
  void Shutdown();

 private:
  LiveConnection() = default;
  bool Fill(size_t need);  // at least `need` unread bytes buffered

  int fd_ = -1;
  std::string capture_path_;
  uint64_t records_in_file_ = 0;
  std::vector<uint8_t> buffer_;
  size_t begin_ = 0;
  std::string error_;
};

class LiveFollower {
 public:
  static std::unique_ptr<LiveFollower> Start(const std::string& socket_path, std::string* error);
  ~LiveFollower();  // stops the reading thread
  LiveFollower(const LiveFollower&) = delete;
  LiveFollower& operator=(const LiveFollower&) = delete;

  struct Status {
    uint64_t records = 0;  // of the capture, received or in the file
    bool ended = false;    // the recorder closed the stream (the run is over)
    std::string error;     // why the stream broke off, when it did
  };
  Status status() const;
  const std::string& socket_path() const { return socket_path_; }
  const std::string& capture_path() const { return connection_->capture_path(); }

  // A model of every record so far, as LoadCapture would make of the
  // finished file. False with *error when the capture file lost records the
  // socket did not resend, or the run cannot be read at all. `stop`
  // (optional) cancels a long build.
  bool Build(Capture* capture, std::string* error, const std::atomic<bool>* stop = nullptr);

  bool RequestSnapshot(const std::string& name, std::string* error) {
    return connection_->RequestSnapshot(name, error);
  }

 private:
  LiveFollower() = default;
  void Read();

  std::string socket_path_;
  std::unique_ptr<LiveConnection> connection_;
  mutable std::mutex mutex_;  // guards everything below
  uint64_t first_tail_record_ = 0;  // capture record number of tail_.front()
  std::deque<std::pair<uint32_t, std::vector<uint8_t>>> tail_;
  bool ended_ = false;
  std::string error_;
  std::thread thread_;  // last: started once every member above exists
};

}  // namespace memframe::analysis
