// Captures that would harm the analyst's machine: records that claim more
// memory than the file can hold, module paths naming a FIFO, damage in the
// middle of the file. A clear message, a bounded amount of memory, no hang,
// and never a record used before its block passed its checksum.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <new>
#include <thread>

#include "memframe/analysis/capture_loader.h"
#include "memframe/capture_file.h"
#include "report_run.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TempPath;
using testing::TestCapture;
using testing::TestEvent;

Capture Load(const std::string& path) {
  Capture c;
  std::string error;
  EXPECT_TRUE(LoadCapture(path, &c, &error)) << error;
  return c;
}

TEST(HostileCapture, AStackDeeperThanAnAgentSendsIsDamage) {
  TestCapture tc;
  tc.Stack(1, std::vector<uint64_t>(wire::kMaxStackDepth, 0x1000));
  tc.Batch(1, {Alloc(10, 0, 0x100, 8, 1)});
  // (A crafted capture of 3 KB held one stack of eight million frames.)
  tc.Stack(2, std::vector<uint64_t>(wire::kMaxStackDepth + 1, 0x1000));
  tc.Batch(1, {Alloc(20, 0, 0x200, 8, 2)});
  TempPath file("deep_stack");
  ASSERT_TRUE(tc.Write(file.path()));
  Capture c = Load(file.path());
  EXPECT_EQ(c.damage, "stream 1: stack 2 has 65 frames (an agent sends at most 64)");
  ASSERT_EQ(c.main.events.size(), 1u);
  EXPECT_EQ(c.main.stacks.at(1).size(), wire::kMaxStackDepth);
  EXPECT_EQ(c.main.stacks.count(2), 0u);
}

TEST(HostileCapture, ASnapshotNameLongerThanTheRecorderTakesIsDamage) {
  TestCapture tc;
  tc.Batch(1, {Alloc(10, 0, 0x100, 8, 0)});
  wire::Packet ok, huge;
  ok.mutable_snapshot()->set_name(std::string(wire::kMaxSnapshotNameBytes, 'a'));
  huge.mutable_snapshot()->set_name(std::string(wire::kMaxSnapshotNameBytes + 1, 'a'));
  tc.Add(0, ok);
  tc.Add(0, huge);
  TempPath file("snapshot_name");
  ASSERT_TRUE(tc.Write(file.path()));
  Capture c = Load(file.path());
  EXPECT_EQ(c.damage, "capture is corrupt: a snapshot name of 201 bytes (a recorder takes at most 200)");
  EXPECT_EQ(c.recorder.snapshots.size(), 1u);
}

TEST(HostileCapture, ABatchOfMoreEventsThanAnAgentSendsIsDamage) {
  TestCapture tc;
  tc.Batch(1, {Alloc(10, 0, 0x100, 8, 0)});
  wire::Packet p;
  p.mutable_events()->set_thread_id(1);
  // Kinds that do not compress: the bound on the batch is what stops it,
  // not the bound on what the file can hold.
  uint64_t seed = 1;
  for (uint32_t i = 0; i <= wire::kMaxBatchEvents; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    p.mutable_events()->add_kind(static_cast<uint32_t>(seed >> 57));
  }
  tc.Add(p);
  TempPath file("many_events");
  ASSERT_TRUE(tc.Write(file.path()));
  Capture c = Load(file.path());
  EXPECT_EQ(c.damage, "stream 1: corrupt batch of thread 1: 1048577 events (at most 1048576)");
  EXPECT_EQ(c.main.events.size(), 1u);
}

// zstd turns a few bytes into megabytes of zeros: a reader stops where the
// file could not hold what it claims, keeping the records before.
TEST(HostileCapture, RecordsThatDecompressFarPastTheFileAreRefused) {
  TempPath file("expansion");
  std::string error;
  auto writer = wire::CaptureWriter::Create(file.path(), &error);
  ASSERT_TRUE(writer) << error;
  const std::vector<uint8_t> zeros(1u << 20, 0);
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(writer->Append(1, zeros.data(), zeros.size()));
  ASSERT_TRUE(writer->Close());
  ASSERT_LT(file.ReadAll().size(), 64u * 1024);  // 64 MiB in a few KiB
  auto reader = wire::CaptureReader::Open(file.path(), &error);
  ASSERT_TRUE(reader) << error;
  wire::CaptureRecord record;
  int records = 0;
  while (reader->Next(&record)) ++records;
  EXPECT_LT(records, 8);
  EXPECT_NE(reader->error().find("times as many: damaged or crafted"), std::string::npos) << reader->error();
}

class ThrowingSource : public PacketSource {
 public:
  bool Next(uint32_t*, std::vector<uint8_t>*) override { throw std::bad_alloc(); }
  std::string error() const override { return ""; }
};

