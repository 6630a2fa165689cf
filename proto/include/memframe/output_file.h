// Every file memframe writes (captures, exports, PNGs) goes through
// OutputFile, so that no command can destroy what it reads, replace a capture
// it was not told to, or leave half a file where a good one was:
//
// - the output may not be one of the command's inputs (same device and
//   inode: a symlink or a hard link to an input is refused too);
// - an existing file is replaced only as the policy allows;
// - the bytes go to a new file beside the target (created exclusively, with
//   the policy's mode), which is renamed over the target only once complete
//   (or, for a capture that readers follow while it grows, as soon as it
//   holds its header: MoveIntoPlace);
// - a symbolic link is written through: the file it names is replaced,
//   never the link; a link to nothing is refused;
// - "-", /dev/stdout, /dev/stderr, /dev/fd/N (and links to them) are the
//   descriptor memframe was given, written as it is (a file the shell
//   opened is appended to at its offset, never replaced);
// - only a regular file is ever replaced;
// - a target that is not a regular file (a FIFO, a terminal, /dev/full) is
//   written directly, as there is nothing to rename over; it is opened
//   without waiting (a FIFO that no process reads is an error, not a hang),
//   and a write that waits on a reader gives up once a signal said so
//   (InterruptBlockedWrites);
// - every failure is a message naming the file and strerror's reason.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace memframe {

struct OutputPolicy {
  // Files the command reads; the output may not be any of them.
  std::vector<std::string> inputs;
  enum class Existing {
    kReplace,               // replace any existing file
    kReplaceUnlessCapture,  // replace, but refuse a memframe capture
    kRefuse,                // refuse any existing file
  };
  Existing existing = Existing::kReplace;
  // What to add to a refusal of an existing file ("pass --force ...").
  std::string force_hint;
  mode_t mode = 0644;  // before the umask
};

class OutputFile {
 public:
  // Opens the output for `path`; null with *error set when the policy
  // refuses it or the file cannot be created.
  static std::unique_ptr<OutputFile> Create(const std::string& path, const OutputPolicy& policy, std::string* error);
  // A stream that is already where it belongs (tests inject failing sinks
  // this way); owned from now on.
  static std::unique_ptr<OutputFile> Adopt(FILE* stream, const std::string& name);
  // Not committed: the temporary file is removed, the target left as it was.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  FILE* stream() const { return stream_; }
  const std::string& path() const { return path_; }
  // Where the bytes are now: the temporary file until it is moved into place.
  const std::string& writing_path() const { return in_place_ ? path_ : temp_path_; }

  // Writes all of `data`; false with *error ("cannot write PATH: reason").
  bool Write(const void* data, size_t size, std::string* error);
  // Flushes, then renames the file over the target now and keeps writing it
  // there (a capture that readers open by name while it grows).
  bool MoveIntoPlace(std::string* error);
  // Flushes and closes the file and moves it into place; false (with the
  // target untouched unless already moved) when any of it fails.
  bool Commit(std::string* error);
  // The message for a failed operation on this file: "cannot write PATH:
  // reason" with errno's text.
  std::string WriteError() const;

 private:
  OutputFile() = default;
  static std::unique_ptr<OutputFile> OpenDescriptor(int inherited, const std::string& path, const OutputPolicy& policy,
                                                    std::string* error);
  bool StartInPlace(int fd, std::string* error);  // owns fd, success or not
  bool Rename(std::string* error);                // the temporary file over the target

  FILE* stream_ = nullptr;
  std::string path_;         // the output as it was named
  std::string target_path_;  // the file it names, past any symbolic link
  std::string temp_path_;    // empty when writing the target directly
  bool in_place_ = false;
  bool may_replace_ = true;  // false: the target did not exist and must not now
};

// From a signal handler (async-signal-safe): writes to outputs that wait for
// a reader (a FIFO, a pipe, a terminal) fail from now on, instead of
// waiting, with "interrupted" as their reason. memframe run calls it on
// Ctrl+C and SIGTERM, whose handlers must not be SA_RESTART.
void InterruptBlockedWrites();
// Undoes it (tests).
void AllowBlockedWrites();

// What a stream that a command wrote its results to says when it is closed:
// "" when every byte reached it, else the reason ("No space left on device";
// stdio keeps only that a write failed once its buffer is dropped, so a
// large output may say less: CheckedStdout keeps the reason). Closes it.
std::string CloseStream(FILE* stream);

// Puts itself behind std::cout for its lifetime, writing to descriptor 1 and
// keeping the reason of the first failed write, so that a command whose
// result is lost (stdout on a full disk, /dev/full) can say so and why.
class CheckedStdout : public std::streambuf {
 public:
  CheckedStdout();
  ~CheckedStdout() override;
  CheckedStdout(const CheckedStdout&) = delete;
  CheckedStdout& operator=(const CheckedStdout&) = delete;

  // Flushes std::cout and C's stdout and closes them: "" when every byte
  // reached descriptor 1, else the reason.
  std::string Finish();

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool Drain();

  std::streambuf* previous_ = nullptr;
  int error_ = 0;  // errno of the first failed write
  char buffer_[1 << 16];
};

}  // namespace memframe
