// EncodeEventBatch over long pseudo-random streams of every kind of event the
// agent records, at the writer's batch sizes: the packets must decode to
// exactly the events sent, as the wire's model says a reader gets them
// (ticks clamped within a packet, time in units of 2^kTickShift ticks), and
// must carry every shape of column the format has.
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
#include "encoder_fixture.h"
#include "memframe.pb.h"
#include "memframe/event_refs.h"
#include "memframe/format.h"
#include "memframe/varint.h"
#include "writer/packet_encoder.h"
#include "writer/socket_sink.h"

namespace memframe::agent {
namespace {

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
class EventBatchStreamTest : public ::testing::Test {
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
    ResetEventEncoder();
  }
  void TearDown() override {
    if (reader_.joinable()) {
      sink_.Close();
      reader_.join();
    }
    close(fds_[1]);
  }

  // The encoder forgets every block: a new stream (connection). Its
  // packets are decoded by a new decoder.
  void NewStream() {
    ResetEventEncoder();
    stream_starts_.push_back(sent_.size());
  }
  void Encode(uint32_t tid, const std::vector<Event>& events, uint64_t dropped) {
    test_support::EncodeEvents(sink_, tid, events.data(), static_cast<int>(events.size()), dropped);
    sent_.insert(sent_.end(), events.begin(), events.end());
  }
  // Everything the encoder sent.
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
  std::vector<Event> sent_;
  std::vector<size_t> stream_starts_{0};  // index in sent_ of each stream's first event
};

// Decodes the packets as a reader does (one decoder per stream, starting
// at each of `stream_starts`) and checks every event against what was sent:
// exact, but for the time, which is the sent tick raised to the packet's
// previous one (a thread's ticks never go back within a packet) and then
// rounded to units at both ends of the event.
void ExpectDecodesToTheSentEvents(const std::vector<std::pair<size_t, wire::Packet>>& packets,
                                  const std::vector<Event>& sent, const std::vector<size_t>& stream_starts) {
  std::unique_ptr<wire::EventBatchDecoder> decoder;
  std::vector<wire::PlainEvent> decoded;
  size_t next = 0, next_stream = 0;
  for (const auto& [at, packet] : packets) {
    ASSERT_TRUE(packet.has_events()) << at;
    if (next_stream < stream_starts.size() && stream_starts[next_stream] == next) {
      decoder = std::make_unique<wire::EventBatchDecoder>(wire::kProtocolVersion);
      ++next_stream;
    }
    decoded.clear();
    std::string error;
    ASSERT_TRUE(decoder->Decode(packet.events(), &decoded, &error)) << at << ": " << error;
    ASSERT_LE(next + decoded.size(), sent.size()) << at;
    EXPECT_EQ(packet.events().tick_shift(), kTickShift);
    for (size_t k = 0; k < decoded.size(); ++k) {
      const Event& e = sent[next + k];
      Event want = e;
      if (k > 0 && e.ticks < sent[next + k - 1].ticks) want.ticks = sent[next + k - 1].ticks;
      const wire::PlainEvent& d = decoded[k];
      const size_t i = next + k;
      ASSERT_EQ(d.kind, e.kind()) << i;
      ASSERT_EQ(d.address, e.address) << i;
      ASSERT_EQ(d.size, e.size) << i;
      ASSERT_EQ(d.stack_id, e.stack_id) << i;
      ASSERT_EQ(d.frame, e.frame()) << i;
      ASSERT_EQ(d.ticks, SentTicks(want)) << i;
      ASSERT_EQ(d.duration, SentDuration(want)) << i;
    }
    next += decoded.size();
  }
  EXPECT_EQ(next, sent.size());
}

TEST_F(EventBatchStreamTest, LongRandomStreamsDecodeToTheEvents) {
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
  const auto packets = SplitFramedPackets(Received());
  ExpectDecodesToTheSentEvents(packets, sent_, stream_starts_);

  // The streams had what the test is for: references of both kinds, events
  // sent by address, escaped ticks, batches split by frame jumps and by size,
  // batches without frees or without allocations, FREE columns both sent
  // and left out.
  uint64_t free_refs = 0, free_addresses = 0, reuse_refs = 0, exact = 0, no_frees = 0, no_allocs = 0, dropped = 0;
  uint64_t free_sizes_sent = 0, free_sizes_left_out = 0, free_stacks_sent = 0, free_stacks_left_out = 0;
  for (const auto& [at, packet] : packets) {
    const wire::EventBatch& b = packet.events();
    for (uint32_t r : b.free_ref()) (r ? free_refs : free_addresses)++;
    for (uint32_t r : b.reuse_ref()) reuse_refs += r != 0;
    exact += static_cast<uint64_t>(b.ticks_exact_size());
    no_frees += b.free_ref_size() == 0;
    no_allocs += b.reuse_ref_size() == 0;
    dropped += b.dropped() != 0;
    if (b.free_ref_size()) {
      (b.free_size_size() ? free_sizes_sent : free_sizes_left_out)++;
      (b.free_stack_size() ? free_stacks_sent : free_stacks_left_out)++;
    }
  }
  EXPECT_GT(packets.size(), 4 * std::size(sizes));  // frame jumps and 64 Ki split some batches
  EXPECT_GT(free_refs, 10000u);
  EXPECT_GT(free_addresses, 1000u);
  EXPECT_GT(reuse_refs, 10000u);
  EXPECT_GT(exact, 1000u);
  EXPECT_GT(no_frees, 0u);
  EXPECT_GT(no_allocs, 0u);
  EXPECT_GT(dropped, 0u);
  EXPECT_GT(free_sizes_sent, 0u);
  EXPECT_GT(free_sizes_left_out, 0u);
  EXPECT_GT(free_stacks_sent, 0u);
  EXPECT_GT(free_stacks_left_out, 0u);
}

// Hand-made batches at the edges: a batch whose every address goes by
// reference (an empty address_delta column), batches with one kind of event
// only, a frame jump of 2^32 in the middle, ticks below the duration.
TEST_F(EventBatchStreamTest, EdgesDecodeToTheEvents) {
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
  const uint64_t u = uint64_t{1} << kTickShift;  // a time-stamp unit
  Encode(1, {ev(3 * u, 0x3000, 16, EVENT_ALLOC, 6, 10 * u), ev(2 * u, 0x3000, 0, EVENT_FREE, 6, 10)},
         0);  // escapes, backwards
  Encode(1,
         {ev(600, 0x4000, 16, EVENT_ALLOC, 6, 1), ev(700, 0, 6, EVENT_FRAME_END, (uint64_t{1} << 32) + 6, 0),
          ev(800, 0x4000, 0, EVENT_FREE, (uint64_t{1} << 32) + 6, 1),
          ev(900, 0x4000, 0, EVENT_FREE, (uint64_t{1} << 33) + 6, 1)},
         0);
  Encode(1, {ev(1000, 0x5000, 24, EVENT_FREE, 7, UINT32_MAX)}, 0);  // a sized free, the longest duration
  const auto packets = SplitFramedPackets(Received());
  ExpectDecodesToTheSentEvents(packets, sent_, stream_starts_);
  ASSERT_EQ(packets.size(), 9u);
  // The second batch sent no address.
  EXPECT_EQ(packets[1].second.events().address_delta_size(), 0);
  EXPECT_EQ(packets[1].second.events().free_ref_size(), 1);
  EXPECT_EQ(packets[2].second.events().free_ref_size(), 0);
  EXPECT_EQ(packets[2].second.events().reuse_ref_size(), 0);
  EXPECT_GT(packets[4].second.events().ticks_exact_size(), 0);
  // Frees only: no size or stack_id column; the FREE's stack (3) is sent.
  EXPECT_EQ(packets[3].second.events().size_size(), 0);
  EXPECT_EQ(packets[3].second.events().free_size_size(), 0);
  EXPECT_EQ(packets[3].second.events().free_stack_size(), 1);
  EXPECT_EQ(packets[8].second.events().free_size(0), 24u);
}

}  // namespace
}  // namespace memframe::agent
