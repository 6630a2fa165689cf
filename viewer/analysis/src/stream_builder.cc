#include "stream_builder.h"

#include <algorithm>

#include "memframe/analysis/frame_source.h"
#include "memframe/analysis/gpu_objects.h"

#include "allocator_release.h"
#include "event_decoder.h"
#include "memframe/format.h"

namespace memframe::analysis {

namespace {
// Event::thread is 16 bits wide; a process that starts more threads than
// this over one capture has its later ones folded into the last index.
constexpr size_t kMaxThreads = 0xffff;
// The agent declares at most 256 allocators; far more is damage, not a game.
constexpr size_t kMaxAllocators = 1u << 16;
}  // namespace

StreamBuilder::StreamBuilder(uint32_t stream_id) { stream_.stream_id = stream_id; }

void StreamBuilder::StreamEventsTo(EventSink* sink) { streaming_ = std::make_unique<EventStreaming>(&stream_, sink); }

uint16_t StreamBuilder::ThreadIndex(uint32_t tid) {
  auto it = thread_index_.find(tid);
  if (it != thread_index_.end()) return it->second;
  if (stream_.threads.size() >= kMaxThreads) return static_cast<uint16_t>(kMaxThreads - 1);
  auto index = static_cast<uint16_t>(stream_.threads.size());
  Thread t;
  t.tid = tid;
  stream_.threads.push_back(t);
  runs_.emplace_back();
  last_ticks_.push_back(0);
  thread_index_.emplace(tid, index);
  return index;
}

void StreamBuilder::AddModules(const wire::ModuleMap& map) {
  for (const wire::Module& m : map.modules()) {
    if (!module_keys_.emplace(m.path(), m.load_bias()).second) continue;
    Module module;
    module.path = m.path();
    module.load_bias = m.load_bias();
    module.build_id = m.build_id();
    for (const wire::Segment& s : m.segments()) module.segments.push_back({s.vaddr(), s.memsz()});
    stream_.modules.push_back(std::move(module));
  }
}

// Each name goes to the module holding its address (the last one reported
// there, should a module have been unloaded and another loaded in its place).
void StreamBuilder::AddSymbols(const wire::SymbolDefs& defs) {
  for (const wire::SymbolDef& d : defs.symbols()) {
    for (auto m = stream_.modules.rbegin(); m != stream_.modules.rend(); ++m) {
      auto [start, end] = m->AddressRange();
      if (d.address() < start || d.address() >= end) continue;
      m->recorded_symbols[d.address() - m->load_bias] = {d.function(), d.file(), d.line()};
      break;
    }
  }
}

CaptureBuilder::Status StreamBuilder::Add(const wire::Packet& packet, std::string* error) {
  // An agent says Hello once, first, and nothing after its EndOfStream: a
  // stream that goes on is two recordings in one (a capture's body appended
  // to itself), whose figures would all count twice.
  const bool again = packet.body_case() == wire::Packet::kHello && stream_.has_hello;
  if (again || stream_.has_end) {
    *error = "capture is corrupt: stream " + std::to_string(stream_.stream_id) +
             (again ? " says Hello a second time" : " goes on after its end record") +
             " (a capture's records appended to it again?)";
    return CaptureBuilder::Status::kDamaged;
  }
  switch (packet.body_case()) {
    case wire::Packet::kHello: {
      const wire::Hello& h = packet.hello();
      if (h.protocol_version() < wire::kOldestReadableProtocol || h.protocol_version() > wire::kProtocolVersion) {
        *error = "stream " + std::to_string(stream_.stream_id) + " speaks protocol version " +
                 std::to_string(h.protocol_version()) + "; this build reads versions " +
                 std::to_string(wire::kOldestReadableProtocol) + " to " + std::to_string(wire::kProtocolVersion);
        return CaptureBuilder::Status::kRefused;
      }
      if (!decoder_) decoder_ = std::make_unique<wire::EventBatchDecoder>(h.protocol_version());
      stream_.has_hello = true;
      ProcessInfo& p = stream_.process;
      p.protocol_version = h.protocol_version();
      p.pid = h.pid();
      p.ppid = h.ppid();
      p.executable = h.executable();
      p.argv.assign(h.argv().begin(), h.argv().end());
      p.agent_version = h.agent_version();
      p.max_stack_depth = h.max_stack_depth();
      p.attached = h.attached();
      if (h.has_own_allocator()) {
        const wire::OwnAllocator& own = h.own_allocator();
        p.own_allocator.present = true;
        p.own_allocator.name = own.name();
        p.own_allocator.hooked.assign(own.hooked().begin(), own.hooked().end());
        p.own_allocator.refused.assign(own.refused().begin(), own.refused().end());
      }
      for (const wire::AllocatorApi& api : h.allocator_apis())
        p.allocator_apis.push_back({api.name(), api.library(), {api.hooked().begin(), api.hooked().end()}});
      stream_.clock.AddPair(h.start_ticks(), h.start_monotonic_ns());
      return CaptureBuilder::Status::kOk;
    }
    case wire::Packet::kModuleMap:
      AddModules(packet.module_map());
      return CaptureBuilder::Status::kOk;
    case wire::Packet::kStacks:
      // The agent never sends a deeper stack; a crafted one of millions of
      // frames would be kept and symbolized frame by frame.
      for (const wire::StackDef& s : packet.stacks().stacks()) {
        if (static_cast<uint32_t>(s.frames_size()) > wire::kMaxStackDepth) {
          *error = "stream " + std::to_string(stream_.stream_id) + ": stack " + std::to_string(s.id()) + " has " +
                   std::to_string(s.frames_size()) + " frames (an agent sends at most " +
                   std::to_string(wire::kMaxStackDepth) + ")";
          return CaptureBuilder::Status::kDamaged;
        }
      }
      for (const wire::StackDef& s : packet.stacks().stacks())
        stream_.stacks[s.id()].assign(s.frames().begin(), s.frames().end());
      return CaptureBuilder::Status::kOk;
    case wire::Packet::kMarkers:
      for (const wire::MarkerDef& m : packet.markers().markers()) stream_.markers[m.id()] = m.name();
      return CaptureBuilder::Status::kOk;
    case wire::Packet::kAllocators:
      for (const wire::AllocatorDef& d : packet.allocators().allocators()) {
        if (d.id() == 0 || d.id() > kMaxAllocators) {
          *error = "stream " + std::to_string(stream_.stream_id) + ": allocator id " + std::to_string(d.id()) +
                   " (ids run from 1 to " + std::to_string(kMaxAllocators) + ")";
          return CaptureBuilder::Status::kDamaged;
        }
        AllocatorInfo a;
        a.id = d.id();
        a.name = d.name();
        const int kind = d.kind();  // an open enum: a newer writer's kind is "other" here
        a.kind = kind >= 0 && kind <= wire::AllocatorKind_MAX ? static_cast<AllocatorKind>(kind) : AllocatorKind::kOther;
        a.base = d.base();
        a.capacity = d.capacity();
        a.stack_id = d.stack_id();
        a.thread_id = d.thread_id();
        a.ticks = d.ticks();
        auto at = std::lower_bound(stream_.allocators.begin(), stream_.allocators.end(), a.id,
                                   [](const AllocatorInfo& x, uint32_t id) { return x.id < id; });
        if (at != stream_.allocators.end() && at->id == a.id)
          *at = std::move(a);
        else
          stream_.allocators.insert(at, std::move(a));
      }
      if (streaming_) streaming_->AllocatorsChanged();
      return CaptureBuilder::Status::kOk;
    case wire::Packet::kThread: {
      const wire::ThreadInfo& info = packet.thread();
      Thread& t = stream_.threads[ThreadIndex(info.thread_id())];
      if (!info.name().empty()) {
        t.name = info.name();
        t.memframe = t.name == wire::kWriterThreadName;
      }
      if (info.first_ticks()) t.first_ticks = info.first_ticks();
      t.exited = t.exited || info.exited();
      return CaptureBuilder::Status::kOk;
    }
    case wire::Packet::kClock:
      stream_.clock.AddPair(packet.clock().ticks(), packet.clock().monotonic_ns());
      return CaptureBuilder::Status::kOk;
    case wire::Packet::kEvents: {
      const wire::EventBatch& batch = packet.events();
      uint16_t thread = ThreadIndex(batch.thread_id());
      ThreadRun& run = runs_[thread];
      decoded_.clear();
      // A stream must start with its Hello; one that does not is read as
      // this build writes.
      if (!decoder_) decoder_ = std::make_unique<wire::EventBatchDecoder>(wire::kProtocolVersion);
      if (!DecodeEventBatch(*decoder_, batch, thread, &last_ticks_[thread], &stream_.ticks_went_backwards, &decoded_, error)) {
        *error = "stream " + std::to_string(stream_.stream_id) + ": " + *error;
        return CaptureBuilder::Status::kDamaged;
      }
      if (streaming_) {
        streaming_->AddBatch(thread, decoded_, batches_);
      } else {
        if (!decoded_.empty()) run.batches.push_back({run.events.size(), batches_});
        for (const Event& e : decoded_) run.events.push_back(e);
      }
      ++batches_;
      event_count_ += decoded_.size();
      Thread& t = stream_.threads[thread];
      t.events += decoded_.size();
      t.dropped += batch.dropped();
      return CaptureBuilder::Status::kOk;
    }
    case wire::Packet::kEnd:
      stream_.has_end = true;
      stream_.end_events = packet.end().events();
      stream_.end_dropped = packet.end().dropped();
      stream_.end_last_frame = packet.end().last_frame();
      stream_.end_unrecorded_in_signal_handlers = packet.end().unrecorded_in_signal_handlers();
      stream_.end_reason = packet.end().reason();
      return CaptureBuilder::Status::kOk;
    case wire::Packet::kSymbols:
      AddSymbols(packet.symbols());
      return CaptureBuilder::Status::kOk;
    case wire::Packet::kWindowStart: {
      // A kept window: the batches after it decode from the recorder's
      // state, and blocks allocated before it are unknown, as at an attach.
      const wire::WindowStart& w = packet.window_start();
      if (!decoder_) decoder_ = std::make_unique<wire::EventBatchDecoder>(wire::kProtocolVersion);
      if (batches_ > 0 || !decoder_->RestoreState(w, error)) {
        if (batches_ > 0) *error = "a window start after the stream's events";
        *error = "stream " + std::to_string(stream_.stream_id) + ": " + *error;
        return CaptureBuilder::Status::kDamaged;
      }
      stream_.process.attached = true;
      stream_.process.window = {true, w.first_frame(), w.dropped_events()};
      return CaptureBuilder::Status::kOk;
    }
    case wire::Packet::kGpu:
      return AddGpuEvents(packet.gpu(), error);
    case wire::Packet::kRecorder:  // only valid on stream 0; harmless elsewhere
    case wire::Packet::kSnapshot:
    case wire::Packet::kLiveStart:
    case wire::Packet::kFrameTotals:  // a kept window's, read from stream 0
    case wire::Packet::BODY_NOT_SET:  // a newer writer's message: skip it
      return CaptureBuilder::Status::kOk;
  }
  return CaptureBuilder::Status::kOk;
}

void StreamBuilder::AddSnapshotMarkers(const std::vector<RecorderSnapshot>& snapshots) {
  // A marker belongs to a thread; the first one (the main thread, as the
  // agent starts there) is as good as any, and no thread run is touched: the
  // markers are a run of their own, merged like a thread's (run index is
  // not thread index), arriving after every batch for equal ticks.
  if (snapshots.empty() || stream_.threads.empty()) return;
  if (streaming_) return streaming_->RecorderSnapshots();
  uint32_t id = 0xffff0000u;  // agents number markers from 1 upwards
  ThreadRun run;
  uint64_t last_ticks = 0;
  for (const RecorderSnapshot& snapshot : snapshots) {
    while (stream_.markers.count(id)) ++id;
    stream_.markers[id] = snapshot.name;
    snapshot_marker_ids_.push_back(id);
    Event e;
    // Snapshots are written in the order they were taken; a run must not go
    // backwards even if the clock mapping wobbles.
    e.ticks = last_ticks = std::max(last_ticks, stream_.clock.ToTicks(static_cast<int64_t>(snapshot.monotonic_ns)));
    e.size = id++;
    e.packed_kind = static_cast<uint8_t>(EventKind::kMarker);
    e.thread = 0;
    run.events.push_back(e);
  }
  run.batches.push_back({0, batches_++});
  runs_.push_back(std::move(run));
}

Stream StreamBuilder::Finish(const MergeProgress& progress) {
  if (streaming_) {
    streamed_in_order_ = streaming_->Finish(&stream_.handoffs_repaired, &stream_.streamed_events);
    streaming_.reset();
    PlaceGpuEvents(&stream_);  // no events kept: the agent's frame numbers stand
    return std::move(stream_);
  }
  MergeStats merge;
  stream_.events = MergeThreadRuns(runs_, progress, &merge);
  stream_.handoffs_repaired = merge.handoffs_repaired;
  ExpandAllocatorReleases(&stream_);
  if (!snapshot_marker_ids_.empty()) {
    // A snapshot happened in the frame of the event before it, or in the
    // next one after a FRAME_END (time slices do not advance the count).
    decltype(Event::frame) frame = 0;
    stream_.events.Rewrite([this, &frame](Event& e) {
      bool snapshot = e.kind() == EventKind::kMarker && e.size >= snapshot_marker_ids_.front() &&
                      std::binary_search(snapshot_marker_ids_.begin(), snapshot_marker_ids_.end(),
                                         static_cast<uint32_t>(e.size));
      if (snapshot) {
        e.frame = frame;
      } else if (e.kind() == EventKind::kFrameEnd) {
        auto marker = stream_.markers.find(static_cast<uint32_t>(e.address));
        bool slice = marker != stream_.markers.end() && marker->second == kTimeSliceMarker;
        frame = slice ? e.frame : e.frame + 1;
      } else {
        frame = e.frame;
      }
      return true;
    });
  }
  ResolveFrameSource(stream_);
  PlaceGpuEvents(&stream_);
  return std::move(stream_);
}

CaptureBuilder::Status StreamBuilder::AddGpuEvents(const wire::GpuEvents& batch, std::string* error) {
  for (const wire::GpuEvent& w : batch.events()) {
    if (w.op() > wire::GpuOp_MAX || w.kind() > wire::GpuObjectKind_MAX || w.basis() > wire::GpuSizeBasis_MAX) {
      // Open enums: a newer writer's op or kind means nothing here.
      continue;
    }
    if (w.face() > 5 || (w.stack_id() != 0 && !stream_.stacks.count(w.stack_id()))) {
      *error = "stream " + std::to_string(stream_.stream_id) + ": a GPU event names cube face " +
               std::to_string(w.face()) + " or an undefined stack " + std::to_string(w.stack_id());
      return CaptureBuilder::Status::kDamaged;
    }
    GpuEvent e;
    e.ticks = w.ticks();
    e.frame = w.frame();
    e.name = w.name();
    e.bytes = w.bytes();
    e.memory = w.memory();
    e.offset = w.offset();
    e.op = static_cast<GpuOp>(w.op());
    e.kind = static_cast<GpuKind>(w.kind());
    e.basis = static_cast<GpuSizeBasis>(w.basis());
    e.face = static_cast<uint8_t>(w.face());
    e.context = w.context();
    e.format = w.format();
    e.target = w.target();
    e.width = w.width();
    e.height = w.height();
    e.depth = w.depth();
    e.levels = w.levels();
    e.samples = w.samples();
    e.level = w.level();
    e.memory_type = w.memory_type();
    e.memory_heap = w.memory_heap();
    e.memory_flags = w.memory_flags();
    e.stack_id = w.stack_id();
    e.thread = ThreadIndex(w.thread_id());
    stream_.gpu_events.push_back(e);
  }
  stream_.gpu_dropped += batch.dropped();
  return CaptureBuilder::Status::kOk;
}

StreamSummary StreamBuilder::Summary() const {
  return {stream_.stream_id, stream_.process.pid, stream_.process.executable, event_count_};
}

}  // namespace memframe::analysis
