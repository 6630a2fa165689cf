// The Perfetto export (export.h): a perfetto.protos.Trace (proto/perfetto)
// of one packet sequence holding
//   - a process track and a track per thread (Track/Process/ThreadDescriptor);
//   - on the presenting thread, a slice per phase enclosing a slice per
//     frame, each frame's figures as debug annotations;
//   - a counter track per figure (live heap, mapped bytes, allocations, bytes
//     allocated, allocator time), set at each frame's start to the frame's
//     value, as chrome-json does, and the live heap, mapped bytes,
//     allocations and bytes allocated of each module class present;
//   - with GPU objects (gpu_objects.h), "GPU live bytes" and one track per
//     kind made ("GPU live bytes (texture)"), set as the heap's;
//   - markers as instants on the thread that placed them;
//   - a heapprofd-style ProfilePacket at each marker and at the end: per
//     call stack, what was allocated and freed up to that moment.
// Timestamps are the capture's CLOCK_MONOTONIC nanoseconds, written in the
// trace's default clock: Perfetto shows them relative to the trace's start.
#include <map>
#include <unordered_map>

#include "memframe/analysis/event_pass.h"
#include "memframe/report/export.h"
#include "memframe/analysis/frame_timeline.h"
#include "memframe/analysis/gpu_objects.h"
#include "memframe/analysis/live_series.h"
#include "memframe/analysis/live_set.h"
#include "protos/perfetto/trace/trace.pb.h"

namespace memframe::analysis {

namespace {

namespace pf = perfetto::protos;

constexpr uint32_t kSequence = 1;
constexpr uint64_t kProcessTrack = 1;
constexpr uint64_t kFirstCounterTrack = 10;
constexpr uint64_t kFirstClassTrack = 20;  // + class * std::size(kClassCounters) + counter
constexpr uint64_t kGpuTrack = 90;  // the GPU total; + kind: that kind's
constexpr uint64_t kFirstThreadTrack = 100;
static_assert(kGpuTrack + kGpuKinds <= kFirstThreadTrack);

// Cumulative figures of one call stack, as heapprofd reports them.
struct StackCounts {
  uint64_t allocs = 0, frees = 0, allocated = 0, freed = 0;
};

struct HeapDump {
  std::string name;  // the marker's, or "end"
  int64_t ns = 0;
  std::map<uint32_t, StackCounts> stacks;  // by stack id: a reproducible file
};

// One replay: the per-stack counts at each marker and at the end.
class HeapDumpPass : public EventPass {
 public:
  HeapDumpPass(const Stream& stream, const std::vector<TimelineMarker>& markers) : stream_(stream) {
    for (const TimelineMarker& m : markers) at_[m.position] = &m;
  }

  void OnEvent(const Event& e) override {
    if (auto m = at_.find(position_++); m != at_.end()) Dump(m->second->name, m->second->ns);
    LiveBlock block;
    switch (e.kind()) {
      case EventKind::kAlloc:
        if (live_.Alloc(e, &block)) Freed(block);
        counts_[e.stack_id].allocs++;
        counts_[e.stack_id].allocated += e.size;
        break;
      case EventKind::kFree:
        if (live_.Free(e.address, &block)) Freed(block);
        break;
      default:
        break;
    }
    last_ticks_ = e.ticks;
  }

  std::vector<HeapDump> Finish() {
    Dump("end", stream_.clock.ToNs(last_ticks_));
    return std::move(dumps_);
  }

 private:
  void Freed(const LiveBlock& block) {
    counts_[block.stack_id].frees++;
    counts_[block.stack_id].freed += block.size;
  }
  void Dump(const std::string& name, int64_t ns) { dumps_.push_back({name, ns, counts_}); }

