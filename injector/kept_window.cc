#include "kept_window.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "memframe/capture_file.h"
#include "memframe/event_codec.h"
#include "memframe/format.h"
#include "memframe/output_file.h"
#include "memframe/varint.h"

namespace memframe::injector {

namespace {

// zstd level of the segments and of a saved window: the recorder's (run_command.cc).
constexpr int kZstdLevel = 1;
// Frames the totals follow before they stop growing: 77 hours at 60 a
// second (frame numbers that jump further are not a game's).
constexpr uint64_t kMaxTotalFrames = uint64_t{1} << 24;
// A segment is this part of DURATION: the window on disk is DURATION plus
// at most one segment.
constexpr int kSegmentsPerWindow = 4;

volatile sig_atomic_t g_save_requested = 0;
void OnSaveSignal(int) { g_save_requested = 1; }

uint64_t UnixNs() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

bool IsWindowStart(const std::vector<uint8_t>& packet) {
  const uint8_t* p = packet.data();
  uint64_t tag = 0;
  return wire::ReadVarint(&p, packet.data() + packet.size(), &tag) &&
         tag >> 3 == static_cast<uint64_t>(wire::Packet::kWindowStartFieldNumber);
}

bool AppendPacket(wire::CaptureWriter& writer, uint32_t stream, const wire::Packet& packet) {
  std::string bytes = packet.SerializeAsString();
  return writer.Append(stream, bytes.data(), bytes.size());
}

// A mark's name as part of a file name.
std::string FileWord(const std::string& text) {
  std::string word;
  for (char c : text) word += isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return word.empty() ? "window" : word;
}

}  // namespace

struct KeptWindow::Stream {
  struct Counts {
    uint64_t allocs = 0, frees = 0, allocated = 0, freed = 0;
  };
  wire::EventBatchDecoder decoder{wire::kProtocolVersion};
  std::vector<std::string> definitions;  // Hello first, in arrival order
  bool clock_kept = false;
  bool ended = false;
  bool decode_failed = false;
  std::unordered_map<uint64_t, uint64_t> live;  // heap block -> bytes
  bool any_frame = false;
  uint64_t last_frame = 0;  // the highest frame number of its events so far
  uint64_t events = 0;
  uint64_t first_frame = 0;  // of `frames`
  std::vector<Counts> frames;
  std::vector<wire::PlainEvent> decoded;
};

struct KeptWindow::Segment {
  std::string path;
  std::chrono::steady_clock::time_point opened;
  uint64_t opened_unix_ns = 0;
  std::map<uint32_t, size_t> definitions;  // streams open then: how many definitions each had
  uint64_t records_before = 0, events_before = 0;
  uint64_t bytes = 0;
};

std::unique_ptr<KeptWindow> KeptWindow::Create(const std::string& output, uint64_t keep_last_ms,
                                               const wire::RecorderInfo& header, std::ostream& log,
                                               std::string* error) {
  std::string directory = output + ".window";
  if (mkdir(directory.c_str(), 0700) != 0) {
    *error = "cannot create " + directory + " for the window's segments: " + strerror(errno) +
             (errno == EEXIST ? " (another run's? remove it)" : "");
    return nullptr;
  }
  return std::unique_ptr<KeptWindow>(new KeptWindow(output, directory, keep_last_ms, header, log));
}

KeptWindow::KeptWindow(std::string output, std::string directory, uint64_t keep_last_ms,
                       const wire::RecorderInfo& header, std::ostream& log)
    : output_(std::move(output)),
      directory_(std::move(directory)),
      keep_last_(keep_last_ms),
      segment_length_(std::max<uint64_t>(keep_last_ms / kSegmentsPerWindow, 1)),
      header_(header),
      log_(log) {
  header_.mutable_kept_window()->set_keep_last_ms(keep_last_ms);
}

void KeptWindow::SetHeader(const wire::RecorderInfo& header) {
  header_ = header;
  header_.mutable_kept_window()->set_keep_last_ms(static_cast<uint64_t>(keep_last_.count()));
}

KeptWindow::~KeptWindow() {
  if (writer_) writer_->Close();
  for (const Segment& segment : segments_) remove(segment.path.c_str());
  rmdir(directory_.c_str());
}

void KeptWindow::WatchSignal() {
  struct sigaction action {};
  action.sa_handler = OnSaveSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: the recorder's poll returns at once
  sigaction(SIGUSR1, &action, nullptr);
}

bool KeptWindow::TakeSignal() {
  if (!g_save_requested) return false;
  g_save_requested = 0;
  return true;
}

bool KeptWindow::Fail(const std::string& why) {
  if (error_.empty()) log_ << "memframe: " << why << "; the window stops here\n";
  error_ = why;
  return false;
}

bool KeptWindow::OpenSegment() {
  Segment segment;
  segment.path = directory_ + "/segment-" + std::to_string(next_segment_++) + ".mfc";
  segment.opened = std::chrono::steady_clock::now();
  segment.opened_unix_ns = UnixNs();
  segment.records_before = records_;
  segment.events_before = events_;
  std::string error;
  writer_ = wire::CaptureWriter::Create(segment.path, &error, kZstdLevel);
  if (!writer_) return Fail(error);
  // The state each stream's later batches need, at the segment's head.
  for (auto& [id, stream] : streams_) {
    if (stream->ended) continue;
    segment.definitions[id] = stream->definitions.size();
    wire::Packet packet;
    wire::WindowStart* start = packet.mutable_window_start();
    stream->decoder.SaveState(start);
    start->set_first_frame(stream->any_frame ? stream->last_frame + 1 : 0);
    start->set_dropped_events(stream->events);
    if (!AppendPacket(*writer_, id, packet)) return Fail(writer_->error());
  }
  segments_.push_back(std::move(segment));
  max_segments_ = std::max(max_segments_, segments_.size());
  return true;
}

bool KeptWindow::CloseSegment() {
  if (!writer_) return true;
  bool closed = writer_->Close();
  segments_.back().bytes = writer_->bytes_written();
  writer_.reset();
  return closed || Fail("cannot write the segment " + segments_.back().path);
}

void KeptWindow::DropExpiredSegments() {
  const auto start = std::chrono::steady_clock::now() - keep_last_;
  while (segments_.size() >= 2 && segments_[1].opened <= start) {
    remove(segments_.front().path.c_str());
    disk_bytes_ -= segments_.front().bytes;
    segments_.erase(segments_.begin());
  }
}

void KeptWindow::Follow(Stream& stream, const wire::Packet& packet) {
  switch (packet.body_case()) {
    case wire::Packet::kEvents: {
      stream.decoded.clear();
      std::string error;
      if (stream.decode_failed || !stream.decoder.Decode(packet.events(), &stream.decoded, &error)) {
        if (!stream.decode_failed) log_ << "memframe: the window cannot follow a stream (" << error << ")\n";
        stream.decode_failed = true;
        return;
      }
      for (const wire::PlainEvent& e : stream.decoded) {
        ++stream.events;
        ++events_;
        if (!stream.any_frame || e.frame > stream.last_frame) stream.last_frame = e.frame;
        if (!stream.any_frame) stream.first_frame = e.frame;
        stream.any_frame = true;
        const uint32_t kind = wire::KindOf(e.kind);
        if ((kind != wire::EVENT_ALLOC && kind != wire::EVENT_FREE) || (e.kind & wire::kFlagCustom)) continue;
        if (e.frame < stream.first_frame) {
          if (stream.first_frame - e.frame + stream.frames.size() > kMaxTotalFrames) continue;
          stream.frames.insert(stream.frames.begin(), stream.first_frame - e.frame, {});
          stream.first_frame = e.frame;
        }
        const uint64_t at = e.frame - stream.first_frame;
        if (at >= kMaxTotalFrames) continue;
        if (at >= stream.frames.size()) stream.frames.resize(at + 1);
        Stream::Counts& counts = stream.frames[at];
        if (kind == wire::EVENT_ALLOC) {
          ++counts.allocs;
          counts.allocated += e.size;
          stream.live[e.address] = e.size;
        } else {
          ++counts.frees;
          auto block = stream.live.find(e.address);
          if (block != stream.live.end()) {
            counts.freed += block->second;
            stream.live.erase(block);
          }
        }
      }
      return;
    }
    case wire::Packet::kGpu: return;  // in the segments only
    case wire::Packet::kEnd: stream.ended = true; return;
    case wire::Packet::kClock:
      if (stream.clock_kept) return;
      stream.clock_kept = true;
      break;
    default: break;
  }
  stream.definitions.push_back(packet.SerializeAsString());
}

bool KeptWindow::Add(uint32_t stream, const void* data, size_t size) {
  if (!error_.empty()) return false;
  if (!writer_ && !OpenSegment()) return false;
  wire::Packet packet;
  bool parsed = packet.ParseFromArray(data, static_cast<int>(size));
  if (stream != 0) {
    auto& followed = streams_[stream];
    if (!followed) followed = std::make_unique<Stream>();
    if (parsed) Follow(*followed, packet);
    ++records_;
  }
  if (!writer_->Append(stream, data, size)) return Fail(writer_->error());
  disk_bytes_ += size;  // the open segment's records uncompressed: more than it takes
  max_disk_bytes_ = std::max(max_disk_bytes_, disk_bytes_);
  if (stream == 0 && parsed && packet.has_snapshot()) {
    SaveBeside(packet.snapshot().name(), "mark '" + packet.snapshot().name() + "'");
  } else if (std::chrono::steady_clock::now() - segments_.back().opened >= segment_length_) {
    if (!CloseSegment()) return false;
    disk_bytes_ = 0;  // the closed segments' bytes as written, no longer the records' as given
    for (const Segment& s : segments_) disk_bytes_ += s.bytes;
  }
  DropExpiredSegments();
  return true;
}

bool KeptWindow::Flush() { return !writer_ || writer_->Flush() || Fail(writer_->error()); }

wire::FrameTotals KeptWindow::Totals(uint32_t id, const Stream& stream) const {
  wire::FrameTotals totals;
  totals.set_stream(id);
  totals.set_first_frame(stream.first_frame);
  uint64_t live = 0;
  for (const Stream::Counts& c : stream.frames) {
    totals.add_allocs(c.allocs);
    totals.add_frees(c.frees);
    totals.add_allocated_bytes(c.allocated);
    totals.add_freed_bytes(c.freed);
    live += c.allocated - c.freed;
    totals.add_live_bytes(live);
  }
  return totals;
}

bool KeptWindow::Save(const std::string& path, wire::RecorderInfo closing, const std::string& saved_for, bool force,
                      std::string* error) {
  if (!CloseSegment()) {
    *error = error_;
    return false;
  }
  OutputPolicy policy = wire::CapturePolicy();
  if (!force) policy.existing = OutputPolicy::Existing::kRefuse;
  std::unique_ptr<wire::CaptureWriter> out = wire::CaptureWriter::Create(path, error, kZstdLevel, policy);
  if (!out) return false;
  wire::KeptWindow kept;
  kept.set_keep_last_ms(static_cast<uint64_t>(keep_last_.count()));
  kept.set_saved_for(saved_for);
  if (!segments_.empty()) {
    kept.set_first_unix_ns(segments_.front().opened_unix_ns);
    kept.set_dropped_records(segments_.front().records_before);
    kept.set_dropped_events(segments_.front().events_before);
  }
  auto fail = [&](const std::string& why) {
    *error = why.empty() ? "cannot write " + path : why;
    out->Close();
    return false;
  };
  wire::Packet head;
  *head.mutable_recorder() = header_;
  *head.mutable_recorder()->mutable_kept_window() = kept;
  if (!AppendPacket(*out, 0, head)) return fail(out->error());
  if (!segments_.empty()) {
    for (const auto& [id, count] : segments_.front().definitions) {
      const Stream& stream = *streams_.at(id);
      for (size_t i = 0; i < count; ++i)
        if (!out->Append(id, stream.definitions[i].data(), stream.definitions[i].size())) return fail(out->error());
    }
  }
  for (size_t k = 0; k < segments_.size(); ++k) {
    std::unique_ptr<wire::CaptureReader> reader = wire::CaptureReader::Open(segments_[k].path, error);
    if (!reader) return fail(*error);
    wire::CaptureRecord record;
    while (reader->Next(&record)) {
      // Only the oldest segment's head starts the window; a later one's
      // repeats what its reader knows by then.
      if (k > 0 && IsWindowStart(record.packet)) continue;
      if (!out->Append(record.stream, record.packet.data(), record.packet.size())) return fail(out->error());
    }
    if (!reader->error().empty()) return fail("segment " + segments_[k].path + ": " + reader->error());
  }
  for (const auto& [id, stream] : streams_) {
    wire::Packet totals;
    *totals.mutable_frame_totals() = Totals(id, *stream);
    if (!AppendPacket(*out, 0, totals)) return fail(out->error());
  }
  wire::Packet end;
  *end.mutable_recorder() = std::move(closing);
  end.mutable_recorder()->set_finished(true);
  *end.mutable_recorder()->mutable_kept_window() = kept;
  if (!AppendPacket(*out, 0, end) || !out->Close()) return fail(out->error());
  return true;
}

void KeptWindow::SaveBeside(const std::string& what, const std::string& saved_for) {
  std::string stem = output_;
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".mfc") == 0) stem.resize(stem.size() - 4);
  stem += "-" + FileWord(what);
  std::string path = stem + ".mfc";
  struct stat st {};
  for (int n = 2; lstat(path.c_str(), &st) == 0; ++n) path = stem + "-" + std::to_string(n) + ".mfc";
  wire::RecorderInfo closing = header_;
  closing.set_detached(true);  // the program runs on: its live blocks are no leaks
  std::string error;
  if (Save(path, closing, saved_for, false, &error))
    log_ << "memframe: window saved to " << path << " (" << saved_for << ")\n";
  else
    log_ << "memframe: cannot save the window (" << saved_for << ") to " << path << ": " << error << '\n';
}

}  // namespace memframe::injector
