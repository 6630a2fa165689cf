#include "writer/packet_encoder.h"

#include <cstring>

#include "buffer/page_allocator.h"
#include "capture/stack_table.h"
#include "capture/marker_table.h"
#include "memframe.pb.h"
#include "memframe/event_refs.h"
#include "memframe/format.h"
#include "memframe/varint.h"

namespace memframe::agent {

using wire::ProtoWriter;
using P = wire::Packet;

void EncodeHello(SocketSink& sink, const HelloInfo& h) {
  using H = wire::Hello;
  ProtoWriter w = sink.BeginPacket(4096 + h.cmdline_size * 2);
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

// What the encoder keeps across batches (event_refs.h): the stream's recent
// allocations and freed blocks, and the references of the batch at hand.
struct EventEncoderState {
  wire::RefEncoder refs;
  uint32_t ref_of[kMaxPacketEvents];  // free_ref of a FREE, reuse_ref of an ALLOC, else 0
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

// One EventBatch packet of at most kMaxPacketEvents events whose frame
// deltas all fit the wire's uint32 column.
void EncodeOneBatch(SocketSink& sink, uint32_t tid, const Event* events, int count, uint64_t dropped) {
  using B = wire::EventBatch;
  // The references first: they change the stream's state, event by event.
  // Without the state's pages every address is sent (all references 0).
  EventEncoderState* state = State();
  int frees = 0, allocs = 0;
  for (int i = 0; i < count; ++i) {
    const Event& e = events[i];
    const uint32_t kind = wire::KindOf(e.kind());
    frees += kind == wire::EVENT_FREE;
    allocs += kind == wire::EVENT_ALLOC;
    if (!state) continue;
    uint32_t ref = 0;
    if (kind == wire::EVENT_FREE) ref = state->refs.FreeRef(e.address);
    if (kind == wire::EVENT_ALLOC) ref = state->refs.Alloc(e.address, e.size);
    state->ref_of[i] = ref;
  }
  auto ref_of = [state](int i) -> uint32_t { return state ? state->ref_of[i] : 0; };
  // Within one thread ticks never go backwards (invariant TSC); a glitch
  // that does is sent as the previous tick, as before.
  auto tick_of = [events](int i) {
    return i && events[i].ticks < events[i - 1].ticks ? events[i - 1].ticks : events[i].ticks;
  };

  ProtoWriter w = sink.BeginPacket(256 + kMaxBytesPerEvent * static_cast<size_t>(count));
  size_t body = w.BeginNested(P::kEventsFieldNumber);
  w.Varint(B::kThreadIdFieldNumber, tid);
  const uint64_t base_ticks = events[0].ticks;
  const uint64_t base_frame = events[0].frame();
  w.Varint(B::kBaseTicksFieldNumber, base_ticks);
  w.Varint(B::kBaseFrameFieldNumber, base_frame);
  if (dropped) w.Varint(B::kDroppedFieldNumber, dropped);

  // One packed column at a time: each column compresses well on its own.
  // A column with entries for some events only is left out when empty.
  auto column_where = [&](uint32_t field, auto keep, auto value_of) {
    size_t packed = w.BeginNested(field);
    w.RawVarintsWhere(count, keep, value_of);
    w.EndNested(packed);
  };
  auto every = [](int) { return true; };
  auto column = [&](uint32_t field, auto value_of) { column_where(field, every, value_of); };
  auto kind_is = [events](int i, uint32_t kind) { return wire::KindOf(events[i].kind()) == kind; };

  column(B::kKindFieldNumber, [&](int i) -> uint64_t { return events[i].kind(); });
  if (frees) column_where(B::kFreeRefFieldNumber, [&](int i) { return kind_is(i, wire::EVENT_FREE); }, ref_of);
  if (allocs) column_where(B::kReuseRefFieldNumber, [&](int i) { return kind_is(i, wire::EVENT_ALLOC); }, ref_of);
  column_where(
      B::kAddressDeltaFieldNumber, [&](int i) { return ref_of(i) == 0; },
      [&](int i) -> uint64_t {
        uint64_t previous = i ? events[i - 1].address : 0;
        return wire::ZigZag(static_cast<int64_t>(events[i].address - previous));
      });
  column(B::kSizeFieldNumber, [&](int i) -> uint64_t { return events[i].size; });
  column(B::kStackIdFieldNumber, [&](int i) -> uint64_t { return events[i].stack_id; });
  // Gaps, then the plain deltas of the events whose gap is 0 (a second
  // pass over the same ticks gives the same gaps).
  wire::TickGaps gaps(base_ticks);
  uint64_t exact = 0;
  int escaped = 0;
  column(B::kTicksGapFieldNumber, [&](int i) -> uint64_t {
    uint64_t gap = gaps.Encode(events[i].kind(), tick_of(i), events[i].duration, &exact);
    escaped += gap == 0;
    return gap;
  });
  if (escaped) {
    wire::TickGaps again(base_ticks);
    uint64_t entry = 0;
    column_where(
        B::kTicksExactFieldNumber,
        [&](int i) { return again.Encode(events[i].kind(), tick_of(i), events[i].duration, &entry) == 0; },
        [&](int) -> uint64_t { return entry; });
  }
  column(B::kFrameDeltaFieldNumber, [&](int i) -> uint64_t {
    // Within one thread frames never go backwards (one global counter).
    uint64_t previous = i ? events[i - 1].frame() : base_frame;
    return events[i].frame() - previous;
  });
  column(B::kDurationTicksFieldNumber, [&](int i) -> uint64_t { return events[i].duration; });
  w.EndNested(body);
  sink.EndPacket(w);
}

}  // namespace

void ResetEventEncoder() {
  g_state_failed = false;
  if (EventEncoderState* state = State()) state->refs.Clear();
}

void EncodeEventBatch(SocketSink& sink, uint32_t tid, const Event* events, int count, uint64_t dropped) {
  // frame_delta is a uint32 column: where a thread's frame jumps by 2^32 or
  // more between two events (a thread asleep for 2^32 frames, 50 days at
  // 1000 fps), a new packet starts with that frame as its base.
  int start = 0;
  for (int i = 1; i <= count; ++i) {
    if (i < count && i - start < kMaxPacketEvents && events[i].frame() - events[i - 1].frame() <= UINT32_MAX)
      continue;
    EncodeOneBatch(sink, tid, events + start, i - start, start == 0 ? dropped : 0);
    start = i;
  }
}

void EncodeEndOfStream(SocketSink& sink, uint64_t events, uint64_t dropped, uint64_t last_frame,
                       const char* reason) {
  using E = wire::EndOfStream;
  ProtoWriter w = sink.BeginPacket(256);
  size_t body = w.BeginNested(P::kEndFieldNumber);
  w.Varint(E::kEventsFieldNumber, events);
  w.Varint(E::kDroppedFieldNumber, dropped);
  w.Varint(E::kLastFrameFieldNumber, last_frame);
  w.String(E::kReasonFieldNumber, reason);
  w.EndNested(body);
  sink.EndPacket(w);
}

}  // namespace memframe::agent
