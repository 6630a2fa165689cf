// The in-memory model of one capture: what the agent streams said, decoded
// and put in one global order. Analyses (frames, sites, leaks) read it; they
// never see protobuf.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/clock.h"

namespace memframe::analysis {

enum class EventKind : uint8_t { kNone = 0, kAlloc = 1, kFree = 2, kFrameEnd = 3, kMap = 4, kUnmap = 5, kMarker = 6 };
enum class Family : uint8_t { kMalloc = 0, kNew = 1, kNewArray = 2, kMmap = 3 };

// One decoded event. Kept at 40 bytes because a capture holds tens of
// millions of them; times stay in ticks and are converted on output.
struct Event {
  uint64_t ticks = 0;
  uint64_t address = 0;   // FRAME_END: marker id of the present entry point
  uint64_t size = 0;      // FRAME_END: number of the frame that ended; MARKER: marker id
  uint32_t stack_id = 0;  // 0 = no stack
  uint32_t frame = 0;     // the frame the event happened in
  uint32_t duration_ticks = 0;
  uint16_t thread = 0;    // index into Stream::threads
  uint8_t packed_kind = 0;  // EventKind | Family << 3 | flags, exactly as on the wire (format.h)

  EventKind kind() const { return static_cast<EventKind>(packed_kind & 0x7); }
  Family family() const { return static_cast<Family>((packed_kind >> 3) & 0x3); }
  bool is_realloc() const { return packed_kind & (1u << 5); }
  bool is_calloc() const { return packed_kind & (1u << 6); }
};
static_assert(sizeof(Event) <= 40, "Event is the unit of memory use; keep it small");

struct Segment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
};

struct Module {
  std::string path;
  uint64_t load_bias = 0;
  std::vector<Segment> segments;
  std::string build_id;  // raw bytes, empty if unknown
};

struct Thread {
  uint32_t tid = 0;
  std::string name;
  uint64_t first_ticks = 0;
  bool exited = false;
  uint64_t events = 0;
  uint64_t dropped = 0;  // events the agent dropped on this thread (drop mode)
};

// What Hello said about the process.
struct ProcessInfo {
  uint32_t protocol_version = 0;
  uint32_t pid = 0;
  uint32_t ppid = 0;
  std::string executable;
  std::vector<std::string> argv;
  std::string agent_version;
  uint32_t max_stack_depth = 0;
};

// One agent connection (one process).
struct Stream {
  uint32_t stream_id = 0;
  bool has_hello = false;
  ProcessInfo process;
  Clock clock;
  std::vector<Module> modules;  // every module ever reported, deduplicated by path + load bias
  std::unordered_map<uint32_t, std::vector<uint64_t>> stacks;  // id -> return addresses, innermost first
  std::unordered_map<uint32_t, std::string> markers;           // id -> name
  std::vector<Thread> threads;
  std::vector<Event> events;  // global order: by ticks, each thread's own order kept

  bool has_end = false;  // EndOfStream seen
  uint64_t end_events = 0;
  uint64_t end_dropped = 0;
  uint64_t end_last_frame = 0;
  std::string end_reason;
  uint64_t ticks_went_backwards = 0;  // events whose tick was raised to keep their thread's order
};

// Short description of a stream that was not analysed.
struct StreamSummary {
  uint32_t stream_id = 0;
  uint32_t pid = 0;
  std::string executable;
  uint64_t events = 0;
};

// What stream 0 (the recorder) said.
struct RecorderInfo {
  bool seen = false;
  std::string command_line;
  uint64_t start_unix_ns = 0;
  bool finished = false;  // the closing record was written
  int32_t exit_status = 0;  // valid when finished
  std::string recorder_version;
};

struct Capture {
  std::string path;
  RecorderInfo recorder;
  // The stream with the most events; the analyses look at this one only.
  Stream main;
  bool has_main = false;
  std::vector<StreamSummary> other_streams;
  // Non-empty when the file is damaged: everything before the damage is in
  // the model, nothing after it.
  std::string damage;

  // An EndOfStream was seen and the file was undamaged.
  bool complete() const { return has_main && main.has_end && damage.empty(); }
};

}  // namespace memframe::analysis
