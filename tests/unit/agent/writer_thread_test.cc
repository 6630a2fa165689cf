// The writer thread draining the rings while game threads push events and
// intern stacks, as in a game: every event arrives exactly once, in its
// thread's order, after the definition of its stack, which holds exactly the
// frames interned. The ThreadSanitizer build (MEMFRAME_TSAN) runs this to
// check the rings, the stack table and the writer for races.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "buffer/thread_buffer.h"
#include "capture/clock.h"
#include "capture/stack_table.h"
#include "encoder_fixture.h"
#include "writer/module_map.h"
#include "writer/writer_thread.h"

namespace memframe::agent {
namespace {

constexpr int kThreads = 4;
// Twice a ring and more: the producers fill their rings and wait for the writer.
constexpr uint64_t kEventsPerThread = 2 * kRingRecords + 123;
constexpr uint64_t kStacks = 300;  // shared by all threads, interned by whichever comes first

// The stack of event `i` of thread `t`: threads reach the same stacks in
// different orders, and stacks differ in depth.
int StackOf(int t, uint64_t i, uint64_t* frames) {
  uint64_t s = (i * 7 + static_cast<uint64_t>(t) * 101) % kStacks;
  int depth = 1 + static_cast<int>(s % 5);
  for (int k = 0; k < depth; ++k) frames[k] = 0x400000 + s * 0x100 + static_cast<uint64_t>(k);
  return depth;
}

uint64_t AddressOf(int t, uint64_t i) { return (static_cast<uint64_t>(t) + 1) << 40 | i << 4; }

// The writer with a socket pair; the test's thread reads what it sends.
class Recording {
 public:
  void Start(const WriterOptions& options) {
    ASSERT_TRUE(InitStackTable());
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0);
    ASSERT_TRUE(sink_.Adopt(fds_[0]));
    reader_ = std::thread([this] {
      uint8_t chunk[1 << 16];
      for (ssize_t n; (n = recv(fds_[1], chunk, sizeof(chunk), 0)) > 0;) received.insert(received.end(), chunk, chunk + n);
    });
    static const char kCmdline[] = "writer_thread_test";
    HelloInfo hello{};
    hello.pid = static_cast<uint32_t>(getpid());
    hello.executable = kCmdline;
    hello.cmdline = kCmdline;
    hello.cmdline_size = sizeof(kCmdline);
    hello.start_ticks = Ticks();
    hello.start_monotonic_ns = MonotonicNs();
    hello.max_stack_depth = 8;
    ASSERT_TRUE(StartWriter(&sink_, hello, options));
  }
  void Stop() {
    StopWriter("test-stop", 30000);
    reader_.join();
    close(fds_[1]);
  }
  std::vector<uint8_t> received;

 private:
  int fds_[2] = {-1, -1};
  SocketSink sink_;
  std::thread reader_;
};

// kThreads threads push kEventsPerThread events each; their tids.
std::vector<uint32_t> PushFromThreads() {
  std::vector<uint32_t> tids(kThreads);
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      tids[t] = CurrentThreadId();
      const uint32_t alloc = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0);
      for (uint64_t i = 0; i < kEventsPerThread; ++i) {
        uint64_t frames[8];
        int depth = StackOf(t, i, frames);
        PushEvent(Event{Ticks(), AddressOf(t, i), i + 1, InternStack(frames, depth), 0, PackFrameKind(0, alloc)});
      }
    });
  }
  for (auto& p : producers) p.join();
  return tids;
}

