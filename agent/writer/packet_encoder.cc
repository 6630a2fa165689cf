#include "writer/packet_encoder.h"

#include <cstring>

#include "attach/own_allocator_patch.h"
#include "hooks/allocator_api_hooks.h"
#include "buffer/page_allocator.h"
#include "buffer/ring_record.h"
#include "capture/clock.h"
#include "capture/allocator_table.h"
#include "capture/marker_table.h"
#include "capture/stack_table.h"
#include "gpu/gpu_queue.h"
#include "memframe.pb.h"
#include "memframe/event_refs.h"
#include "memframe/format.h"
#include "memframe/varint.h"

namespace memframe::agent {

using wire::ProtoWriter;
using P = wire::Packet;

void EncodeHello(SocketSink& sink, const HelloInfo& h) {
  using H = wire::Hello;
  ProtoWriter w = sink.BeginPacket(4096 + h.cmdline_size * 2 + sizeof(OwnAllocatorReport) * 2 +
                                 sizeof(AllocatorApiReport) * 2 * h.allocator_api_count);
  size_t body = w.BeginNested(P::kHelloFieldNumber);
  w.Varint(H::kProtocolVersionFieldNumber, wire::kProtocolVersion);
  w.Varint(H::kPidFieldNumber, h.pid);
  w.Varint(H::kPpidFieldNumber, h.ppid);
  w.String(H::kExecutableFieldNumber, h.executable);
  for (size_t i = 0; i < h.cmdline_size;) {
    const char* arg = h.cmdline + i;
    size_t len = strnlen(arg, h.cmdline_size - i);
    w.Bytes(H::kArgvFieldNumber, arg, len);
    i += len + 1;
  }
  w.Varint(H::kStartTicksFieldNumber, h.start_ticks);
  w.Varint(H::kStartMonotonicNsFieldNumber, h.start_monotonic_ns);
  w.Varint(H::kStartUnixNsFieldNumber, h.start_unix_ns);
  w.String(H::kAgentVersionFieldNumber, MEMFRAME_AGENT_VERSION);
  w.Varint(H::kMaxStackDepthFieldNumber, h.max_stack_depth);
  if (h.attached) w.Varint(H::kAttachedFieldNumber, 1);
  if (const OwnAllocatorReport* own = h.own_allocator) {
    using O = wire::OwnAllocator;
    size_t nested = w.BeginNested(H::kOwnAllocatorFieldNumber);
    w.String(O::kNameFieldNumber, own->name);
    for (size_t i = 0; i < own->hooked_count; ++i) w.String(O::kHookedFieldNumber, own->hooked[i]);
    for (size_t i = 0; i < own->refused_count; ++i) w.String(O::kRefusedFieldNumber, own->refused[i]);
    w.EndNested(nested);
  }
  for (size_t a = 0; a < h.allocator_api_count; ++a) {
    using A = wire::AllocatorApi;
    const AllocatorApiReport& api = h.allocator_apis[a];
    size_t nested = w.BeginNested(H::kAllocatorApisFieldNumber);
    w.String(A::kNameFieldNumber, api.name);
    w.String(A::kLibraryFieldNumber, api.library);
    for (size_t i = 0; i < api.hooked_count; ++i) w.String(A::kHookedFieldNumber, api.hooked[i]);
    w.EndNested(nested);
  }
  w.EndNested(body);
  sink.EndPacket(w);
}

void EncodeClockSync(SocketSink& sink, uint64_t ticks, uint64_t monotonic_ns) {
  ProtoWriter w = sink.BeginPacket(64);
  size_t body = w.BeginNested(P::kClockFieldNumber);
  w.Varint(wire::ClockSync::kTicksFieldNumber, ticks);
  w.Varint(wire::ClockSync::kMonotonicNsFieldNumber, monotonic_ns);
  w.EndNested(body);
  sink.EndPacket(w);
}

void EncodeMarkerDefs(SocketSink& sink, uint32_t first, uint32_t end) {
  constexpr size_t kMaxBytesPerMarker = 96;
  ProtoWriter w = sink.BeginPacket(16 + kMaxBytesPerMarker * (end - first));
  size_t body = w.BeginNested(P::kMarkersFieldNumber);
  for (uint32_t id = first; id < end; ++id) {
    const char* name = MarkerName(id);
    if (!name) continue;
    size_t def = w.BeginNested(wire::MarkerDefs::kMarkersFieldNumber);
    w.Varint(wire::MarkerDef::kIdFieldNumber, id);
    w.String(wire::MarkerDef::kNameFieldNumber, name);
    w.EndNested(def);
  }
  w.EndNested(body);
  sink.EndPacket(w);
}

void EncodeAllocatorDefs(SocketSink& sink, uint32_t first, uint32_t end) {
  using D = wire::AllocatorDef;
  constexpr size_t kMaxBytesPerAllocator = 64 + 88;  // the name and seven varints with their tags
  ProtoWriter w = sink.BeginPacket(16 + kMaxBytesPerAllocator * (end - first));
  size_t body = w.BeginNested(P::kAllocatorsFieldNumber);
  for (uint32_t id = first; id < end; ++id) {
    const AllocatorEntry& a = AllocatorAt(id);
    size_t def = w.BeginNested(wire::AllocatorDefs::kAllocatorsFieldNumber);
    w.Varint(D::kIdFieldNumber, id);
    w.String(D::kNameFieldNumber, a.name);
    w.Varint(D::kKindFieldNumber, a.kind);
    w.Varint(D::kBaseFieldNumber, a.base);
    w.Varint(D::kCapacityFieldNumber, a.capacity);
    if (a.origin.stack_id) w.Varint(D::kStackIdFieldNumber, a.origin.stack_id);
    if (a.origin.ticks) w.Varint(D::kTicksFieldNumber, a.origin.ticks);
    if (a.origin.thread_id) w.Varint(D::kThreadIdFieldNumber, a.origin.thread_id);
    w.EndNested(def);
  }
  w.EndNested(body);
  sink.EndPacket(w);
}

void EncodeThreadInfo(SocketSink& sink, uint32_t tid, const char* name, uint64_t first_ticks, bool exited) {
  using T = wire::ThreadInfo;
  ProtoWriter w = sink.BeginPacket(256);
  size_t body = w.BeginNested(P::kThreadFieldNumber);
  w.Varint(T::kThreadIdFieldNumber, tid);
  if (name && *name) w.String(T::kNameFieldNumber, name);
  if (first_ticks) w.Varint(T::kFirstTicksFieldNumber, first_ticks);
  if (exited) w.Bool(T::kExitedFieldNumber, true);
  w.EndNested(body);
  sink.EndPacket(w);
}

void EncodeStackDefs(SocketSink& sink, const uint32_t* ids, int count) {
  constexpr size_t kMaxBytesPerStack = 16 + 11 * 64;
  ProtoWriter w = sink.BeginPacket(16 + kMaxBytesPerStack * static_cast<size_t>(count));
  size_t body = w.BeginNested(P::kStacksFieldNumber);
  for (int i = 0; i < count; ++i) {
    int depth = 0;
    const uint64_t* frames = StackFrames(ids[i], &depth);
    size_t def = w.BeginNested(wire::StackDefs::kStacksFieldNumber);
    w.Varint(wire::StackDef::kIdFieldNumber, ids[i]);
    size_t packed = w.BeginNested(wire::StackDef::kFramesFieldNumber);
    for (int f = 0; f < depth; ++f) w.RawVarint(frames[f]);
    w.EndNested(packed);
    w.EndNested(def);
  }
  w.EndNested(body);
  sink.EndPacket(w);
}

namespace {

// A packet holds at most this many events (the writer sends at most
// kMaxBatchEvents at once; a longer run is split).
constexpr int kMaxPacketEvents = 1 << 16;

constexpr size_t VarintBytes(uint64_t v) { return v < 0x80 ? 1 : 1 + VarintBytes(v >> 7); }

// EventBatch's packed columns, in the order they are sent.
enum Column { kKindColumn, kFreeRef, kReuseRef, kAddressDelta, kSize, kFreeSize, kStackId, kFreeStack,
              kTicksGap, kTicksExact, kFrameDelta, kDuration, kHeap, kColumns };
constexpr uint32_t kColumnField[kColumns] = {
    wire::EventBatch::kKindFieldNumber,         wire::EventBatch::kFreeRefFieldNumber,
    wire::EventBatch::kReuseRefFieldNumber,     wire::EventBatch::kAddressDeltaFieldNumber,
    wire::EventBatch::kSizeFieldNumber,         wire::EventBatch::kFreeSizeFieldNumber,
    wire::EventBatch::kStackIdFieldNumber,      wire::EventBatch::kFreeStackFieldNumber,
    wire::EventBatch::kTicksGapFieldNumber,     wire::EventBatch::kTicksExactFieldNumber,
    wire::EventBatch::kFrameDeltaFieldNumber,   wire::EventBatch::kDurationTicksFieldNumber,
    wire::EventBatch::kHeapFieldNumber,
};
// The most bytes one event's entry takes in each column: a packed kind fits
// 8 bits, a free_ref reaches back at most kFreeRefWindow allocations, a
// reuse_ref at most kFreedPerClass blocks, and frame deltas fit 32 bits
// (EncodeEventBatch splits where they would not).
constexpr size_t kMaxEntryBytes[kColumns] = {
    VarintBytes(kKindBitsMask),         VarintBytes(wire::kFreeRefWindow),
    VarintBytes(wire::kFreedPerClass),  wire::kMaxVarintBytes,
    wire::kMaxVarintBytes,              wire::kMaxVarintBytes,
    VarintBytes(UINT32_MAX),            VarintBytes(UINT32_MAX),
    wire::kMaxVarintBytes,              wire::kMaxVarintBytes,
    VarintBytes(UINT32_MAX),            VarintBytes(UINT32_MAX),
    VarintBytes(UINT32_MAX),
};
// A column's tag and its padded length (ProtoWriter::BeginNested's).
constexpr size_t ColumnHeaderBytes(int c) {
  return VarintBytes(uint64_t{kColumnField[c]} << 3 | wire::kLengthDelimited) + wire::kNestedLengthBytes;
}
constexpr size_t SumOver(const size_t (&a)[kColumns]) {
  size_t sum = 0;
  for (size_t v : a) sum += v;
  return sum;
}
constexpr size_t ColumnHeadersBytes() {
  size_t sum = 0;
  for (int c = 0; c < kColumns; ++c) sum += ColumnHeaderBytes(c);
  return sum;
}
constexpr size_t kMaxEventBytes = SumOver(kMaxEntryBytes);
// The packet's reserve (256 + kMaxBytesPerEvent an event) holds the batch's
// own fields and every column's region at once.
static_assert(kMaxEventBytes <= kMaxBytesPerEvent);
static_assert(ColumnHeadersBytes() + 64 <= 256);

// What the encoder keeps across batches (event_refs.h): the stream's recent
// allocations and freed blocks; and where it writes a batch's columns before
// they go into the packet. There each column has a region at a fixed place,
// so only what the largest batches needed is ever resident; regions in the
// packet's own room (sized for the largest entries, wherever the output
// buffer then was) would make ~2 MiB of that buffer resident over a run
// (tests/bench/README.md, "Resident memory").
struct EventEncoderState {
  wire::RefEncoder refs;
  uint8_t columns[kMaxEventBytes * kMaxPacketEvents];
};
EventEncoderState* g_state = nullptr;
bool g_state_failed = false;

EventEncoderState* State() {
  if (!g_state && !g_state_failed) {
    g_state = static_cast<EventEncoderState*>(MapPages(sizeof(EventEncoderState)));
    g_state_failed = !g_state;
    if (g_state) g_state->refs.Clear();
  }
  return g_state;
}

// The reference model's slot table (1 MiB) is larger than the caches: the
// encoder asks for an event's slot a few events ahead.
constexpr int kPrefetchAhead = 12;

// Where each column's entries go while a batch of `n` events is encoded:
// one region each from `at` on, sized for its largest entries, after room
// for its header when the regions are in the packet itself.
void LayOutColumns(uint8_t* at, size_t n, bool headers, uint8_t* begin[kColumns]) {
  for (int c = 0; c < kColumns; ++c) {
    if (headers) at += ColumnHeaderBytes(c);
    begin[c] = at;
    at += kMaxEntryBytes[c] * n;
  }
}

// One pass over the records, read into events by `reader`: each event's
// references (which change the stream's state, event by event) and its
// entries of every column, each column into its region. Walking the batch
// once per column instead re-read it (up to 0.8 MB) from the caches ten
// times. `first`: the records' first event. It stops before the event that
// would be the packet's kMaxPacketEvents + 1st, or before the frame record of
// an event 2^32 or more frames past the one before (frame_delta is a uint32
// column: a thread asleep for 2^32 frames, 50 days at 1000 fps); sets
// *events and returns the records it took. Sets end[c]; a FREE column whose
// entries are all 0 ends where it begins.
size_t EncodeColumns(const RingRecord* records, size_t n, RecordReader* reader, const Event& first,
                     wire::RefEncoder* refs, uint8_t* const begin[kColumns], uint8_t* end[kColumns],
                     size_t* events) {
  uint8_t* kind_p = begin[kKindColumn];
  uint8_t* free_p = begin[kFreeRef];
  uint8_t* reuse_p = begin[kReuseRef];
  uint8_t* address_p = begin[kAddressDelta];
  uint8_t* size_p = begin[kSize];
  uint8_t* free_size_p = begin[kFreeSize];
  uint8_t* stack_p = begin[kStackId];
  uint8_t* free_stack_p = begin[kFreeStack];
  uint64_t free_sizes = 0, free_stacks = 0;  // nonzero when a FREE had one
  uint8_t* gap_p = begin[kTicksGap];
  uint8_t* exact_p = begin[kTicksExact];
  uint8_t* frame_p = begin[kFrameDelta];
  uint8_t* duration_p = begin[kDuration];
  // The heap column is written from the batch's first ALLOC that names a
  // private heap on (the ones before get their 0 entries then): a batch
  // without one, every batch on Linux, costs a branch an ALLOC.
  uint8_t* heap_p = begin[kHeap];
  uint32_t heaps = 0;   // nonzero once an ALLOC named a private heap
  uint32_t allocs = 0;  // ALLOCs so far

  // The reader's state in a local: the columns' byte stores could alias it,
  // and it would be reloaded after each.
  RecordReader local = *reader;
  wire::TickGaps gaps(first.ticks >> kTickShift);
  uint64_t previous_address = 0;
  uint64_t previous_ticks = first.ticks;  // the previous event's own tick, unclamped
  uint64_t previous_frame = first.frame();
  size_t sent = 0;
  // The slot of an address a few records ahead (without a wide record's top
  // byte, which only a tagged pointer has: a prefetch is a hint).
  if (refs)
    for (size_t i = 0; i < n && i < kPrefetchAhead; ++i) refs->Prefetch(records[i].head & RingRecord::kLow56);
  size_t i = 0;
  for (; i < n; ++i) {
    if (refs && i + kPrefetchAhead < n) refs->Prefetch(records[i + kPrefetchAhead].head & RingRecord::kLow56);
    const RingRecord& r = records[i];
    if (__builtin_expect(!RecordReader::IsEvent(r), 0)) {
      if (r.kind() == kRecordFrame && sent && (r.head & RingRecord::kLow56) - previous_frame > UINT32_MAX) break;
      Event none;
      local.Read(r, &none);  // the ring's own record: what the reader knows
      continue;
    }
    if (sent == kMaxPacketEvents) break;
    const RecordReader::Fields e = local.TakeEvent(r);
    ++sent;
    const uint32_t packed = e.kind;
    const uint32_t kind = wire::KindOf(packed);
    kind_p = wire::WriteVarint(kind_p, packed);
    // free_ref of a FREE, reuse_ref of an ALLOC; the address when there is
    // none (address_delta: from the previous event's address either way).
    uint32_t ref = 0;
    if (kind == wire::EVENT_FREE) {
      if (refs) ref = refs->FreeRef(e.address);
      free_p = wire::WriteVarint(free_p, ref);
    } else if (kind == wire::EVENT_ALLOC) {
      if (refs) ref = refs->Alloc(e.address, e.size);
      reuse_p = wire::WriteVarint(reuse_p, ref);
      if (__builtin_expect((heaps | e.heap) != 0, 0)) {
        if (!heaps)
          for (uint32_t k = 0; k < allocs; ++k) *heap_p++ = 0;
        heap_p = wire::WriteVarint(heap_p, e.heap);
        heaps |= e.heap;
      }
      ++allocs;
    }
    if (ref == 0)
      address_p = wire::WriteVarint(address_p, wire::ZigZag(static_cast<int64_t>(e.address - previous_address)));
    previous_address = e.address;
    // A FREE's size (a sized delete's, else 0) and stack (only with free
    // stacks on) are mostly 0: in columns of their own they neither mix
    // with the allocations' nor cost a byte each when all are 0.
    if (kind == wire::EVENT_FREE) {
      free_size_p = wire::WriteVarint(free_size_p, e.size);
      free_stack_p = wire::WriteVarint(free_stack_p, e.stack_id);
      free_sizes |= e.size;
      free_stacks |= e.stack_id;
    } else {
      size_p = wire::WriteVarint(size_p, e.size);
      stack_p = wire::WriteVarint(stack_p, e.stack_id);
    }
    // Within one thread ticks never go backwards (invariant TSC); a glitch
    // that does is sent as the previous tick, since deltas are unsigned. A
    // gap of 0 is followed by the plain delta in ticks_exact.
    const uint64_t t = e.ticks < previous_ticks ? previous_ticks : e.ticks;
    previous_ticks = e.ticks;
    // The allocator time goes on a log scale (protocol 4) in units of its
    // own (5); the gaps are timed with the ticks its code stands for, in
    // time-stamp units, as the reader will.
    const wire::CodedDuration duration =
        wire::CodeDuration(wire::DurationUnits(e.duration, kDurationShift), kDurationShift);
    uint64_t exact = 0;
    const uint64_t gap = gaps.Encode(packed, t >> kTickShift,
                                     wire::DurationInTickUnits(duration.units, kDurationShift, kTickShift), &exact);
    gap_p = wire::WriteVarint(gap_p, gap);
    if (gap == 0) exact_p = wire::WriteVarint(exact_p, exact);
    // Within one thread frames never go backwards (one global counter).
    const uint64_t frame = e.frame;
    frame_p = wire::WriteVarint(frame_p, frame - previous_frame);
    previous_frame = frame;
    duration_p = wire::WriteVarint(duration_p, duration.code);
  }
  uint8_t* const ends[kColumns] = {kind_p,  free_p,    reuse_p, address_p,  size_p, free_size_p, stack_p,
                                   free_stack_p, gap_p, exact_p, frame_p, duration_p, heap_p};
  for (int c = 0; c < kColumns; ++c) end[c] = ends[c];
  if (!free_sizes) end[kFreeSize] = begin[kFreeSize];
  if (!free_stacks) end[kFreeStack] = begin[kFreeStack];
  if (!heaps) end[kHeap] = begin[kHeap];
  *reader = local;
  *events = sent;
  return i;
}

// An empty column is left out (only columns with entries for some events
// can be empty: a batch has an event), as are the FREE columns and the heap
// column when all 0;
// address_delta is always sent.
bool ColumnSent(int c, uint8_t* const begin[kColumns], uint8_t* const end[kColumns]) {
  return c == kAddressDelta || end[c] != begin[c];
}
size_t PackedColumnsBytes(uint8_t* const begin[kColumns], uint8_t* const end[kColumns]) {
  size_t bytes = 0;
  for (int c = 0; c < kColumns; ++c)
    if (ColumnSent(c, begin, end)) bytes += ColumnHeaderBytes(c) + static_cast<size_t>(end[c] - begin[c]);
  return bytes;
}
// The columns behind one another at `out`, each after its tag and length;
// returns their end. In the packet's own room each region starts at or after
// where its column goes: the columns before it take at most their regions.
uint8_t* PackColumns(uint8_t* out, uint8_t* const begin[kColumns], uint8_t* const end[kColumns]) {
  for (int c = 0; c < kColumns; ++c) {
    if (!ColumnSent(c, begin, end)) continue;
    const size_t length = static_cast<size_t>(end[c] - begin[c]);
    out = wire::WriteVarint(out, uint64_t{kColumnField[c]} << 3 | wire::kLengthDelimited);
    out = wire::WritePaddedVarint(out, length, wire::kNestedLengthBytes);
    if (out != begin[c]) memmove(out, begin[c], length);
    out += length;
  }
  return out;
}

// One EventBatch packet of the events in the records from `records` on, as
// many as EncodeColumns takes of `count`; `first` is the first of those
// events. The columns are encoded into the state's regions, then packed into
// a packet of their size. Without the state's pages every address is sent
// (all references 0), and the regions are in the packet's room, sized for
// every record's largest entries. Returns the records taken; *events gets
// the events sent.
size_t EncodeOneBatch(SocketSink& sink, uint32_t tid, const RingRecord* records, size_t count, const Event& first,
                      uint64_t dropped, RecordReader* reader, size_t* events) {
  using B = wire::EventBatch;
  EventEncoderState* state = State();
  uint8_t* begin[kColumns];
  uint8_t* end[kColumns];
  size_t taken = 0;
  if (state) {
    LayOutColumns(state->columns, kMaxPacketEvents, false, begin);
    taken = EncodeColumns(records, count, reader, first, &state->refs, begin, end, events);
  } else if (count > kMaxPacketEvents) {
    count = kMaxPacketEvents;  // the room below is sized for this many records
  }
  ProtoWriter w = sink.BeginPacket(256 + (state ? PackedColumnsBytes(begin, end) : kMaxBytesPerEvent * count));
  size_t body = w.BeginNested(P::kEventsFieldNumber);
  w.Varint(B::kThreadIdFieldNumber, tid);
  w.Varint(B::kTickShiftFieldNumber, kTickShift);
  w.Varint(B::kDurationShiftFieldNumber, kDurationShift);
  w.Varint(B::kBaseTicksFieldNumber, first.ticks >> kTickShift << kTickShift);
  w.Varint(B::kBaseFrameFieldNumber, first.frame());
  if (dropped) w.Varint(B::kDroppedFieldNumber, dropped);

  uint8_t* const room =
      w.Reserve(state ? PackedColumnsBytes(begin, end) : ColumnHeadersBytes() + kMaxEventBytes * count);
  if (!room) {  // cannot happen within the reserve; the sink drops the packet
    sink.EndPacket(w);
    return state ? taken : count;
  }
  if (!state) {
    LayOutColumns(room, count, true, begin);
    taken = EncodeColumns(records, count, reader, first, nullptr, begin, end, events);
  }
  w.Commit(PackColumns(room, begin, end));
  w.EndNested(body);
  sink.EndPacket(w);
  return taken;
}

}  // namespace

void ReleaseEventEncoder() {
  UnmapPages(g_state, sizeof(EventEncoderState));
  g_state = nullptr;
  g_state_failed = false;
}

void ResetEventEncoder() {
  g_state_failed = false;
  if (EventEncoderState* state = State()) state->refs.Clear();
}

uint64_t EncodeEventBatch(SocketSink& sink, uint32_t tid, const RingRecord* records, int count, uint64_t dropped,
                          RecordReader* reader) {
  // A packet at a time, each from its first event on (EncodeColumns says
  // where one must end). The ring's own records before a packet's first
  // event only set what the reader knows; those after the last event are
  // read too.
  const size_t n = count > 0 ? static_cast<size_t>(count) : 0;
  size_t at = 0;
  uint64_t sent = 0;
  while (at < n) {
    RecordReader ahead = *reader;
    Event first{};
    size_t start = at;
    while (start < n && !ahead.Read(records[start], &first)) ++start;
    if (start == n) {
      *reader = ahead;
      break;
    }
    size_t events = 0;
    at += EncodeOneBatch(sink, tid, records + at, n - at, first, sent ? 0 : dropped, reader, &events);
    sent += events;
  }
  return sent;
}

void EncodeEndOfStream(SocketSink& sink, uint64_t events, uint64_t dropped, uint64_t last_frame,
                       const char* reason, uint64_t unrecorded_in_signal_handlers) {
  using E = wire::EndOfStream;
  ProtoWriter w = sink.BeginPacket(256);
  size_t body = w.BeginNested(P::kEndFieldNumber);
  w.Varint(E::kEventsFieldNumber, events);
  w.Varint(E::kDroppedFieldNumber, dropped);
  w.Varint(E::kLastFrameFieldNumber, last_frame);
  w.String(E::kReasonFieldNumber, reason);
  if (unrecorded_in_signal_handlers)
    w.Varint(E::kUnrecordedInSignalHandlersFieldNumber, unrecorded_in_signal_handlers);
  w.EndNested(body);
  sink.EndPacket(w);
}

void EncodeGpuEvents(SocketSink& sink, const GpuRecord* records, int count, uint64_t dropped) {
  using G = wire::GpuEvent;
  // 24 fields of at most a tag and a 10-byte varint, and the event's own
  // length prefix.
  constexpr size_t kMaxBytesPerGpuEvent = 24 * 12 + 8;
  ProtoWriter w = sink.BeginPacket(32 + kMaxBytesPerGpuEvent * static_cast<size_t>(count));
  size_t body = w.BeginNested(P::kGpuFieldNumber);
  for (int i = 0; i < count; ++i) {
    const GpuRecord& r = records[i];
    size_t event = w.BeginNested(wire::GpuEvents::kEventsFieldNumber);
    // Zero fields are left out, as protobuf would: a reader sees the default.
    auto field = [&w](uint32_t number, uint64_t value) {
      if (value) w.Varint(number, value);
    };
    field(G::kOpFieldNumber, r.op);
    field(G::kKindFieldNumber, r.kind);
    field(G::kContextFieldNumber, r.context);
    field(G::kNameFieldNumber, r.name);
    field(G::kBytesFieldNumber, r.bytes);
    field(G::kFormatFieldNumber, r.format);
    field(G::kWidthFieldNumber, r.width);
    field(G::kHeightFieldNumber, r.height);
    field(G::kDepthFieldNumber, r.depth);
    field(G::kLevelsFieldNumber, r.levels);
    field(G::kSamplesFieldNumber, r.samples);
    field(G::kLevelFieldNumber, r.level);
    field(G::kFaceFieldNumber, r.face);
    field(G::kTargetFieldNumber, r.target);
    field(G::kBasisFieldNumber, r.basis);
    field(G::kTicksFieldNumber, r.ticks);
    field(G::kFrameFieldNumber, r.frame);
    field(G::kThreadIdFieldNumber, r.tid);
    field(G::kStackIdFieldNumber, r.stack_id);
    field(G::kMemoryFieldNumber, r.memory);
    field(G::kOffsetFieldNumber, r.offset);
    field(G::kMemoryTypeFieldNumber, r.memory_type);
    field(G::kMemoryHeapFieldNumber, r.memory_heap);
    field(G::kMemoryFlagsFieldNumber, r.memory_flags);
    w.EndNested(event);
  }
  if (dropped) w.Varint(wire::GpuEvents::kDroppedFieldNumber, dropped);
  w.EndNested(body);
  sink.EndPacket(w);
}

}  // namespace memframe::agent