TEST(HostileCapture, RunningOutOfMemoryWhileLoadingIsAnError) {
  ThrowingSource source;
  Capture c;
  std::string error;
  EXPECT_FALSE(LoadCapture(source, "big.mfc", &c, &error));
  EXPECT_EQ(error, "out of memory while reading big.mfc (the capture needs more memory than this machine gives)");
}

// ---- damage ------------------------------------------------------------------

// One thread's batches, each its own record: whatever is loaded from a
// damaged copy must be these events from the start, unchanged. Random
// addresses, sizes and times do not compress, so zstd stores them as they
// are, where only the checksum can tell a flipped bit. Larger than one
// decompression call's output (128 KiB): readers used what came before the
// checksum.
TestCapture ManyBatches(uint64_t per_batch) {
  TestCapture tc;
  uint64_t ticks = 100, seed = 3;
  auto next = [&seed] { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 20; };
  for (uint64_t b = 0; b < 24; ++b) {
    std::vector<TestEvent> events;
    for (uint64_t i = 0; i < per_batch; ++i) {
      uint64_t address = next() << 4;
      ticks += next() % 100000;
      events.push_back(Alloc(ticks++, b, address, next() % 5000, 0));
      if (i % 2) events.push_back(Free(ticks++, b, address));
    }
    events.push_back(FrameEnd(ticks++, b));
    tc.Batch(1, events);
  }
  tc.End();
  return tc;
}

bool SameEvent(const Event& a, const Event& b) {
  return a.ticks == b.ticks && a.address == b.address && a.size == b.size && a.frame == b.frame &&
         a.packed_kind == b.packed_kind && a.stack_id == b.stack_id;
}

TEST(HostileCapture, ABitFlipAnywhereNeverChangesWhatIsLoaded) {
  TempPath file("flips");
  ASSERT_TRUE(ManyBatches(2000).Write(file.path()));
  const std::string bytes = file.ReadAll();
  const Capture truth = Load(file.path());
  ASSERT_EQ(truth.damage, "");
  const size_t all = truth.main.events.size();
  ASSERT_EQ(all, 24u * 3001);
  ASSERT_GT(bytes.size(), 512u * 1024);
  // 250 bits across the file, one a byte.
  for (size_t at = 12, k = 0; at < bytes.size(); at += bytes.size() / 250, ++k) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ (1 << (k % 8)));
    std::string error;
    auto source = OpenCaptureMemory(damaged.data(), damaged.size(), "flipped", &error);
    ASSERT_TRUE(source) << error;
    Capture c;
    ASSERT_TRUE(LoadCapture(*source, "flipped", &c, &error)) << at << ": " << error;
    const size_t n = c.main.events.size();
    if (c.damage.empty()) {
      EXPECT_EQ(n, all) << "byte " << at << " flipped silently";
    }
    ASSERT_LE(n, all) << at;
    for (size_t i = 0; i < n; ++i)
      ASSERT_TRUE(SameEvent(c.main.events[i], truth.main.events[i])) << "byte " << at << " changed event " << i;
  }
}

// Offsets of the zstd frames in a capture file.
std::vector<size_t> FrameStarts(const std::string& bytes) {
  std::vector<size_t> starts;
  const std::string magic = "\x28\xb5\x2f\xfd";
  for (size_t at = bytes.find(magic, 12); at != std::string::npos; at = bytes.find(magic, at + 1)) starts.push_back(at);
  return starts;
}

TEST(HostileCapture, DamageSaysWhereAndWhatWasDropped) {
  TempPath file("damage_where");
  ASSERT_TRUE(ManyBatches(6).Write(file.path()));
  std::string bytes = file.ReadAll();
  // The opening empty frame; the Hello, 24 batches and the end, each
  // flushed: a frame each; the closing empty frame.
  const std::vector<size_t> frames = FrameStarts(bytes);
  ASSERT_EQ(frames.size(), 28u);
  const size_t victim = frames[11];  // batch 9
  bytes[(victim + frames[12]) / 2] ^= 0x10;
  file.WriteAll(bytes);
  std::string error;
  auto reader = wire::CaptureReader::Open(file.path(), &error);
  ASSERT_TRUE(reader) << error;
  wire::CaptureRecord record;
  int records = 0;
  while (reader->Next(&record)) ++records;
  EXPECT_EQ(records, 10);
  const std::string where = "capture is damaged in the block at byte offset " + std::to_string(victim) + " of " +
                            std::to_string(bytes.size()) + " (zstd: ";
  EXPECT_EQ(reader->error().substr(0, where.size()), where) << reader->error();
  EXPECT_NE(reader->error().find("the rest of the file were dropped"), std::string::npos) << reader->error();
}

