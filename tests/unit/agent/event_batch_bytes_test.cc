// EncodeEventBatch's exact bytes, compared with a verbatim copy of the
// encoder it replaced (one pass over the batch per column): the single-pass
// encoder must send the same packets, byte for byte, over long pseudo-random
// streams of every kind of event the agent records.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "capture/event.h"
#include "memframe.pb.h"
#include "memframe/event_refs.h"
#include "memframe/format.h"
#include "memframe/varint.h"
#include "memframe/wire_encoder.h"
#include "writer/packet_encoder.h"
#include "writer/socket_sink.h"

namespace memframe::agent {
namespace {

// ---------------------------------------------------------------------------
// The reference: packet_encoder.cc's EncodeOneBatch and EncodeEventBatch as
// they were before the single-pass encoder (commit 782332e), test-only. The
// sink is a byte vector framed as SocketSink frames (a 5-byte padded length
// before each packet). `missing_state` models the agent without its encoder
// pages (every reference 0).
namespace reference {

using wire::ProtoWriter;
using P = wire::Packet;

constexpr int kMaxPacketEvents = 1 << 16;

struct EventEncoderState {
  wire::RefEncoder refs;
  uint32_t ref_of[kMaxPacketEvents];
};

struct Sink {
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> scratch;
  bool overflowed = false;
  ProtoWriter BeginPacket(size_t reserve) {
    scratch.assign(reserve, 0);
    return ProtoWriter(scratch.data(), scratch.size());
  }
  void EndPacket(const ProtoWriter& w) {
    if (w.overflow()) {
      overflowed = true;
      return;
    }
    uint8_t length[wire::kNestedLengthBytes];
    wire::WritePaddedVarint(length, w.size(), sizeof(length));
    bytes.insert(bytes.end(), length, length + sizeof(length));
    bytes.insert(bytes.end(), w.data(), w.data() + w.size());
  }
};

void EncodeOneBatch(Sink& sink, EventEncoderState* state, uint32_t tid, const Event* events, int count,
                    uint64_t dropped) {
  using B = wire::EventBatch;
  // The references first: they change the stream's state, event by event.
  // Without the state's pages every address is sent (all references 0).
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

void EncodeEventBatch(Sink& sink, EventEncoderState* state, uint32_t tid, const Event* events, int count,
                      uint64_t dropped) {
  int start = 0;
  for (int i = 1; i <= count; ++i) {
    if (i < count && i - start < kMaxPacketEvents && events[i].frame() - events[i - 1].frame() <= UINT32_MAX)
      continue;
    EncodeOneBatch(sink, state, tid, events + start, i - start, start == 0 ? dropped : 0);
    start = i;
  }
}

}  // namespace reference

// ---------------------------------------------------------------------------
// A thread's events as the hooks record them, pseudo-random but with the
// shapes that matter to the encoder: blocks freed soon after they are made
// (free_ref), blocks made again right after their free (reuse_ref), frees of
// blocks the stream never saw, ticks that escape the gap coding or go
// backwards, frame jumps of 2^32 and more.
class StreamGenerator {
 public:
  explicit StreamGenerator(uint64_t seed) : rng_(seed) {}

  std::vector<Event> Next(size_t count) {
    std::vector<Event> out;
    out.reserve(count);
    while (out.size() < count) out.push_back(NextEvent());
    return out;
  }

 private:
  struct Block {
    uint64_t address, size;
  };

  uint64_t Below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }
  bool Chance(int percent) { return Below(100) < static_cast<uint64_t>(percent); }

