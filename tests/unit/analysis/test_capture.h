// Builds small synthetic captures for tests: packets made with the generated
// protobuf classes, written with the real CaptureWriter. Header-only so that
// any test folder can include it.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "memframe.pb.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/wire_event.h"
#include "memframe/capture_file.h"
#include "memframe/event_codec.h"
#include "memframe/format.h"

namespace memframe::testing {

// One event as a test writes it; TestCapture::Batch delta-codes a list.
using TestEvent = wire::PlainEvent;

inline TestEvent Alloc(uint64_t ticks, uint64_t frame, uint64_t address, uint64_t size, uint32_t stack,
                       uint32_t duration = 0, uint32_t flags = 0, uint32_t family = wire::FAMILY_MALLOC) {
  return {wire::PackKind(wire::EVENT_ALLOC, family, flags), address, size, stack, ticks, frame, duration};
}
inline TestEvent Free(uint64_t ticks, uint64_t frame, uint64_t address, uint32_t duration = 0, uint32_t flags = 0,
                      uint32_t family = wire::FAMILY_MALLOC) {
  return {wire::PackKind(wire::EVENT_FREE, family, flags), address, 0, 0, ticks, frame, duration};
}
// An anonymous mapping of `size` bytes at `address` (mmap), and its undoing
// (munmap of any range).
inline TestEvent Map(uint64_t ticks, uint64_t frame, uint64_t address, uint64_t size, uint32_t stack) {
  return {wire::PackKind(wire::EVENT_MAP, wire::FAMILY_MMAP, 0), address, size, stack, ticks, frame, 0};
}
inline TestEvent Unmap(uint64_t ticks, uint64_t frame, uint64_t address, uint64_t size) {
  return {wire::PackKind(wire::EVENT_UNMAP, wire::FAMILY_MMAP, 0), address, size, 0, ticks, frame, 0};
}
// FRAME_END of `ended`, carrying the marker id of the present entry point.
inline TestEvent FrameEnd(uint64_t ticks, uint64_t ended, uint32_t marker = 1) {
  return {wire::PackKind(wire::EVENT_FRAME_END, 0, 0), marker, ended, 0, ticks, ended, 0};
}

// MARKER with the given marker id (names come from the stream's markers).
inline TestEvent Marker(uint64_t ticks, uint64_t frame, uint32_t id) {
  return {wire::PackKind(wire::EVENT_MARKER, 0, 0), 0, id, 0, ticks, frame, 0};
}

// The same events as analysis::Event, for tests that build a Stream directly.
// A GPU object event placed in `frame` (its tick is the frame number).
inline analysis::GpuEvent GpuObjectEvent(analysis::GpuOp op, analysis::GpuKind kind, uint64_t name, uint64_t bytes,
                                         uint64_t frame, uint32_t stack_id = 0) {
  analysis::GpuEvent e;
  e.op = op;
  e.kind = kind;
  e.name = name;
  e.bytes = bytes;
  e.frame = frame;
  e.ticks = frame;
  e.stack_id = stack_id;
  return e;
}

inline analysis::Event ToEvent(const TestEvent& t, uint16_t thread = 0) { return analysis::FromWire(t, thread); }

// A MAP or UNMAP (`kind`) of the mmap family, for a Stream built directly.
inline analysis::Event MapEvent(uint64_t ticks, uint64_t frame, analysis::EventKind kind, uint64_t address,
                                uint64_t size, uint32_t stack = 0, uint16_t thread = 0) {
  analysis::Event e;
  e.ticks = ticks;
  e.frame = frame;
  e.address = address;
  e.size = size;
  e.stack_id = stack;
  e.thread = thread;
  e.packed_kind = static_cast<uint8_t>(static_cast<uint32_t>(kind) | (wire::FAMILY_MMAP << wire::kFamilyShift));
  return e;
}

// A one-thread stream of `events` whose present marker (id 1) is
// glfwSwapBuffers, for tests that need no capture file.
inline analysis::Stream MakeStream(const std::vector<TestEvent>& events) {
  analysis::Stream s;
  s.threads.push_back({});
  s.markers[1] = "glfwSwapBuffers";
  for (const TestEvent& t : events) s.events.push_back(ToEvent(t));
  return s;
}

// The protocol version of the streams TestCapture writes: BatchPacket lays
// out batches as version 1 did (an address and a tick delta per event), which
// readers still read (FORMAT.md, "Version rule"); batches of the current
// version come from the agent's own encoder
// (tests/support/agent_stream_encoder.h).
constexpr uint32_t kTestBatchProtocol = 1;

class TestCapture {
 public:
  // Starts agent stream `stream` with a Hello (pid 42, "/opt/game") whose
  // clock pair is ticks 1000 = 1'000'000 ns.
  explicit TestCapture(uint32_t stream = 1) : stream_(stream) {
    wire::Packet p;
    wire::Hello* h = p.mutable_hello();
    h->set_protocol_version(kTestBatchProtocol);
    h->set_pid(42);
    h->set_executable("/opt/game");
    h->set_start_ticks(1000);
    h->set_start_monotonic_ns(1000000);
    Add(p);
  }

  void Add(const wire::Packet& packet) { Add(stream_, packet); }
  void Add(uint32_t stream, const wire::Packet& packet) { records_.emplace_back(stream, packet.SerializeAsString()); }
  void AddRaw(uint32_t stream, std::string bytes) { records_.emplace_back(stream, std::move(bytes)); }
  // The records so far, serialized (the first is the Hello).
  std::vector<wire::Packet> Packets() const {
    std::vector<wire::Packet> packets(records_.size());
    for (size_t i = 0; i < records_.size(); ++i) packets[i].ParseFromString(records_[i].second);
    return packets;
  }

