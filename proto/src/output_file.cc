#include "memframe/output_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <random>

#include "memframe/format.h"
#include "memframe/paths.h"

namespace memframe {

namespace {

std::string Reason(int error) { return error ? strerror(error) : "an earlier write failed"; }

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool StartsWithCaptureMagic(const std::string& path) {
  // O_NONBLOCK: never wait on a FIFO; only regular files get here anyway.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char magic[sizeof(wire::kCaptureMagic)] = {};
  bool capture = read(fd, magic, sizeof(magic)) == static_cast<ssize_t>(sizeof(magic)) &&
                 memcmp(magic, wire::kCaptureMagic, sizeof(magic)) == 0;
  close(fd);
  return capture;
}

// A new file beside `path`, created exclusively with `mode` (the umask
// applies); -1 with errno set on failure.
int CreateTemporaryBeside(const std::string& path, mode_t mode, std::string* temp_path) {
  std::random_device random;
  const std::string prefix = DirectoryOf(path) + "/." + Basename(path) + ".tmp-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    *temp_path = prefix + std::to_string(getpid()) + "-" + std::to_string(random() % 1000000);
    int fd = open(temp_path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// rename(2), but refusing to replace a file that appeared meanwhile when the
// policy said there was none to replace.
int RenameInto(const std::string& from, const std::string& to, bool may_replace) {
  if (!may_replace) {
    int done = renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
    // Filesystems without RENAME_NOREPLACE: the check in Create has to do.
    if (done == 0 || (errno != EINVAL && errno != ENOSYS)) return done;
  }
  return rename(from.c_str(), to.c_str());
}

}  // namespace

std::unique_ptr<OutputFile> OutputFile::Create(const std::string& path, const OutputPolicy& policy,
                                               std::string* error) {
  if (path.empty()) {
    *error = "no output file given";
    return nullptr;
  }
  struct stat target {};
  const bool exists = stat(path.c_str(), &target) == 0;
  if (exists) {
    for (const std::string& input : policy.inputs) {
      struct stat in {};
      if (stat(input.c_str(), &in) == 0 && in.st_dev == target.st_dev && in.st_ino == target.st_ino) {
        *error = "refusing to write " + path + ": it is " + (input == path ? "" : input + ", ") +
                 "an input of this command";
        return nullptr;
      }
    }
    if (S_ISDIR(target.st_mode)) {
      *error = "cannot write " + path + ": it is a directory";
      return nullptr;
    }
  }
  std::unique_ptr<OutputFile> output(new OutputFile());
  output->path_ = path;
  int fd = -1;
  if (exists && !S_ISREG(target.st_mode)) {
    // A device or a FIFO: nothing to rename over, so write it directly.
    fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    output->in_place_ = true;
  } else {
    const bool is_capture = exists && StartsWithCaptureMagic(path);
    if (exists && (policy.existing == OutputPolicy::Existing::kRefuse ||
                   (policy.existing == OutputPolicy::Existing::kReplaceUnlessCapture && is_capture))) {
      *error = path + (is_capture ? " holds a memframe capture already" : " exists already") +
               (policy.force_hint.empty() ? "" : " (" + policy.force_hint + ")");
      return nullptr;
    }
    fd = CreateTemporaryBeside(path, policy.mode, &output->temp_path_);
    if (fd < 0) output->temp_path_.clear();
  }
  if (fd < 0) {
    *error = "cannot create " + path + ": " + strerror(errno);
    return nullptr;
  }
  output->may_replace_ = policy.existing == OutputPolicy::Existing::kReplace || exists;
  output->stream_ = fdopen(fd, "wb");
  if (!output->stream_) {
    *error = "cannot write " + path + ": " + strerror(errno);
    close(fd);
    return nullptr;
  }
  return output;
}

std::unique_ptr<OutputFile> OutputFile::Adopt(FILE* stream, const std::string& name) {
  std::unique_ptr<OutputFile> output(new OutputFile());
  output->stream_ = stream;
  output->path_ = name;
  output->in_place_ = true;
  return output;
}

OutputFile::~OutputFile() {
  if (stream_) fclose(stream_);
  if (!in_place_ && !temp_path_.empty()) unlink(temp_path_.c_str());
}

std::string OutputFile::WriteError() const { return "cannot write " + path_ + ": " + Reason(errno); }

bool OutputFile::Write(const void* data, size_t size, std::string* error) {
  errno = 0;
  if (!stream_ || fwrite(data, 1, size, stream_) != size) {
    *error = WriteError();
    return false;
  }
  return true;
}

bool OutputFile::MoveIntoPlace(std::string* error) {
  errno = 0;
  if (!stream_ || fflush(stream_) != 0) {
    *error = WriteError();
    return false;
  }
  return Rename(error);
}

bool OutputFile::Rename(std::string* error) {
  if (in_place_) return true;
  if (RenameInto(temp_path_, path_, may_replace_) != 0) {
    *error = (errno == EEXIST ? path_ + " appeared while it was being written; left it alone"
                              : "cannot write " + path_ + ": " + strerror(errno));
    return false;
  }
  in_place_ = true;
  return true;
}

bool OutputFile::Commit(std::string* error) {
  if (!stream_) {
    *error = WriteError();
    return false;
  }
  errno = 0;
  bool ok = !ferror(stream_) && fflush(stream_) == 0;
  int saved = errno;
  if (fclose(stream_) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  stream_ = nullptr;
  if (!ok) {
    *error = "cannot write " + path_ + ": " + Reason(saved);
    return false;
  }
  return Rename(error);
}

std::string CloseStream(FILE* stream) {
  errno = 0;
  bool ok = !ferror(stream);
  if (fflush(stream) != 0) ok = false;
  int saved = ok ? 0 : errno;
  if (fclose(stream) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  return ok ? "" : Reason(saved);
}

CheckedStdout::CheckedStdout() {
  setp(buffer_, buffer_ + sizeof(buffer_));
  previous_ = std::cout.rdbuf(this);
}

CheckedStdout::~CheckedStdout() {
  Drain();
  std::cout.rdbuf(previous_);
}

bool CheckedStdout::Drain() {
  for (char* p = pbase(); p < pptr();) {
    ssize_t n = write(STDOUT_FILENO, p, static_cast<size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!error_) error_ = n < 0 ? errno : EIO;
      break;
    }
    p += n;
  }
  setp(buffer_, buffer_ + sizeof(buffer_));
  return error_ == 0;
}

CheckedStdout::int_type CheckedStdout::overflow(int_type c) {
  if (!Drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int CheckedStdout::sync() { return Drain() ? 0 : -1; }

std::string CheckedStdout::Finish() {
  Drain();
  std::string c_stdout = CloseStream(stdout);
  return error_ ? strerror(error_) : c_stdout;
}

}  // namespace memframe