  const Stream& stream_;
  std::unordered_map<uint64_t, const TimelineMarker*> at_;
  uint64_t position_ = 0;
  uint64_t last_ticks_ = 0;
  LiveSet live_;
  std::map<uint32_t, StackCounts> counts_;
  std::vector<HeapDump> dumps_;
};

// The interned tables of one ProfilePacket (strings, mappings, frames,
// call stacks), filled as its samples name them.
class ProfileTables {
 public:
  ProfileTables(const Stream& stream, Symbolizer& symbolizer, pf::ProfilePacket* packet)
      : stream_(stream), symbolizer_(symbolizer), packet_(packet) {}

  uint64_t Callstack(uint32_t stack_id) {
    auto [it, inserted] = callstacks_.try_emplace(stack_id, callstacks_.size() + 1);
    if (!inserted) return it->second;
    pf::Callstack* c = packet_->add_callstacks();
    c->set_iid(it->second);
    auto stack = stream_.stacks.find(stack_id);
    if (stack != stream_.stacks.end()) {
      std::vector<SourceFrame> frames = symbolizer_.SymbolizeStack(stack->second);
      // Perfetto lists the outermost frame first.
      for (auto f = frames.rbegin(); f != frames.rend(); ++f) c->add_frame_ids(Frame(*f));
    }
    return it->second;
  }

 private:
  uint64_t String(const std::string& s) {
    auto [it, inserted] = strings_.try_emplace(s, strings_.size() + 1);
    if (inserted) {
      pf::InternedString* i = packet_->add_strings();
      i->set_iid(it->second);
      i->set_str(s);
    }
    return it->second;
  }

  uint64_t Mapping(const std::string& path) {
    auto [it, inserted] = mappings_.try_emplace(path, mappings_.size() + 1);
    if (!inserted) return it->second;
    pf::Mapping* m = packet_->add_mappings();
    m->set_iid(it->second);
    for (const Module& module : stream_.modules) {
      if (module.path != path || module.segments.empty()) continue;
      const auto [start, end] = module.AddressRange();
      m->set_start(start);
      m->set_end(end);
      m->set_build_id(String(module.build_id));
      break;
    }
    // Perfetto wants the path in components: "/usr/lib/libc.so.6" -> usr, lib, libc.so.6.
    for (size_t from = 0; from < path.size();) {
      size_t slash = path.find('/', from);
      if (slash == std::string::npos) slash = path.size();
      if (slash > from) m->add_path_string_ids(String(path.substr(from, slash - from)));
      from = slash + 1;
    }
    return it->second;
  }

  uint64_t Frame(const SourceFrame& f) {
    auto key = std::make_tuple(f.address, f.function, f.file, f.line);
    auto [it, inserted] = frames_.try_emplace(key, frames_.size() + 1);
    if (!inserted) return it->second;
    pf::Frame* frame = packet_->add_frames();
    frame->set_iid(it->second);
    frame->set_function_name_id(String(f.function));
    if (!f.module.empty()) {
      frame->set_mapping_id(Mapping(f.module));
      frame->set_rel_pc(f.module_offset);
    }
    if (f.line != 0) frame->set_line_number(f.line);
    return it->second;
  }