  void Clock(uint64_t ticks, uint64_t ns) {
    wire::Packet p;
    p.mutable_clock()->set_ticks(ticks);
    p.mutable_clock()->set_monotonic_ns(ns);
    Add(p);
  }
  void Stack(uint32_t id, std::vector<uint64_t> frames) {
    wire::Packet p;
    wire::StackDef* s = p.mutable_stacks()->add_stacks();
    s->set_id(id);
    for (uint64_t f : frames) s->add_frames(f);
    Add(p);
  }
  void Marker(uint32_t id, const std::string& name) {
    wire::Packet p;
    wire::MarkerDef* m = p.mutable_markers()->add_markers();
    m->set_id(id);
    m->set_name(name);
    Add(p);
  }
  void Module(const std::string& path, uint64_t load_bias, uint64_t vaddr, uint64_t memsz) {
    wire::Packet p;
    wire::Module* m = p.mutable_module_map()->add_modules();
    m->set_path(path);
    m->set_load_bias(load_bias);
    m->add_segments()->set_vaddr(vaddr);
    m->mutable_segments(0)->set_memsz(memsz);
    Add(p);
  }
  void Thread(uint32_t tid, const std::string& name) {
    wire::Packet p;
    p.mutable_thread()->set_thread_id(tid);
    p.mutable_thread()->set_name(name);
    Add(p);
  }
  // Encodes `events` of thread `tid` as one EventBatch, columns delta-coded
  // the way the agent does (address from 0, ticks and frame from the bases).
  // Frame deltas must fit the wire's uint32 column (the agent starts a new
  // batch where they do not): put larger jumps in separate batches. A frame
  // below the previous one (the agent never writes one) is written as the
  // uint32 wrap-around, as this helper always has (golden SlicesOnly's
  // bytes); a reader takes it as a jump forward.
  static wire::Packet BatchPacket(uint32_t tid, const std::vector<TestEvent>& events) {
    wire::Packet p;
    wire::EventBatch* b = p.mutable_events();
    b->set_thread_id(tid);
    uint64_t base_ticks = events.empty() ? 0 : events[0].ticks;
    uint64_t base_frame = events.empty() ? 0 : events[0].frame;
    b->set_base_ticks(base_ticks);
    b->set_base_frame(base_frame);
    uint64_t address = 0, ticks = base_ticks;
    uint64_t frame = base_frame;
    bool heaps = false;  // the heap column, when an ALLOC names a private heap
    for (const TestEvent& e : events) heaps = heaps || e.heap;
    for (const TestEvent& e : events) {
      if (heaps && wire::KindOf(e.kind) == wire::EVENT_ALLOC) b->add_heap(e.heap);
      b->add_kind(e.kind);
      b->add_address_delta(static_cast<int64_t>(e.address - address));
      b->add_size(e.size);
      b->add_stack_id(e.stack_id);
      b->add_ticks_delta(e.ticks - ticks);
      if (e.frame > frame && e.frame - frame > UINT32_MAX)
        throw std::out_of_range("a frame delta past the uint32 column: split the batch");
      b->add_frame_delta(static_cast<uint32_t>(e.frame - frame));
      b->add_duration_ticks(e.duration);
      address = e.address;
      ticks = e.ticks;
      frame = e.frame;
    }
    return p;
  }
  void Batch(uint32_t tid, const std::vector<TestEvent>& events) { Add(BatchPacket(tid, events)); }
  void End(uint64_t events = 0) {
    wire::Packet p;
    p.mutable_end()->set_events(events);
    p.mutable_end()->set_reason("exit");
    Add(p);
  }
  // termination_signal: the signal that killed the program (0: it exited).
  void Recorder(bool finished, int exit_status, int termination_signal = 0) {
    wire::Packet p;
    p.mutable_recorder()->set_command_line("memframe run /opt/game");
    p.mutable_recorder()->set_finished(finished);
    p.mutable_recorder()->set_exit_status(exit_status);
    p.mutable_recorder()->set_termination_signal(termination_signal);
    Add(0, p);
  }

  // Writes the capture; each record is flushed as its own zstd block so that
  // cutting the file anywhere leaves the earlier records readable.
  bool Write(const std::string& path) const {
    std::string error;
    auto writer = wire::CaptureWriter::Create(path, &error);
    if (!writer) return false;
    for (const auto& [stream, bytes] : records_) {
      if (!writer->Append(stream, bytes.data(), bytes.size()) || !writer->Flush()) return false;
    }
    return writer->Close();
  }

 private:
  uint32_t stream_;
  std::vector<std::pair<uint32_t, std::string>> records_;
};

// A file path in the test's temporary directory, removed when it goes away.
class TempPath {
 public:
  explicit TempPath(const std::string& name)
      : path_(TempDirectory() + "/memframe_" + std::to_string(getpid()) + "_" + name) {}
  // The reports leave a summary index beside a capture (summary_index.h).
  ~TempPath() {
    unlink(path_.c_str());
    unlink((path_ + ".mfi").c_str());
  }
  const std::string& path() const { return path_; }

  std::string ReadAll() const {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void WriteAll(const std::string& bytes) const { std::ofstream(path_, std::ios::binary) << bytes; }

 private:
  static std::string TempDirectory() {
    const char* dir = getenv("TEST_TMPDIR");
    if (!dir) dir = getenv("TMPDIR");
    return dir ? dir : "/tmp";
  }
  std::string path_;
};

}  // namespace memframe::testing
