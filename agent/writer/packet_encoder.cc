#include "writer/packet_encoder.h"

#include <cstring>

#include "capture/stack_table.h"
#include "capture/marker_table.h"
#include "memframe.pb.h"
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

// One EventBatch packet of `count` events whose frame deltas all fit the
// wire's uint32 column.
void EncodeOneBatch(SocketSink& sink, uint32_t tid, const Event* events, int count, uint64_t dropped) {
  using B = wire::EventBatch;
  ProtoWriter w = sink.BeginPacket(64 + kMaxBytesPerEvent * static_cast<size_t>(count));
  size_t body = w.BeginNested(P::kEventsFieldNumber);
  w.Varint(B::kThreadIdFieldNumber, tid);
  const uint64_t base_ticks = events[0].ticks;
  const uint64_t base_frame = events[0].frame();
  w.Varint(B::kBaseTicksFieldNumber, base_ticks);
  w.Varint(B::kBaseFrameFieldNumber, base_frame);
  if (dropped) w.Varint(B::kDroppedFieldNumber, dropped);

  // One packed column at a time: each column compresses well on its own.
  auto column = [&](uint32_t field, auto value_of) {
    size_t packed = w.BeginNested(field);
    w.RawVarints(count, value_of);
    w.EndNested(packed);
  };
  column(B::kKindFieldNumber, [&](int i) -> uint64_t { return events[i].kind(); });
  column(B::kAddressDeltaFieldNumber, [&](int i) -> uint64_t {
    uint64_t previous = i ? events[i - 1].address : 0;
    return wire::ZigZag(static_cast<int64_t>(events[i].address - previous));
  });
  column(B::kSizeFieldNumber, [&](int i) -> uint64_t { return events[i].size; });
  column(B::kStackIdFieldNumber, [&](int i) -> uint64_t { return events[i].stack_id; });
  column(B::kTicksDeltaFieldNumber, [&](int i) -> uint64_t {
    // Within one thread ticks never go backwards (invariant TSC).
    uint64_t previous = i ? events[i - 1].ticks : base_ticks;
    return events[i].ticks >= previous ? events[i].ticks - previous : 0;
  });
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

void EncodeEventBatch(SocketSink& sink, uint32_t tid, const Event* events, int count, uint64_t dropped) {
  // frame_delta is a uint32 column: where a thread's frame jumps by 2^32 or
  // more between two events (a thread asleep for 2^32 frames, 50 days at
  // 1000 fps), a new packet starts with that frame as its base.
  int start = 0;
  for (int i = 1; i <= count; ++i) {
    if (i < count && events[i].frame() - events[i - 1].frame() <= UINT32_MAX) continue;
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
