// OutputFile (memframe/output_file.h): what every command's output goes
// through, so that no careless command line loses data.
#include "memframe/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "fake_agent_client.h"

namespace memframe {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t FilesIn(const std::string& dir) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

bool WriteAndCommit(const std::string& path, const OutputPolicy& policy, const std::string& text,
                    std::string* error) {
  auto output = OutputFile::Create(path, policy, error);
  return output && output->Write(text.data(), text.size(), error) && output->Commit(error);
}

TEST(OutputFile, RefusesToWriteOverAnInputHoweverItIsNamed) {
  test::TempDir dir;
  std::string input = dir.File("run.mfc");
  std::ofstream(input) << "MEMFRAME precious";
  std::filesystem::create_symlink(input, dir.File("link.mfc"));
  std::filesystem::create_hard_link(input, dir.File("hard.mfc"));
  OutputPolicy policy;
  policy.inputs = {input};
  for (const std::string& output : {input, dir.File("link.mfc"), dir.File("hard.mfc")}) {
    std::string error;
    EXPECT_FALSE(OutputFile::Create(output, policy, &error)) << output;
    EXPECT_EQ(error, "refusing to write " + output + ": it is " + (output == input ? "" : input + ", ") +
                         "an input of this command");
  }
  EXPECT_EQ(Slurp(input), "MEMFRAME precious");
  EXPECT_EQ(FilesIn(dir.path()), 3u);
}

TEST(OutputFile, ReplacesACaptureOnlyWhenThePolicySays) {
  test::TempDir dir;
  std::string capture = dir.File("other.mfc");
  std::ofstream(capture) << "MEMFRAME other run";
  OutputPolicy policy;
  policy.existing = OutputPolicy::Existing::kReplaceUnlessCapture;
  policy.force_hint = "pass --force to replace it";
  std::string error;
  EXPECT_FALSE(WriteAndCommit(capture, policy, "folded", &error));
  EXPECT_EQ(error, capture + " holds a memframe capture already (pass --force to replace it)");
  EXPECT_EQ(Slurp(capture), "MEMFRAME other run");
  // Any other file is replaced, whole.
  std::string text = dir.File("stacks.folded");
  std::ofstream(text) << "old stacks, longer than the new";
  ASSERT_TRUE(WriteAndCommit(text, policy, "new", &error)) << error;
  EXPECT_EQ(Slurp(text), "new");
  policy.existing = OutputPolicy::Existing::kRefuse;
  EXPECT_FALSE(WriteAndCommit(text, policy, "newer", &error));
  EXPECT_EQ(error, text + " exists already (pass --force to replace it)");
  policy.existing = OutputPolicy::Existing::kReplace;
  ASSERT_TRUE(WriteAndCommit(capture, policy, "replaced", &error)) << error;
  EXPECT_EQ(Slurp(capture), "replaced");
}

TEST(OutputFile, AnUnfinishedOutputLeavesTheOldFileAndNoTrace) {
  test::TempDir dir;
  std::string path = dir.File("out.pb.gz");
  std::ofstream(path) << "a good export";
  std::string error;
  {
    auto output = OutputFile::Create(path, OutputPolicy{}, &error);
    ASSERT_TRUE(output) << error;
    ASSERT_TRUE(output->Write("half", 4, &error));
    EXPECT_NE(output->writing_path(), path);
    // Dropped without Commit, as a command that fails half-way does.
  }
  EXPECT_EQ(Slurp(path), "a good export");
  EXPECT_EQ(FilesIn(dir.path()), 1u);
}

TEST(OutputFile, CreatesWithThePolicysModeUnderTheUmask) {
  test::TempDir dir;
  mode_t old = umask(022);
  OutputPolicy policy;
  policy.mode = 0600;
  std::string error;
  ASSERT_TRUE(WriteAndCommit(dir.File("private"), policy, "x", &error)) << error;
  ASSERT_TRUE(WriteAndCommit(dir.File("public"), OutputPolicy{}, "x", &error)) << error;
  umask(old);
  struct stat st {};
  ASSERT_EQ(stat(dir.File("private").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat(dir.File("public").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(OutputFile, SaysWhyItCannotWrite) {
  test::TempDir dir;
  std::string error;
  EXPECT_FALSE(OutputFile::Create(dir.File("no/such/dir/out"), OutputPolicy{}, &error));
  EXPECT_EQ(error, "cannot create " + dir.File("no/such/dir/out") + ": No such file or directory");
  EXPECT_FALSE(OutputFile::Create(dir.path(), OutputPolicy{}, &error));
  EXPECT_EQ(error, "cannot write " + dir.path() + ": it is a directory");
  // A device is written in place; its failure says why.
  auto full = OutputFile::Create("/dev/full", OutputPolicy{}, &error);
  ASSERT_TRUE(full) << error;
  EXPECT_TRUE(full->Write("x", 1, &error));  // buffered
  EXPECT_FALSE(full->Commit(&error));
  EXPECT_EQ(error, "cannot write /dev/full: No space left on device");
}

TEST(OutputFile, AFifoIsWrittenInPlaceNeverWaitedOnForGood) {
  test::TempDir dir;
  const std::string fifo = dir.File("out.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string error;
  EXPECT_FALSE(OutputFile::Create(fifo, OutputPolicy{}, &error));
  EXPECT_EQ(error, "cannot write " + fifo + ": it is a FIFO that no process is reading");
  // A reader that never reads: the write waits until told to stop waiting.
  int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  auto output = OutputFile::Create(fifo, OutputPolicy{}, &error);
  ASSERT_TRUE(output) << error;
  std::thread interrupt([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    InterruptBlockedWrites();
  });
  const std::string data(1 << 20, 'x');
  EXPECT_FALSE(output->Write(data.data(), data.size(), &error));
  interrupt.join();
  EXPECT_EQ(error, "cannot write " + fifo + ": interrupted while it took no more data");
  AllowBlockedWrites();
  output.reset();
  close(reader);
  EXPECT_EQ(FilesIn(dir.path()), 1u);
}

TEST(OutputFile, WritesThroughASymbolicLinkNeverReplacingIt) {
  test::TempDir dir;
  std::string file = dir.File("real.txt"), link = dir.File("link.txt");
  std::ofstream(file) << "old";
  std::filesystem::create_symlink(file, link);
  std::string error;
  ASSERT_TRUE(WriteAndCommit(link, OutputPolicy{}, "new", &error)) << error;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(Slurp(file), "new");
  // A link to a device: the device is written, the link stays.
  std::filesystem::create_symlink("/dev/null", dir.File("null"));
  ASSERT_TRUE(WriteAndCommit(dir.File("null"), OutputPolicy{}, "gone", &error)) << error;
  EXPECT_TRUE(std::filesystem::is_symlink(dir.File("null")));
  // A link to nothing is refused: writing through it would create a file
  // wherever the link says.
  std::filesystem::create_symlink(dir.File("missing"), dir.File("dangling"));
  EXPECT_FALSE(WriteAndCommit(dir.File("dangling"), OutputPolicy{}, "x", &error));
  EXPECT_EQ(error, "cannot write " + dir.File("dangling") + ": it is a symbolic link to " + dir.File("missing") +
                       ", which does not exist");
  EXPECT_FALSE(std::filesystem::exists(dir.File("missing")));
  // The policy judges the file the link names.
  std::ofstream(file) << "MEMFRAME a capture";
  OutputPolicy keep_captures;
  keep_captures.existing = OutputPolicy::Existing::kReplaceUnlessCapture;
  EXPECT_FALSE(WriteAndCommit(link, keep_captures, "x", &error));
  EXPECT_EQ(error, link + " holds a memframe capture already");
  EXPECT_EQ(FilesIn(dir.path()), 4u);
}

TEST(OutputFile, ADescriptorsNameIsThatDescriptorAtItsOffset) {
  test::TempDir dir;
  const std::string file = dir.File("log");
  std::ofstream(file) << "before ";
  int fd = open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::string by_fd = "/dev/fd/" + std::to_string(fd);
  std::filesystem::create_symlink(by_fd, dir.File("out"));
  std::string error;
  for (const std::string& name : {by_fd, "/proc/self/fd/" + std::to_string(fd), dir.File("out")})
    ASSERT_TRUE(WriteAndCommit(name, OutputPolicy{}, "[" + name + "]", &error)) << error;
  close(fd);
  EXPECT_EQ(Slurp(file), "before [" + by_fd + "][/proc/self/fd/" + std::to_string(fd) + "][" + dir.File("out") + "]");
  EXPECT_TRUE(std::filesystem::is_symlink(dir.File("out")));
  EXPECT_EQ(FilesIn(dir.path()), 2u);
  // Still not an input.
  fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
  OutputPolicy policy;
  policy.inputs = {file};
  EXPECT_FALSE(OutputFile::Create("/dev/fd/" + std::to_string(fd), policy, &error));
  EXPECT_EQ(error, "refusing to write /dev/fd/" + std::to_string(fd) + ": it is " + file + ", an input of this command");
  close(fd);
}

TEST(CloseStream, ReportsWhatNeverReachedTheFile) {
  FILE* full = fopen("/dev/full", "w");
  ASSERT_TRUE(full);
  fputs("a report\n", full);
  EXPECT_EQ(CloseStream(full), "No space left on device");
  test::TempDir dir;
  FILE* file = fopen(dir.File("ok").c_str(), "w");
  ASSERT_TRUE(file);
  fputs("a report\n", file);
  EXPECT_EQ(CloseStream(file), "");
}

}  // namespace
}  // namespace memframe
