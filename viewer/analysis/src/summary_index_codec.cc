#include "summary_index_codec.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <type_traits>

namespace memframe::analysis {

namespace {

// Writes what Visit hands it, each integer as a LEB128 varint.
class Writer {
 public:
  static constexpr bool kReading = false;
  std::string out;

  void U64(uint64_t& v) {
    uint64_t x = v;
    while (x >= 0x80) {
      out.push_back(static_cast<char>(x | 0x80));
      x >>= 7;
    }
    out.push_back(static_cast<char>(x));
  }
  template <typename T>
  void Int(T& v) {
    static_assert(std::is_integral_v<T>);
    uint64_t x;
    if constexpr (std::is_signed_v<T>)
      x = (static_cast<uint64_t>(static_cast<int64_t>(v)) << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(v) >> 63);
    else
      x = v;
    U64(x);
  }
  void Bool(bool& b) {
    uint64_t x = b;
    U64(x);
  }
  template <typename E>
  void Enum(E& e, uint64_t /*count*/) {
    uint64_t x = static_cast<uint64_t>(e);
    U64(x);
  }
  void Str(std::string& s) {
    uint64_t n = s.size();
    U64(n);
    out.append(s);
  }
  template <typename T, typename F>
  void Vec(std::vector<T>& v, F each) {
    uint64_t n = v.size();
    U64(n);
    for (T& item : v) each(item);
  }
  template <typename K, typename V, typename F>
  void Map(std::unordered_map<K, V>& m, F each) {
    // In key order: the same model always gives the same bytes.
    std::vector<K> keys;
    keys.reserve(m.size());
    for (auto& [k, v] : m) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    uint64_t n = keys.size();
    U64(n);
    for (K k : keys) {
      Int(k);
      each(m[k]);
    }
  }
  bool Fail(const char*) { return false; }
};

// Reads them back; after the first problem every read gives zeros and
// `error` says what it was.
class Reader {
 public:
  static constexpr bool kReading = true;
  explicit Reader(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  std::string error;
  bool ok() const { return error.empty(); }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

  void U64(uint64_t& v) {
    v = 0;
    for (int shift = 0; ok(); shift += 7) {
      if (p_ == end_ || shift > 63) {
        Fail(p_ == end_ ? "truncated" : "varint too long");
        return;
      }
      uint8_t byte = static_cast<uint8_t>(*p_++);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return;
    }
  }
  template <typename T>
  void Int(T& v) {
    uint64_t x;
    U64(x);
    if constexpr (std::is_signed_v<T>) {
      int64_t s = static_cast<int64_t>((x >> 1) ^ (~(x & 1) + 1));
      if (s < std::numeric_limits<T>::min() || s > std::numeric_limits<T>::max()) Fail("integer out of range");
      v = ok() ? static_cast<T>(s) : T{};
    } else {
      if (x > std::numeric_limits<T>::max()) Fail("integer out of range");
      v = ok() ? static_cast<T>(x) : T{};
    }
  }
  void Bool(bool& b) {
    uint64_t x;
    U64(x);
    if (x > 1) Fail("boolean out of range");
    b = x == 1;
  }
  template <typename E>
  void Enum(E& e, uint64_t count) {
    uint64_t x;
    U64(x);
    if (x >= count) Fail("enum out of range");
    e = ok() ? static_cast<E>(x) : E{};
  }
  void Str(std::string& s) {
    uint64_t n;
    U64(n);
    if (n > left()) Fail("string longer than the bytes left");
    if (!ok()) return;
    s.assign(p_, n);
    p_ += n;
  }
  // Every element takes at least one byte, so a count over the bytes left
  // is a lie: refused before anything is reserved.
  template <typename T, typename F>
  void Vec(std::vector<T>& v, F each) {
    uint64_t n;
    U64(n);
    if (n > left()) Fail("count larger than the bytes left");
    if (!ok()) return;
    v.clear();
    v.reserve(n);
    for (uint64_t i = 0; i < n && ok(); ++i) each(v.emplace_back());
  }
  template <typename K, typename V, typename F>
  void Map(std::unordered_map<K, V>& m, F each) {
    uint64_t n;
    U64(n);
    if (n > left()) Fail("count larger than the bytes left");
    if (!ok()) return;
    m.clear();
    m.reserve(n);
    for (uint64_t i = 0; i < n && ok(); ++i) {
      K k{};
      Int(k);
      if (!m.try_emplace(k).second) Fail("a key twice");
      if (ok()) each(m[k]);
    }
  }
  bool Fail(const char* what) {
    if (ok()) error = what;
    p_ = end_;
    return false;
  }

 private:
  const char* p_;
  const char* end_;
};

template <typename IO>
void VisitStrings(IO& io, std::vector<std::string>& v) {
  io.Vec(v, [&](std::string& s) { io.Str(s); });
}

template <typename IO>
void VisitProcess(IO& io, ProcessInfo& p) {
  io.Int(p.protocol_version);
  io.Int(p.pid);
  io.Int(p.ppid);
  io.Str(p.executable);
  VisitStrings(io, p.argv);
  io.Str(p.agent_version);
  io.Int(p.max_stack_depth);
  io.Bool(p.attached);
  io.Bool(p.window.present);
  io.U64(p.window.first_frame);
  io.U64(p.window.dropped_events);
  io.Bool(p.own_allocator.present);
  io.Str(p.own_allocator.name);
  VisitStrings(io, p.own_allocator.hooked);
  VisitStrings(io, p.own_allocator.refused);
  io.Vec(p.allocator_apis, [&](ProcessInfo::AllocatorApi& a) {
    io.Str(a.name);
    io.Str(a.library);
    VisitStrings(io, a.hooked);
  });
}

template <typename IO>
void VisitClock(IO& io, Clock& clock) {
  Clock::Pairs p = clock.pairs();
  io.Bool(p.has_pair);
  io.U64(p.first_ticks);
  io.U64(p.first_ns);
  io.U64(p.last_ticks);
  io.U64(p.last_ns);
  if constexpr (IO::kReading) clock = Clock::FromPairs(p);
}

template <typename IO>
void VisitModule(IO& io, Module& m) {
  io.Str(m.path);
  io.U64(m.load_bias);
  io.Vec(m.segments, [&](Segment& s) {
    io.U64(s.vaddr);
    io.U64(s.memsz);
  });
  io.Str(m.build_id);
  io.Map(m.recorded_symbols, [&](RecordedSymbol& r) {
    io.Str(r.function);
    io.Str(r.file);
    io.Int(r.line);
  });
}

template <typename IO>
void VisitGpuEvent(IO& io, GpuEvent& g) {
  io.U64(g.ticks);
  io.U64(g.frame);
  io.U64(g.name);
  io.U64(g.bytes);
  io.U64(g.memory);
  io.U64(g.offset);
  io.Enum(g.op, static_cast<uint64_t>(GpuOp::kDeclare) + 1);
  io.Enum(g.kind, kGpuKinds);
  io.Enum(g.basis, static_cast<uint64_t>(GpuSizeBasis::kUnknown) + 1);
  io.Int(g.face);
  for (uint32_t* f : {&g.context, &g.format, &g.target, &g.width, &g.height, &g.depth, &g.levels, &g.samples,
                      &g.level, &g.memory_type, &g.memory_heap, &g.memory_flags, &g.stack_id})
    io.Int(*f);
  io.Int(g.thread);
}

template <typename IO>
void VisitStream(IO& io, Stream& s) {
  io.Int(s.stream_id);
  io.Bool(s.has_hello);
  VisitProcess(io, s.process);
  VisitClock(io, s.clock);
  io.Vec(s.modules, [&](Module& m) { VisitModule(io, m); });
  io.Map(s.stacks, [&](std::vector<uint64_t>& frames) { io.Vec(frames, [&](uint64_t& pc) { io.U64(pc); }); });
  io.Map(s.markers, [&](std::string& name) { io.Str(name); });
  io.Vec(s.allocators, [&](AllocatorInfo& a) {
    io.Int(a.id);
    io.Str(a.name);
    io.Enum(a.kind, static_cast<uint64_t>(AllocatorKind::kHeap) + 1);
    io.U64(a.base);
    io.U64(a.capacity);
    io.Int(a.stack_id);
    io.Int(a.thread_id);
    io.U64(a.ticks);
  });
  io.Vec(s.threads, [&](Thread& t) {
    io.Int(t.tid);
    io.Str(t.name);
    io.U64(t.first_ticks);
    io.Bool(t.exited);
    io.U64(t.events);
    io.U64(t.dropped);
    io.Bool(t.memframe);
  });
  // The events themselves are not kept: their count is.
  uint64_t events = EventCount(s);
  io.U64(events);
  if constexpr (IO::kReading) s.streamed_events = events;
  io.Vec(s.gpu_events, [&](GpuEvent& g) { VisitGpuEvent(io, g); });
  io.U64(s.gpu_dropped);
  io.Bool(s.has_end);
  io.U64(s.end_events);
  io.U64(s.end_dropped);
  io.U64(s.end_last_frame);
  io.U64(s.end_unrecorded_in_signal_handlers);
  io.Str(s.end_reason);
  io.U64(s.ticks_went_backwards);
  io.U64(s.handoffs_repaired);
}

template <typename IO>
void VisitCapture(IO& io, Capture& c) {
  RecorderInfo& r = c.recorder;
  io.Bool(r.seen);
  io.Str(r.command_line);
  io.U64(r.start_unix_ns);
  io.Bool(r.finished);
  io.Int(r.exit_status);
  io.Int(r.termination_signal);
  io.Str(r.recorder_version);
  io.Bool(r.attached);
  io.Bool(r.detached);
  io.Int(r.attach_pause_us);
  io.Vec(r.snapshots, [&](RecorderSnapshot& s) {
    io.Str(s.name);
    io.U64(s.monotonic_ns);
    io.U64(s.unix_ns);
  });
  KeptWindowInfo& kept = r.kept_window;
  io.Bool(kept.present);
  io.U64(kept.keep_last_ms);
  io.Str(kept.saved_for);
  io.U64(kept.first_unix_ns);
  io.U64(kept.dropped_records);
  io.U64(kept.dropped_events);
  io.Vec(r.frame_totals, [&](FrameTotalsSeries& t) {
    io.Int(t.stream);
    io.U64(t.first_frame);
    for (std::vector<uint64_t>* series : {&t.allocs, &t.frees, &t.allocated_bytes, &t.freed_bytes, &t.live_bytes})
      io.Vec(*series, [&](uint64_t& v) { io.U64(v); });
  });
  io.Bool(c.has_main);
  VisitStream(io, c.main);
  io.Vec(c.other_streams, [&](StreamSummary& s) {
    io.Int(s.stream_id);
    io.Int(s.pid);
    io.Str(s.executable);
    io.U64(s.events);
  });
  io.Str(c.damage);
}

template <typename IO>
void VisitSpike(IO& io, SpikeThreshold& t) {
  io.U64(t.median);
  io.U64(t.mad);
  io.U64(t.threshold);
}

template <typename IO>
void VisitFrames(IO& io, FrameTable& t) {
  io.Vec(t.frames, [&](FrameStats& f) {
    for (uint64_t* v : {&f.frame, &f.allocations, &f.frees, &f.bytes_allocated, &f.bytes_freed, &f.live_bytes,
                        &f.peak_live_bytes, &f.alloc_time_ns, &f.slowest_alloc_ns})
      io.U64(*v);
    for (bool* b : {&f.ended, &f.spike, &f.allocations_spike, &f.bytes_spike}) io.Bool(*b);
  });
  io.U64(t.frames_rendered);
  io.Str(t.frame_source);
  io.U64(t.last_complete_frame);
  io.Bool(t.attached);
  io.Vec(t.phases, [&](Phase& p) {
    io.Enum(p.kind, static_cast<uint64_t>(PhaseKind::kTeardown) + 1);
    io.Int(p.ordinal);
    io.U64(p.frames.from);
    io.U64(p.frames.to);
    for (uint64_t* v : {&p.allocations, &p.bytes_allocated, &p.bytes_freed, &p.frame_before, &p.live_before,
                        &p.live_after})
      io.U64(*v);
    VisitSpike(io, p.allocation_spike);
    VisitSpike(io, p.bytes_spike);
    io.U64(p.spikes);
  });
}

template <typename IO>
void VisitSites(IO& io, std::vector<SiteHistory>& sites) {
  io.Vec(sites, [&](SiteHistory& s) {
    io.Int(s.stack_id);
    io.U64(s.allocations);
    io.U64(s.bytes);
    io.U64(s.size_min);
    io.U64(s.size_max);
    // Frame numbers as the gap from the one before: most are 1.
    uint64_t previous = 0;
    io.Vec(s.frames, [&](SiteFrame& f) {
      uint64_t gap = f.frame - previous;
      io.U64(gap);
      if constexpr (IO::kReading) f.frame = previous + gap;
      previous = f.frame;
      io.Int(f.allocations);
      io.U64(f.bytes);
    });
    io.Vec(s.threads, [&](SiteThread& t) {
      io.Int(t.thread);
      io.U64(t.allocations);
    });
  });
}

template <typename IO>
void VisitHeap(IO& io, HeapAnalysis& h, std::vector<SiteHistory>& sites) {
  VisitFrames(io, h.frames);
  VisitSites(io, sites);
  io.U64(h.leaks.total_blocks);
  io.U64(h.leaks.total_bytes);
  io.Vec(h.leaks.sites, [&](LeakSite& s) {
    io.Int(s.stack_id);
    io.U64(s.blocks);
    io.U64(s.bytes);
  });
  for (uint64_t* v : {&h.anomalies.unknown_frees, &h.anomalies.freed_before_attach, &h.anomalies.freed_after_release,
                      &h.anomalies.allocs_over_live, &h.allocations, &h.frees, &h.bytes_allocated, &h.bytes_freed,
                      &h.peak_live_bytes, &h.peak_live_frame})
    io.U64(*v);
}

// The viewer's summary (summary_index.h), after the heap: its series has
// the frame table's rows, so only the figures are written, live and mapped
// bytes as the change from the row before (a frame changes them little).
template <typename IO>
void VisitViewer(IO& io, ViewerSummary& v, const FrameTable& table) {
  io.Vec(v.markers, [&](MarkerEvent& m) {
    io.Str(m.name);
    io.Int(m.marker_id);
    for (uint64_t* f : {&m.frame, &m.ticks, &m.position}) io.U64(*f);
  });
  io.U64(v.start_ticks);
  LiveSeries& s = v.class_series;
  std::vector<LiveFigures>& cells = s.cells;
  size_t i = 0;
  io.Vec(cells, [&](LiveFigures& f) {
    const LiveFigures above = i >= kModuleClassCount ? cells[i - kModuleClassCount] : LiveFigures();
    ++i;
    for (auto [figure, before] : {std::pair{&f.live_bytes, above.live_bytes}, {&f.mapped_bytes, above.mapped_bytes}}) {
      int64_t change = static_cast<int64_t>(*figure - before);  // wraps back exactly
      io.Int(change);
      if constexpr (IO::kReading) *figure = before + static_cast<uint64_t>(change);
    }
    for (uint64_t* figure : {&f.allocations, &f.frees, &f.bytes_allocated, &f.bytes_freed}) io.U64(*figure);
  });
  if constexpr (IO::kReading) {
    if (cells.size() != table.frames.size() * kModuleClassCount) io.Fail("a class series of another frame table");
    s.groups = kModuleClassCount;
    s.frames.clear();
    for (const FrameStats& row : table.frames) s.frames.push_back(row.frame);
  }
  for (int c = 0; c < kModuleClassCount; ++c) {
    io.U64(v.class_totals.allocations[c]);
    io.U64(v.class_totals.bytes[c]);
  }
  MismatchReport& r = v.mismatches;
  io.Vec(r.mismatches, [&](Mismatch& m) {
    io.Enum(m.kind, static_cast<uint64_t>(Mismatch::Kind::kUnknownPointer) + 1);
    io.Enum(m.alloc_family, static_cast<uint64_t>(Family::kMmap) + 1);
    io.Enum(m.free_family, static_cast<uint64_t>(Family::kMmap) + 1);
    io.Int(m.alloc_stack);
    io.Int(m.free_stack);
    for (uint64_t* f : {&m.count, &m.bytes, &m.first_frame, &m.first_address}) io.U64(*f);
  });
  for (uint64_t* f : {&r.frees, &r.frees_with_stack, &r.freed_before_attach}) io.U64(*f);
}

// An index of `memframe report` or `memframe run` has no viewer summary.
template <typename IO>
void VisitOptionalViewer(IO& io, std::optional<ViewerSummary>& viewer, const FrameTable& table) {
  bool present = viewer.has_value();
  io.Bool(present);
  if constexpr (IO::kReading) {
    if (present) viewer.emplace();
  }
  if (present && viewer) VisitViewer(io, *viewer, table);
}

// What the reports and views index by, so that a crafted payload cannot send
// them past a vector's end or into an endless search: rows in order, thread
// indices within the threads.
const char* CheckInvariants(const Capture& c, const HeapAnalysis& h, const std::vector<SiteHistory>& sites) {
  const size_t threads = c.main.threads.size();
  const auto& rows = h.frames.frames;
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i].frame <= rows[i - 1].frame) return "frame rows out of order";
  for (const Phase& p : h.frames.phases)
    if (p.frames.from > p.frames.to) return "a phase that ends before it starts";
  for (size_t i = 0; i < sites.size(); ++i) {
    if (i > 0 && sites[i].stack_id <= sites[i - 1].stack_id) return "sites out of order";
    for (size_t j = 1; j < sites[i].frames.size(); ++j)
      if (sites[i].frames[j].frame <= sites[i].frames[j - 1].frame) return "a site's frames out of order";
    for (const SiteThread& t : sites[i].threads)
      if (t.thread >= threads) return "a site's thread past the threads";
  }
  for (const GpuEvent& g : c.main.gpu_events)
    if (g.thread >= threads) return "a GPU event's thread past the threads";
  return nullptr;
}

}  // namespace