// Every event of every thread once, in its thread's order, after its stack.
void ExpectEveryEventOnceInOrder(const std::vector<uint8_t>& received, const std::vector<uint32_t>& tids) {
  std::map<uint32_t, int> thread_of_tid;
  for (int t = 0; t < kThreads; ++t) thread_of_tid[tids[t]] = t;
  std::map<uint32_t, std::vector<uint64_t>> defined;  // stack id -> its frames
  std::vector<uint64_t> next(kThreads, 0);
  wire::EventBatchDecoder decoder(wire::kProtocolVersion);
  bool ended = false;
  for (const auto& [at, packet] : SplitFramedPackets(received)) {
    ASSERT_FALSE(ended) << "a packet after EndOfStream at " << at;
    if (packet.has_stacks()) {
      for (const wire::StackDef& def : packet.stacks().stacks()) {
        ASSERT_EQ(defined.count(def.id()), 0u) << "stack " << def.id() << " defined twice";
        defined[def.id()].assign(def.frames().begin(), def.frames().end());
      }
    } else if (packet.has_events()) {
      auto it = thread_of_tid.find(packet.events().thread_id());
      ASSERT_NE(it, thread_of_tid.end()) << "events of an unknown thread at " << at;
      const int t = it->second;
      std::vector<wire::PlainEvent> events;
      std::string error;
      ASSERT_TRUE(decoder.Decode(packet.events(), &events, &error)) << error;
      for (const wire::PlainEvent& e : events) {
        const uint64_t i = next[t]++;
        ASSERT_LT(i, kEventsPerThread) << "thread " << t;
        ASSERT_EQ(e.address, AddressOf(t, i)) << "thread " << t << " event " << i;
        ASSERT_EQ(e.size, i + 1);
        ASSERT_EQ(defined.count(e.stack_id), 1u) << "stack " << e.stack_id << " used before its definition";
        uint64_t frames[8];
        int depth = StackOf(t, i, frames);
        ASSERT_EQ(defined[e.stack_id], std::vector<uint64_t>(frames, frames + depth)) << "stack " << e.stack_id;
      }
      EXPECT_EQ(packet.events().dropped(), 0u);
    } else if (packet.has_end()) {
      EXPECT_EQ(packet.end().events(), kThreads * kEventsPerThread);
      EXPECT_EQ(packet.end().dropped(), 0u);
      EXPECT_EQ(packet.end().reason(), "test-stop");
      ended = true;
    }
  }
  EXPECT_TRUE(ended);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(next[t], kEventsPerThread) << "thread " << t;
  EXPECT_EQ(defined.size(), kStacks);
}


TEST(WriterThread, EveryEventOfEveryThreadArrivesOnceInOrderAfterItsStack) {
  Recording recording;
  recording.Start(WriterOptions{});
  const std::vector<uint32_t> tids = PushFromThreads();
  recording.Stop();
  ExpectEveryEventOnceInOrder(recording.received, tids);
}

// The writer held up in its first pass (by the modules_loaded callback,
// which it calls outside the encoding): producers whose rings are full drain
// them themselves rather than wait for it, losing nothing. When threads
// outnumber cores the writer is held up this way by the scheduler.
std::atomic<bool> g_producers_done{false};
std::atomic<bool> g_writer_held{false};
std::atomic<bool> g_done_while_held{false};
bool HoldTheWriter() {
  if (g_writer_held.exchange(true)) return false;
  for (int waited_ms = 0; waited_ms < 30000 && !g_producers_done.load(); ++waited_ms) usleep(1000);
  g_done_while_held = g_producers_done.load();
  return false;
}

TEST(WriterThread, ProducersDrainTheirOwnFullRingsWhileTheWriterIsHeldUp) {
  ForgetWriterAfterFork();  // a writer of an earlier test in this process,
  ForgetModuleMapAfterFork();  // and its module map: this writer's first pass calls modules_loaded
  Recording recording;
  WriterOptions options;
  options.modules_loaded = HoldTheWriter;
  recording.Start(options);
  for (int waited_ms = 0; waited_ms < 10000 && !g_writer_held.load(); ++waited_ms) usleep(1000);
  ASSERT_TRUE(g_writer_held.load()) << "the writer never called modules_loaded";
  const std::vector<uint32_t> tids = PushFromThreads();
  g_producers_done = true;
  recording.Stop();
  EXPECT_TRUE(g_done_while_held.load()) << "the producers waited for the writer";
  ExpectEveryEventOnceInOrder(recording.received, tids);
}

}  // namespace
}  // namespace memframe::agent
