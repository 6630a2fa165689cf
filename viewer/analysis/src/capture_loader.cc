#include "memframe/analysis/capture_loader.h"

#include <new>

#include "memframe.pb.h"
#include "memframe/capture_file.h"
#include "memframe/format.h"
#include "stream_builder.h"

namespace memframe::analysis {

namespace {

class CaptureFileSource : public PacketSource {
 public:
  explicit CaptureFileSource(std::unique_ptr<wire::CaptureReader> reader) : reader_(std::move(reader)) {}
  bool Next(uint32_t* stream, std::vector<uint8_t>* packet) override {
    if (!reader_->Next(&record_)) return false;
    *stream = record_.stream;
    packet->swap(record_.packet);
    return true;
  }
  std::string error() const override { return reader_->error(); }
  uint64_t bytes_read() const override { return reader_->bytes_read(); }
  uint64_t total_bytes() const override { return reader_->file_size(); }

 private:
  std::unique_ptr<wire::CaptureReader> reader_;
  wire::CaptureRecord record_;
};

}  // namespace

std::unique_ptr<PacketSource> OpenCaptureFile(const std::string& path, std::string* error) {
  auto reader = wire::CaptureReader::Open(path, error);
  if (!reader) return nullptr;
  return std::make_unique<CaptureFileSource>(std::move(reader));
}

std::unique_ptr<PacketSource> OpenCaptureMemory(const void* data, size_t size, const std::string& name,
                                                std::string* error) {
  auto reader = wire::CaptureReader::OpenMemory(data, size, name, error);
  if (!reader) return nullptr;
  return std::make_unique<CaptureFileSource>(std::move(reader));
}

CaptureBuilder::CaptureBuilder(std::string path) : path_(std::move(path)) {}
CaptureBuilder::~CaptureBuilder() = default;

CaptureBuilder::Status CaptureBuilder::Add(uint32_t stream, const uint8_t* data, size_t size, std::string* error) {
  wire::Packet packet;
  if (!packet.ParseFromArray(data, static_cast<int>(size))) {
    *error = "capture is corrupt: a packet of stream " + std::to_string(stream) + " does not parse";
    return Status::kDamaged;
  }
  if (stream == 0) {
    if (packet.has_recorder()) {
      const wire::RecorderInfo& r = packet.recorder();
      // The closing record is the recorder's last.
      if (recorder_.finished) {
        *error = "capture is corrupt: a recorder record after the closing one (a capture's records appended to it "
                 "again?)";
        return Status::kDamaged;
      }
      recorder_.seen = true;
      if (!r.command_line().empty()) recorder_.command_line = r.command_line();
      if (r.start_unix_ns()) recorder_.start_unix_ns = r.start_unix_ns();
      if (!r.recorder_version().empty()) recorder_.recorder_version = r.recorder_version();
      if (r.attached()) recorder_.attached = true;
      if (r.attach_pause_us()) recorder_.attach_pause_us = r.attach_pause_us();
      if (r.has_kept_window()) {
        const wire::KeptWindow& k = r.kept_window();
        recorder_.kept_window = {true, k.keep_last_ms(), k.saved_for(), k.first_unix_ns(), k.dropped_records(),
                                 k.dropped_events()};
      }
      if (r.finished()) {
        recorder_.finished = true;
        recorder_.exit_status = r.exit_status();
        recorder_.detached = r.detached();
        recorder_.termination_signal = r.termination_signal();
      }
    }
    if (packet.has_snapshot()) {
      const wire::Snapshot& snapshot = packet.snapshot();
      if (snapshot.name().size() > wire::kMaxSnapshotNameBytes) {
        *error = "capture is corrupt: a snapshot name of " + std::to_string(snapshot.name().size()) +
                 " bytes (a recorder takes at most " + std::to_string(wire::kMaxSnapshotNameBytes) + ")";
        return Status::kDamaged;
      }
      recorder_.snapshots.push_back({snapshot.name(), snapshot.monotonic_ns(), snapshot.unix_ns()});
    }
    if (packet.has_frame_totals()) {
      const wire::FrameTotals& t = packet.frame_totals();
      const int n = t.allocs_size();
      if (t.frees_size() != n || t.allocated_bytes_size() != n || t.freed_bytes_size() != n ||
          t.live_bytes_size() != n) {
        *error = "capture is corrupt: frame totals of stream " + std::to_string(t.stream()) +
                 " whose columns differ in length";
        return Status::kDamaged;
      }
      recorder_.frame_totals.push_back({t.stream(), t.first_frame(), {t.allocs().begin(), t.allocs().end()},
                                        {t.frees().begin(), t.frees().end()},
                                        {t.allocated_bytes().begin(), t.allocated_bytes().end()},
                                        {t.freed_bytes().begin(), t.freed_bytes().end()},
                                        {t.live_bytes().begin(), t.live_bytes().end()}});
    }
    return Status::kOk;
  }
  auto& builder = streams_[stream];
  if (!builder) {
    builder = std::make_unique<StreamBuilder>(stream);
    if (sink_for_) builder->StreamEventsTo(sink_for_(stream));
  }
  return builder->Add(packet, error);
}

Capture CaptureBuilder::Finish(std::string damage, const LoadProgressFn& progress) {
  Capture capture;
  capture.path = path_;
  capture.recorder = recorder_;
  capture.damage = std::move(damage);
  StreamBuilder* main = nullptr;
  for (auto& [id, builder] : streams_) {  // ties go to the earliest stream
    if (!main || builder->event_count() > main->event_count()) main = builder.get();
  }
  for (auto& [id, builder] : streams_) {
    if (builder.get() == main) continue;
    capture.other_streams.push_back(builder->Summary());
  }
  if (main) {
    MergeProgress merged;
    if (progress) {
      merged = [&progress](uint64_t done, uint64_t total) {
        progress({LoadProgress::Phase::kOrdering, done, total});
      };
    }
    main->AddSnapshotMarkers(recorder_.snapshots);
    capture.main = main->Finish(merged);
    capture.has_main = true;
    main_streamed_in_order_ = sink_for_ && main->streamed_in_order();
  }
  streams_.clear();
  return capture;
}

namespace {

bool Load(PacketSource& source, CaptureBuilder& builder, const std::string& path, Capture* capture,
          std::string* error, const LoadProgressFn& progress) {
  uint32_t stream = 0;
  std::vector<uint8_t> packet;
  std::string damage;
  uint64_t records = 0;
  while (source.Next(&stream, &packet)) {
    std::string problem;
    CaptureBuilder::Status status = builder.Add(stream, packet.data(), packet.size(), &problem);
    if (status == CaptureBuilder::Status::kRefused) {
      *error = path + ": " + problem;
      return false;
    }
    if (status == CaptureBuilder::Status::kDamaged) {
      damage = problem;
      break;
    }
    if (progress && ++records % 64 == 0)
      progress({LoadProgress::Phase::kReading, source.bytes_read(), source.total_bytes()});
  }
  if (damage.empty()) damage = source.error();
  *capture = builder.Finish(std::move(damage), progress);
  return true;
}

}  // namespace

std::string OutOfMemoryError(const std::string& what) {
  return "out of memory while reading " + what + " (the capture needs more memory than this machine gives)";
}

bool LoadCapture(PacketSource& source, CaptureBuilder& builder, const std::string& name, Capture* capture,
                 std::string* error, const LoadProgressFn& progress) {
  bool ok = false;
  try {
    ok = Load(source, builder, name, capture, error, progress);
  } catch (const std::bad_alloc&) {
    *capture = Capture();
    *error = OutOfMemoryError(name);
  }
  if (progress) progress({LoadProgress::Phase::kDone, 0, 0});
  return ok;
}

bool LoadCapture(PacketSource& source, const std::string& name, Capture* capture, std::string* error,
                 const LoadProgressFn& progress) {
  CaptureBuilder builder(name);
  return LoadCapture(source, builder, name, capture, error, progress);
}

bool LoadCapture(const std::string& path, CaptureBuilder& builder, Capture* capture, std::string* error,
                 const LoadProgressFn& progress) {
  auto source = OpenCaptureFile(path, error);
  if (!source) {
    if (progress) progress({LoadProgress::Phase::kDone, 0, 0});
    return false;
  }
  return LoadCapture(*source, builder, path, capture, error, progress);
}

bool LoadCapture(const std::string& path, Capture* capture, std::string* error, const LoadProgressFn& progress) {
  CaptureBuilder builder(path);
  return LoadCapture(path, builder, capture, error, progress);
}

}  // namespace memframe::analysis