std::string EncodeSummaryPayload(const Capture& capture, const HeapAnalysis& heap, const ViewerSummary* viewer) {
  Writer w;
  // Visit takes references to fill when reading; writing only reads them.
  auto& c = const_cast<Capture&>(capture);
  auto& h = const_cast<HeapAnalysis&>(heap);
  auto& sites = const_cast<std::vector<SiteHistory>&>(heap.sites.sites());
  VisitCapture(w, c);
  VisitHeap(w, h, sites);
  // Copied to be visited: it is small (a few figures a frame).
  std::optional<ViewerSummary> v;
  if (viewer) v = *viewer;
  VisitOptionalViewer(w, v, h.frames);
  return std::move(w.out);
}

bool DecodeSummaryPayload(std::string_view bytes, Capture* capture, HeapAnalysis* heap, std::string* error,
                          std::optional<ViewerSummary>* viewer) {
  Reader r(bytes);
  Capture c;
  HeapAnalysis h;
  std::vector<SiteHistory> sites;
  std::optional<ViewerSummary> v;
  VisitCapture(r, c);
  VisitHeap(r, h, sites);
  VisitOptionalViewer(r, v, h.frames);
  if (r.ok() && r.left() != 0) r.Fail("bytes after the payload");
  if (r.ok())
    if (const char* problem = CheckInvariants(c, h, sites)) r.Fail(problem);
  if (!r.ok()) {
    *error = r.error;
    return false;
  }
  h.sites = CallSiteIndex(std::move(sites));
  *capture = std::move(c);
  *heap = std::move(h);
  if (viewer) *viewer = std::move(v);
  return true;
}

}  // namespace memframe::analysis