  const Stream& stream_;
  Symbolizer& symbolizer_;
  pf::ProfilePacket* packet_;
  std::unordered_map<std::string, uint64_t> strings_;
  std::unordered_map<std::string, uint64_t> mappings_;
  std::map<std::tuple<uint64_t, std::string, std::string, uint32_t>, uint64_t> frames_;
  std::unordered_map<uint32_t, uint64_t> callstacks_;
};

class TraceWriter {
 public:
  pf::TracePacket* Packet(int64_t ns) {
    pf::TracePacket* p = trace_.add_packet();
    p->set_trusted_packet_sequence_id(kSequence);
    if (trace_.packet_size() == 1) p->set_sequence_flags(pf::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
    p->set_timestamp(static_cast<uint64_t>(std::max<int64_t>(ns, 0)));
    return p;
  }

  pf::TrackEvent* Event(int64_t ns, uint64_t track, pf::TrackEvent::Type type, const std::string& name = "") {
    pf::TrackEvent* e = Packet(ns)->mutable_track_event();
    e->set_track_uuid(track);
    e->set_type(type);
    if (!name.empty()) e->set_name(name);
    return e;
  }

  void Counter(int64_t ns, uint64_t track, uint64_t value) {
    Event(ns, track, pf::TrackEvent::TYPE_COUNTER)->set_counter_value(static_cast<int64_t>(value));
  }

  pf::Trace& trace() { return trace_; }

 private:
  pf::Trace trace_;
};

void Annotate(pf::TrackEvent* e, const char* name, uint64_t value) {
  pf::DebugAnnotation* a = e->add_debug_annotations();
  a->set_name(name);
  a->set_uint_value(value);
}

struct CounterTrack {
  const char* name;
  pf::CounterDescriptor::Unit unit;
};
constexpr CounterTrack kCounters[] = {
    {"live heap bytes", pf::CounterDescriptor::UNIT_SIZE_BYTES},
    {"mapped bytes", pf::CounterDescriptor::UNIT_SIZE_BYTES},
    {"allocations per frame", pf::CounterDescriptor::UNIT_COUNT},
    {"bytes allocated per frame", pf::CounterDescriptor::UNIT_SIZE_BYTES},
    {"allocator time per frame", pf::CounterDescriptor::UNIT_TIME_NS},
};

// Per module class: what LiveSeries holds of the frame-wide counters.
struct ClassCounterTrack {
  const char* name;
  pf::CounterDescriptor::Unit unit;
  uint64_t (*figure)(const LiveFigures&);
};
constexpr ClassCounterTrack kClassCounters[] = {
    {"live heap bytes", pf::CounterDescriptor::UNIT_SIZE_BYTES, [](const LiveFigures& f) { return f.live_bytes; }},
    {"mapped bytes", pf::CounterDescriptor::UNIT_SIZE_BYTES, [](const LiveFigures& f) { return f.mapped_bytes; }},
    {"allocations per frame", pf::CounterDescriptor::UNIT_COUNT, [](const LiveFigures& f) { return f.allocations; }},
    {"bytes allocated per frame", pf::CounterDescriptor::UNIT_SIZE_BYTES,
     [](const LiveFigures& f) { return f.bytes_allocated; }},
};
static_assert(kFirstClassTrack + kModuleClassCount * std::size(kClassCounters) <= kFirstThreadTrack);

uint64_t ClassTrack(ModuleClass c, size_t counter) {
  return kFirstClassTrack + static_cast<uint64_t>(c) * std::size(kClassCounters) + counter;
}

void WriteDescriptors(const Stream& stream, const Timeline& timeline, const std::vector<ModuleClass>& classes,
                      const std::vector<GpuKind>& gpu_kinds, TraceWriter& w,
                      std::unordered_map<uint32_t, uint64_t>* thread_tracks) {
  const int64_t start = timeline.frames.empty() ? 0 : timeline.frames.front().start_ns;
  pf::TrackDescriptor* process = w.Packet(start)->mutable_track_descriptor();
  process->set_uuid(kProcessTrack);
  process->mutable_process()->set_pid(static_cast<int32_t>(stream.process.pid));
  process->mutable_process()->set_process_name(stream.process.executable);
  for (const std::string& arg : stream.process.argv) process->mutable_process()->add_cmdline(arg);
  for (const Thread& t : stream.threads) {
    if (t.memframe) continue;
    auto [it, inserted] = thread_tracks->try_emplace(t.tid, kFirstThreadTrack + thread_tracks->size());
    if (!inserted) continue;
    pf::TrackDescriptor* d = w.Packet(start)->mutable_track_descriptor();
    d->set_uuid(it->second);
    d->set_parent_uuid(kProcessTrack);
    d->mutable_thread()->set_pid(static_cast<int32_t>(stream.process.pid));
    d->mutable_thread()->set_tid(t.tid);
    if (!t.name.empty()) d->mutable_thread()->set_thread_name(t.name);
  }
  for (size_t i = 0; i < std::size(kCounters); ++i) {
    pf::TrackDescriptor* d = w.Packet(start)->mutable_track_descriptor();
    d->set_uuid(kFirstCounterTrack + i);
    d->set_parent_uuid(kProcessTrack);
    d->set_name(kCounters[i].name);
    d->mutable_counter()->set_unit(kCounters[i].unit);
  }
  for (ModuleClass c : classes) {
    for (size_t i = 0; i < std::size(kClassCounters); ++i) {
      pf::TrackDescriptor* d = w.Packet(start)->mutable_track_descriptor();
      d->set_uuid(ClassTrack(c, i));
      d->set_parent_uuid(kProcessTrack);
      d->set_name(std::string(kClassCounters[i].name) + " (" + ModuleClassName(c) + ")");
      d->mutable_counter()->set_unit(kClassCounters[i].unit);
    }
  }
  if (gpu_kinds.empty()) return;
  auto gpu_track = [&](uint64_t uuid, const std::string& name) {
    pf::TrackDescriptor* d = w.Packet(start)->mutable_track_descriptor();
    d->set_uuid(uuid);
    d->set_parent_uuid(kProcessTrack);
    d->set_name(name);
    d->mutable_counter()->set_unit(pf::CounterDescriptor::UNIT_SIZE_BYTES);
  };
  gpu_track(kGpuTrack, "GPU live bytes");
  for (GpuKind k : gpu_kinds) gpu_track(kGpuTrack + static_cast<uint64_t>(k), std::string("GPU live bytes (") + GpuKindName(k) + ")");
}

// The GPU counters at the frame's start: the GPU bytes live at its end.
void WriteGpu(const GpuAnalysis& gpu, const std::vector<GpuKind>& kinds, uint64_t frame, int64_t ns, TraceWriter& w) {
  const GpuFrame* g = kinds.empty() ? nullptr : gpu.Frame(frame);
  if (!g) return;
  w.Counter(ns, kGpuTrack, g->total());
  for (GpuKind k : kinds) w.Counter(ns, kGpuTrack + static_cast<uint64_t>(k), g->live_bytes[static_cast<int>(k)]);
}

// The figures of every class at the frame of `row`, at the frame's start.
struct ClassFigures {
  const LiveSeries& series;
  const std::vector<ModuleClass>& classes;

