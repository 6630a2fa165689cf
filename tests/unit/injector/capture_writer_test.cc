// The capture's write path when the disk fills: the writer keeps a capture
// that reads back whole, and the recorder says once that it stopped.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <sstream>

#include "fake_agent_client.h"
#include "launch.h"
#include "memframe/capture_file.h"
#include "recorder.h"

namespace memframe::injector {
namespace {

// Bytes that zstd cannot shrink.
std::string Incompressible(size_t size) {
  std::string bytes(size, '\0');
  uint32_t x = 1;
  for (char& c : bytes) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
  return bytes;
}

// Files this process writes may not grow past `bytes` while it lives (a full
// disk, without a mount); SIGXFSZ is ignored meanwhile, so writes fail with
// EFBIG instead.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit{bytes, old_.rlim_max};
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  sighandler_t old_handler_ = SIG_DFL;
};

TEST(CaptureWriter, AFailedWriteKeepsEverythingFlushedReadable) {
  test::TempDir dir;
  std::string path = dir.File("full.mfc"), error;
  auto writer = wire::CaptureWriter::Create(path, &error);
  ASSERT_TRUE(writer) << error;
  const std::string first = test::HelloPacket(), last = test::EndPacket(0);
  ASSERT_TRUE(writer->Append(1, first.data(), first.size()));
  ASSERT_TRUE(writer->Flush());
  {
    FileSizeLimit limit(writer->bytes_written() + 1000);
    std::string big = Incompressible(200000);
    EXPECT_FALSE(writer->Append(1, big.data(), big.size()) && writer->Flush());
  }
  EXPECT_EQ(writer->error(), "cannot write " + path + ": File too large");
  // The disk has room again (or the record is small): the closing record
  // follows the flushed ones.
  ASSERT_TRUE(writer->Append(0, last.data(), last.size()));
  EXPECT_TRUE(writer->Close());

  auto reader = wire::CaptureReader::Open(path, &error);
  ASSERT_TRUE(reader) << error;
  std::vector<std::string> packets;
  wire::CaptureRecord record;
  while (reader->Next(&record)) packets.emplace_back(record.packet.begin(), record.packet.end());
  EXPECT_EQ(reader->error(), "");
  EXPECT_EQ(packets, (std::vector<std::string>{first, last}));
}

// A sink that takes `room` bytes, then fails as a full disk does.
struct FullDisk {
  size_t room;
  static ssize_t Write(void* cookie, const char* /*data*/, size_t size) {
    auto* disk = static_cast<FullDisk*>(cookie);
    if (disk->room < size) {
      errno = ENOSPC;
      return -1;
    }
    disk->room -= size;
    return static_cast<ssize_t>(size);
  }
};

TEST(Recorder, StopsOnceWhenTheCaptureCannotBeWritten) {
  std::string error;
  auto socket = AgentSocket::Create(&error);
  ASSERT_TRUE(socket) << error;
  FullDisk disk{64};  // the header, and nothing of the records
  FILE* sink = fopencookie(&disk, "w", cookie_io_functions_t{nullptr, FullDisk::Write, nullptr, nullptr});
  ASSERT_TRUE(sink);
  auto capture = wire::CaptureWriter::Create(OutputFile::Adopt(sink, "full.mfc"), &error);
  ASSERT_TRUE(capture) << error;
  std::ostringstream log;
  Recorder recorder(socket->fd(), capture.get(), log);
  int agent = test::ConnectTo(socket->path());
  ASSERT_TRUE(test::WriteAll(agent, test::Frame(test::HelloPacket()) + test::Frame(test::EventsPacket(1, 5000))));
  close(agent);
  for (int i = 0; i < 100 && (recorder.recorded_streams() == 0 || recorder.open_connections() > 0); ++i)
    recorder.PollOnce(50);
  recorder.AbandonOpenConnections();  // flushes
  EXPECT_TRUE(recorder.capture_failed());
  EXPECT_EQ(log.str(), "memframe: cannot write the capture (cannot write full.mfc: No space left on device); the "
                       "recording stops here\n");
}

}  // namespace
}  // namespace memframe::injector