  uint64_t RandomSize() {
    switch (Below(20)) {
      case 0: return Below(1 << 20);
      case 1: return 16 * 1024 + Below(100000);
      case 2: return Chance(50) ? uint64_t{1} << 40 : UINT64_MAX - Below(3);
      case 3: return 0;
      default: return 1 + Below(600);
    }
  }
  uint64_t NewAddress() {
    switch (Below(30)) {
      case 0: return 0;  // a failed allocation
      case 1: return 0x7f0000000000 + (Below(1 << 20) << 12);  // an mmap'd block
      case 2: return UINT64_MAX - Below(1 << 16);
      default:
        next_address_ += 16 * (1 + Below(64));
        if (Chance(2)) next_address_ -= 16 * Below(1 << 16);  // heap addresses go down too
        return next_address_;
    }
  }
  uint32_t Family() { return static_cast<uint32_t>(Below(3)); }
  uint32_t Flags() {
    uint32_t flags = 0;
    if (Chance(10)) flags |= wire::kFlagRealloc;
    if (Chance(8)) flags |= wire::kFlagCalloc;
    if (Chance(3)) flags |= wire::kFlagCustom;
    return flags;
  }
  uint32_t Duration() {
    switch (Below(40)) {
      case 0: return UINT32_MAX - static_cast<uint32_t>(Below(4));
      case 1: return static_cast<uint32_t>(Below(1u << 31));
      case 2: return 0;
      default: return static_cast<uint32_t>(20 + Below(400));
    }
  }
  uint32_t StackId() {
    if (Chance(20)) return 0;
    if (Chance(2)) return UINT32_MAX - static_cast<uint32_t>(Below(10));
    return static_cast<uint32_t>(1 + Below(5000));
  }
  // The event's tick: mostly after the previous event's end, sometimes a
  // plain read early (before that end: ticks_exact), sometimes backwards (a
  // glitch the encoder clamps), sometimes near 0 or a long sleep later.
  uint64_t Tick(uint32_t duration) {
    switch (Below(50)) {
      case 0: ticks_ = ticks_ > 1000 ? ticks_ - Below(1000) : ticks_; break;  // backwards
      case 1: ticks_ += 0; break;                                               // the same tick
      case 2: ticks_ += Below(uint64_t{1} << 40); break;                        // a long sleep
      case 3: ticks_ = Below(4) == 0 ? Below(duration + uint64_t{1}) : ticks_; break;  // near tick 0
      case 4: ticks_ += Below(5); break;  // inside the previous event's duration
      default: ticks_ += 1 + Below(3000) + duration; break;
    }
    return ticks_;
  }
  uint64_t Frame() {
    switch (Below(2000)) {
      case 0: frame_ += uint64_t{1} << 32; break;               // a jump of exactly 2^32: a new packet
      case 1: frame_ += (uint64_t{1} << 32) - 1; break;         // the largest delta that fits
      case 2: frame_ += (uint64_t{1} << 32) + Below(1 << 20); break;
      default: break;
    }
    return frame_;
  }

  Event Make(uint32_t kind, uint32_t family, uint32_t flags, uint64_t address, uint64_t size, uint32_t stack,
             uint32_t duration) {
    Event e{};
    e.address = address;
    e.size = size;
    e.stack_id = stack;
    e.duration = duration;
    e.ticks = Tick(duration);
    e.frame_kind = PackFrameKind(Frame(), wire::PackKind(kind, family, flags));
    return e;
  }

  Event Alloc(uint32_t kind, uint64_t address, uint64_t size) {
    Event e = Make(kind, kind == wire::EVENT_MAP ? uint32_t{wire::FAMILY_MMAP} : Family(), Flags(), address, size, StackId(),
                   Duration());
    if (address) live_.push_back({address, size});
    return e;
  }

  Event NextEvent() {
    uint64_t roll = Below(100);
    if (roll < 38) {  // an allocation: often the block just freed
      if (!freed_.empty() && Chance(45)) {
        size_t k = freed_.size() - 1 - std::min<size_t>(Below(4), freed_.size() - 1);
        Block b = freed_[k];
        freed_.erase(freed_.begin() + static_cast<long>(k));
        uint64_t size = Chance(80) ? b.size : RandomSize();
        return Alloc(wire::EVENT_ALLOC, b.address, size);
      }
      return Alloc(wire::EVENT_ALLOC, NewAddress(), RandomSize());
    }
    if (roll < 74) {  // a free: mostly of a recent block
      Block b{0, 0};
      uint64_t how = Below(100);
      if (!live_.empty() && how < 70) {
        size_t k = live_.size() - 1 - std::min<size_t>(Below(8), live_.size() - 1);
        b = live_[k];
        live_.erase(live_.begin() + static_cast<long>(k));
      } else if (!live_.empty() && how < 88) {
        size_t k = Below(live_.size());
        b = live_[k];
        live_.erase(live_.begin() + static_cast<long>(k));
      } else if (how < 95) {
        b = {0x5500000000 + 16 * Below(1 << 24), 0};  // a block the stream never saw
      }  // else free(nullptr)
      if (b.address) {
        freed_.push_back(b);
        if (freed_.size() > 64) freed_.erase(freed_.begin());
      }
      if (live_.size() > 4096) live_.erase(live_.begin(), live_.begin() + 1024);
      uint64_t size = Chance(30) ? b.size : 0;  // a sized free
      return Make(wire::EVENT_FREE, Family(), Flags() & wire::kFlagRealloc, b.address, size, Chance(5) ? StackId() : 0,
                  Duration());
    }
    if (roll < 78) return Alloc(wire::EVENT_MAP, NewAddress() & ~uint64_t{0xfff}, (1 + Below(64)) << 12);
    if (roll < 80) {
      Block b = live_.empty() ? Block{0x7f0000000000, 4096} : live_.back();
      if (!live_.empty()) live_.pop_back();
      return Make(wire::EVENT_UNMAP, wire::FAMILY_MMAP, 0, b.address, b.size, 0, Duration());
    }
    if (roll < 86) {  // a frame ends: size = the frame that ended
      Event e = Make(wire::EVENT_FRAME_END, 0, 0, Below(4), frame_, 0, 0);
      ++frame_;
      return e;
    }
    return Make(wire::EVENT_MARKER, 0, 0, 0, Below(300), 0, 0);  // a marker: size = its id
  }