  void Write(size_t row, int64_t ns, TraceWriter& w) const {
    for (ModuleClass c : classes) {
      const LiveFigures& f = series.At(row, static_cast<size_t>(c));
      for (size_t i = 0; i < std::size(kClassCounters); ++i) w.Counter(ns, ClassTrack(c, i), kClassCounters[i].figure(f));
    }
  }
};

void WriteFrame(const FrameSpan& span, const FrameStats& f, uint64_t track, TraceWriter& w) {
  pf::TrackEvent* e = w.Event(span.start_ns, track, pf::TrackEvent::TYPE_SLICE_BEGIN, "frame " + std::to_string(f.frame));
  e->add_categories("frame");
  Annotate(e, "frame", f.frame);
  Annotate(e, "allocations", f.allocations);
  Annotate(e, "frees", f.frees);
  Annotate(e, "bytes_allocated", f.bytes_allocated);
  Annotate(e, "bytes_freed", f.bytes_freed);
  Annotate(e, "live_bytes", f.live_bytes);
  Annotate(e, "mapped_bytes", span.mapped_bytes);
  Annotate(e, "alloc_time_ns", f.alloc_time_ns);
  const uint64_t values[] = {f.live_bytes, span.mapped_bytes, f.allocations, f.bytes_allocated, f.alloc_time_ns};
  for (size_t i = 0; i < std::size(values); ++i) w.Counter(span.start_ns, kFirstCounterTrack + i, values[i]);
  w.Event(span.end_ns, track, pf::TrackEvent::TYPE_SLICE_END);
}

void WriteProfile(const Stream& stream, const HeapDump& dump, uint64_t index, Symbolizer& symbolizer, TraceWriter& w) {
  pf::ProfilePacket* packet = w.Packet(dump.ns)->mutable_profile_packet();
  packet->set_index(index);
  ProfileTables tables(stream, symbolizer, packet);
  pf::ProfilePacket::ProcessHeapSamples* samples = packet->add_process_dumps();
  samples->set_pid(stream.process.pid);
  samples->set_from_startup(true);
  samples->set_heap_name("libc.malloc");
  samples->set_sampling_interval_bytes(1);  // every allocation, none sampled
  samples->set_timestamp(static_cast<uint64_t>(std::max<int64_t>(dump.ns, 0)));
  for (const auto& [stack_id, c] : dump.stacks) {
    pf::ProfilePacket::HeapSample* s = samples->add_samples();
    s->set_callstack_id(tables.Callstack(stack_id));
    s->set_self_allocated(c.allocated);
    s->set_self_freed(c.freed);
    s->set_alloc_count(c.allocs);
    s->set_free_count(c.frees);
  }
}

}  // namespace

std::string PerfettoTrace(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer) {
  const Stream& stream = capture.main;
  const Timeline timeline = BuildTimeline(stream, heap.frames);
  const LiveSeries series = ComputeClassSeries(stream, heap.frames, symbolizer);
  const std::vector<ModuleClass> classes = PresentClasses(series);
  const ClassFigures by_class{series, classes};
  const GpuAnalysis gpu = AnalyzeGpu(stream, heap.frames);
  const std::vector<GpuKind> gpu_kinds = GpuKindsMade(gpu, true);
  TraceWriter w;
  std::unordered_map<uint32_t, uint64_t> thread_tracks;
  WriteDescriptors(stream, timeline, classes, gpu_kinds, w, &thread_tracks);
  auto track_of = [&](uint32_t tid) {
    auto it = thread_tracks.find(tid);
    return it != thread_tracks.end() ? it->second : kProcessTrack;
  };
  // Phases enclose their frames: begin, the frames, end, in time order.
  size_t row = 0;
  for (const TimelinePhase& p : timeline.phases) {
    const uint64_t track = track_of(timeline.presenting_tid);
    pf::TrackEvent* e = w.Event(p.start_ns, track, pf::TrackEvent::TYPE_SLICE_BEGIN, PhaseKindName(p.phase.kind));
    e->add_categories("phase");
    Annotate(e, "first_frame", p.phase.frames.from);
    Annotate(e, "last_frame", p.phase.frames.to);
    Annotate(e, "allocations", p.phase.allocations);
    Annotate(e, "bytes_allocated", p.phase.bytes_allocated);
    Annotate(e, "live_bytes_after", p.phase.live_after);
    for (; row < timeline.frames.size() && timeline.frames[row].frame <= p.phase.frames.to; ++row) {
      by_class.Write(row, timeline.frames[row].start_ns, w);  // before the slice: in time order
      WriteGpu(gpu, gpu_kinds, timeline.frames[row].frame, timeline.frames[row].start_ns, w);
      WriteFrame(timeline.frames[row], heap.frames.frames[row], track_of(timeline.frames[row].tid), w);
    }
    w.Event(p.end_ns, track, pf::TrackEvent::TYPE_SLICE_END);
  }
  for (; row < timeline.frames.size(); ++row) {
    by_class.Write(row, timeline.frames[row].start_ns, w);
    WriteGpu(gpu, gpu_kinds, timeline.frames[row].frame, timeline.frames[row].start_ns, w);
    WriteFrame(timeline.frames[row], heap.frames.frames[row], track_of(timeline.frames[row].tid), w);
  }
  for (const TimelineMarker& m : timeline.markers)
    w.Event(m.ns, track_of(m.tid), pf::TrackEvent::TYPE_INSTANT, m.name)->add_categories("marker");
  HeapDumpPass pass(stream, timeline.markers);
  Replay(stream, {&pass});
  uint64_t index = 0;
  for (const HeapDump& dump : pass.Finish()) WriteProfile(stream, dump, index++, symbolizer, w);
  return w.trace().SerializeAsString();
}

}  // namespace memframe::analysis