TEST(HostileCapture, DamageBeforeTheFirstEventIsNotAMissingAgent) {
  TempPath file("damage_first");
  ASSERT_TRUE(ManyBatches(6).Write(file.path()));
  std::string bytes = file.ReadAll();
  const std::vector<size_t> frames = FrameStarts(bytes);
  bytes[(frames[1] + frames[2]) / 2] ^= 0x04;  // inside the Hello
  file.WriteAll(bytes);
  testing::ReportResult r = testing::RunReportCli(file.path(), "", {}, false);
  EXPECT_NE(r.code, 0);
  EXPECT_EQ(r.err.find("never connected"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("capture is damaged in the block at byte offset " + std::to_string(frames[1]) + " of"),
            std::string::npos)
      << r.err;
}

// ---- files a capture names ---------------------------------------------------

// `memframe report` on a capture whose module is a FIFO: before, open()
// waited for a writer for good.
TEST(HostileCapture, AModulePathNamingAFifoDoesNotHangTheReport) {
  TempPath fifo("module_fifo");
  ASSERT_EQ(mkfifo(fifo.path().c_str(), 0600), 0);
  TestCapture tc;
  tc.Module(fifo.path(), 0x40000000, 0, 0x10000);
  tc.Stack(1, {0x40000100});
  tc.Batch(1, {Alloc(10, 0, 0x100, 64, 1), FrameEnd(11, 0)});
  tc.End();
  TempPath file("fifo_capture");
  ASSERT_TRUE(tc.Write(file.path()));

  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    execl(MEMFRAME_CLI_PATH, "memframe", "report", file.path().c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  bool finished = false;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
       std::chrono::steady_clock::now() < deadline;) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      finished = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!finished) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  ASSERT_TRUE(finished) << "memframe report hung on a capture naming a FIFO";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A capture of one allocation and one frame, run to its end.
TestCapture OneRun() {
  TestCapture tc;
  tc.Recorder(false, 0);
  tc.Marker(1, "glfwSwapBuffers");
  tc.Batch(1, {Alloc(10, 0, 0x100, 64, 0), FrameEnd(20, 0)});
  tc.End(2);
  tc.Recorder(true, 0);
  return tc;
}

TEST(HostileCapture, ABodyAppendedTwiceIsDamageNotDoubledFigures) {
  TempPath once("once");
  ASSERT_TRUE(OneRun().Write(once.path()));
  const std::string bytes = once.ReadAll();
  constexpr size_t kHeader = 12;  // "MEMFRAME" and the version
  TempPath twice("twice");
  twice.WriteAll(bytes + bytes.substr(kHeader));
  Capture c = Load(twice.path());
  EXPECT_EQ(c.damage, "capture goes on past its closing block, at byte offset " + std::to_string(bytes.size()) +
                          " of " + std::to_string(2 * bytes.size() - kHeader) +
                          " (a capture's body appended to it again?): the rest of the file was dropped");
  EXPECT_EQ(c.main.events.size(), 2u);
  // The report says so and exits 1, as for any damage; the summary that
  // reads in one pass too.
  for (const char* report : {"summary", "frames"}) {
    testing::ReportResult r = testing::RunReportCli(twice.path(), report, {}, false);
    EXPECT_EQ(r.code, 1) << report;
    EXPECT_NE(r.err.find("capture goes on past its closing block"), std::string::npos) << r.err;
  }
}

// The records of a capture written as one zstd frame (writers before frames
// were checked) appended again, or joined by hand: caught by what they say.
TEST(HostileCapture, AStreamThatStartsOverOrGoesOnAfterItsEndIsDamage) {
  TestCapture after_end = OneRun();
  after_end.Batch(1, {Alloc(30, 1, 0x200, 64, 0)});
  TempPath a("after_end");
  ASSERT_TRUE(after_end.Write(a.path()));
  EXPECT_EQ(Load(a.path()).damage,
            "capture is corrupt: stream 1 goes on after its end record (a capture's records appended to it again?)");

  TestCapture restarted;
  restarted.Batch(1, {Alloc(10, 0, 0x100, 64, 0)});
  restarted.Add(1, TestCapture().Packets().front());
  restarted.Batch(1, {Alloc(10, 0, 0x100, 64, 0)});
  TempPath b("restarted");
  ASSERT_TRUE(restarted.Write(b.path()));
  Capture c = Load(b.path());
  EXPECT_EQ(c.damage,
            "capture is corrupt: stream 1 says Hello a second time (a capture's records appended to it again?)");
  EXPECT_EQ(c.main.events.size(), 1u);

  TestCapture closed_twice = OneRun();
  closed_twice.Recorder(true, 0);
  TempPath d("closed_twice");
  ASSERT_TRUE(closed_twice.Write(d.path()));
  EXPECT_EQ(Load(d.path()).damage,
            "capture is corrupt: a recorder record after the closing one (a capture's records appended to it "
            "again?)");
}

}  // namespace
}  // namespace memframe::analysis