  std::mt19937_64 rng_;
  uint64_t ticks_ = 1'000'000'000;
  uint64_t frame_ = 1;
  uint64_t next_address_ = 0x555555560000;
  std::vector<Block> live_, freed_;
};

// The real encoder's bytes: a SocketSink on a socketpair whose other end is
// drained by a thread for as long as the test runs (a long stream is more
// than the sink's buffer and the socket's together).
class EventBatchBytesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0);
    ASSERT_TRUE(sink_.Adopt(fds_[0]));
    reader_ = std::thread([this] {
      uint8_t chunk[1 << 16];
      for (;;) {
        ssize_t n = recv(fds_[1], chunk, sizeof(chunk), 0);
        if (n <= 0) break;
        received_.insert(received_.end(), chunk, chunk + n);
      }
    });
    ref_state_.reset(new reference::EventEncoderState);
    NewStream();
  }
  void TearDown() override {
    if (reader_.joinable()) {
      sink_.Close();
      reader_.join();
    }
    close(fds_[1]);
  }

  // Both encoders forget every block: a new stream (connection).
  void NewStream() {
    ResetEventEncoder();
    ref_state_->refs.Clear();
  }
  void Encode(uint32_t tid, const std::vector<Event>& events, uint64_t dropped) {
    EncodeEventBatch(sink_, tid, events.data(), static_cast<int>(events.size()), dropped);
    reference::EncodeEventBatch(expected_, ref_state_.get(), tid, events.data(), static_cast<int>(events.size()),
                                dropped);
  }
  // Everything the real encoder sent.
  const std::vector<uint8_t>& Received() {
    EXPECT_TRUE(sink_.Flush());
    sink_.Close();
    reader_.join();
    return received_;
  }

  int fds_[2];
  SocketSink sink_;
  std::thread reader_;
  std::vector<uint8_t> received_;
  std::unique_ptr<reference::EventEncoderState> ref_state_;
  reference::Sink expected_;
};

// The packets of a framed byte stream, with their offsets.
std::vector<std::pair<size_t, wire::Packet>> Split(const std::vector<uint8_t>& bytes) {
  std::vector<std::pair<size_t, wire::Packet>> out;
  const uint8_t* p = bytes.data();
  const uint8_t* end = p + bytes.size();
  while (p < end) {
    uint64_t length = 0;
    size_t at = static_cast<size_t>(p - bytes.data());
    if (!wire::ReadVarint(&p, end, &length) || length > static_cast<uint64_t>(end - p)) {
      ADD_FAILURE() << "bad framing at " << at;
      break;
    }
    wire::Packet packet;
    EXPECT_TRUE(packet.ParseFromArray(p, static_cast<int>(length))) << at;
    out.emplace_back(at, std::move(packet));
    p += length;
  }
  return out;
}

void ExpectSameBytes(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  ASSERT_EQ(got.size(), want.size());
  auto diff = std::mismatch(got.begin(), got.end(), want.begin());
  ASSERT_TRUE(diff.first == got.end()) << "first difference at byte " << (diff.first - got.begin()) << " of "
                                       << got.size();
}

TEST_F(EventBatchBytesTest, SameBytesAsThePerColumnEncoder) {
  StreamGenerator gen(0x6d656d6672616d65ull);
  std::mt19937_64 rng(42);
  // Batch sizes: single events, typical runs, the writer's largest batch
  // (32 Ki), and more than a packet holds (split at 64 Ki).
  const int sizes[] = {1, 1, 2, 7, 100, 1000, 4096, 32768, 32769, 1, 50000, 70000, 3, 32768};
  uint32_t tid = 1000;
  for (int stream = 0; stream < 4; ++stream) {
    if (stream) NewStream();
    for (int size : sizes) {
      uint64_t dropped = rng() % 4 == 0 ? rng() % 100000 + 1 : 0;
      if (rng() % 16 == 0) dropped = UINT64_MAX;
      Encode(tid + static_cast<uint32_t>(rng() % 3), gen.Next(static_cast<size_t>(size)), dropped);
    }
  }
  ASSERT_FALSE(expected_.overflowed);
  const std::vector<uint8_t>& got = Received();
  ExpectSameBytes(got, expected_.bytes);

  // The streams had what the test is for: references of both kinds, events
  // sent by address, escaped ticks, batches split by frame jumps and by size,
  // batches without frees or without allocations.
  uint64_t free_refs = 0, free_addresses = 0, reuse_refs = 0, exact = 0, no_frees = 0, no_allocs = 0, dropped = 0;
  size_t packets = 0;
  for (const auto& [at, packet] : Split(expected_.bytes)) {
    ASSERT_TRUE(packet.has_events()) << at;
    const wire::EventBatch& b = packet.events();
    ++packets;
    for (uint32_t r : b.free_ref()) (r ? free_refs : free_addresses)++;
    for (uint32_t r : b.reuse_ref()) reuse_refs += r != 0;
    exact += static_cast<uint64_t>(b.ticks_exact_size());
    no_frees += b.free_ref_size() == 0;
    no_allocs += b.reuse_ref_size() == 0;
    dropped += b.dropped() != 0;
  }
  EXPECT_GT(packets, 4 * std::size(sizes));  // frame jumps and 64 Ki split some batches
  EXPECT_GT(free_refs, 10000u);
  EXPECT_GT(free_addresses, 1000u);
  EXPECT_GT(reuse_refs, 10000u);
  EXPECT_GT(exact, 1000u);
  EXPECT_GT(no_frees, 0u);
  EXPECT_GT(no_allocs, 0u);
  EXPECT_GT(dropped, 0u);
}

// Hand-made batches at the edges: a batch whose every address goes by
// reference (an empty address_delta column), batches with one kind of event
// only, a frame jump of 2^32 in the middle, ticks below the duration.
TEST_F(EventBatchBytesTest, SameBytesAtTheEdges) {
  auto ev = [](uint64_t ticks, uint64_t address, uint64_t size, uint32_t kind, uint64_t frame, uint32_t duration) {
    Event e{};
    e.ticks = ticks;
    e.address = address;
    e.size = size;
    e.stack_id = 3;
    e.duration = duration;
    e.frame_kind = PackFrameKind(frame, wire::PackKind(kind, wire::FAMILY_MALLOC, 0));
    return e;
  };
  using wire::EVENT_ALLOC, wire::EVENT_FREE, wire::EVENT_MARKER, wire::EVENT_FRAME_END;
  Encode(1, {ev(100, 0x1000, 32, EVENT_ALLOC, 5, 10)}, 0);
  Encode(1, {ev(200, 0x1000, 0, EVENT_FREE, 5, 10), ev(300, 0x1000, 32, EVENT_ALLOC, 5, 10)}, 0);  // all by reference
  Encode(1, {ev(400, 0, 7, EVENT_MARKER, 5, 0)}, 0);                                             // no frees, no allocs
  Encode(1, {ev(500, 0x2000, 0, EVENT_FREE, 6, 1)}, 9);                                           // frees only
  Encode(1, {ev(3, 0x3000, 16, EVENT_ALLOC, 6, 10), ev(2, 0x3000, 0, EVENT_FREE, 6, 10)}, 0);    // escapes, backwards
  Encode(1,
         {ev(600, 0x4000, 16, EVENT_ALLOC, 6, 1), ev(700, 0, 6, EVENT_FRAME_END, (uint64_t{1} << 32) + 6, 0),
          ev(800, 0x4000, 0, EVENT_FREE, (uint64_t{1} << 32) + 6, 1),
          ev(900, 0x4000, 0, EVENT_FREE, (uint64_t{1} << 33) + 6, 1)},
         0);
  ASSERT_FALSE(expected_.overflowed);
  ExpectSameBytes(Received(), expected_.bytes);
  // The second batch sent no address.
  auto packets = Split(expected_.bytes);
  ASSERT_EQ(packets.size(), 8u);
  EXPECT_EQ(packets[1].second.events().address_delta_size(), 0);
  EXPECT_EQ(packets[1].second.events().free_ref_size(), 1);
  EXPECT_EQ(packets[2].second.events().free_ref_size(), 0);
  EXPECT_EQ(packets[2].second.events().reuse_ref_size(), 0);
  EXPECT_GT(packets[4].second.events().ticks_exact_size(), 0);
}

}  // namespace
}  // namespace memframe::agent
