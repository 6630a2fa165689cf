#include "memframe/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <random>

#include "memframe/format.h"
#include "memframe/paths.h"

namespace memframe {

namespace {

// Lock-free, so that a signal handler may set it.
std::atomic<bool> g_writes_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

std::string Reason(int error) {
  if (error == EINTR && g_writes_interrupted.load(std::memory_order_relaxed))
    return "interrupted while it took no more data";
  return error ? strerror(error) : "an earlier write failed";
}

// The stdio stream of an output that is not a regular file (a FIFO, a pipe,
// a terminal, a device): its descriptor is non-blocking where it was opened
// so, and a write that cannot go on waits in poll() until it can, or until a
// signal said to stop waiting (InterruptBlockedWrites). A plain blocking
// write(2) would hold memframe run for good on a reader that never reads.
ssize_t WriteWaiting(void* cookie, const char* data, size_t size) {
  // Once interrupted, a reader that still takes data within this many
  // polls keeps the output; one that takes none for a second loses it.
  constexpr int kWaitsAfterInterrupt = 4;
  constexpr int kPollMs = 250;
  const int fd = *static_cast<int*>(cookie);
  size_t done = 0;
  int idle_waits = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      idle_waits = 0;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (g_writes_interrupted.load(std::memory_order_relaxed) && idle_waits++ >= kWaitsAfterInterrupt) {
        errno = EINTR;
        return 0;
      }
      pollfd ready{fd, POLLOUT, 0};
      poll(&ready, 1, kPollMs);
      continue;
    }
    if (n == 0) errno = EIO;
    // stdio keeps nothing of a short count but the error flag, so report
    // the failure, not the part that got through: 0, as fopencookie(3)
    // wants (a negative count corrupts the stream's buffer pointers).
    return 0;
  }
  return static_cast<ssize_t>(done);
}

int CloseWaiting(void* cookie) {
  int* fd = static_cast<int*>(cookie);
  int result = close(*fd);
  delete fd;
  return result;
}

FILE* OpenWaitingStream(int fd) {
  cookie_io_functions_t io{};
  io.write = WriteWaiting;
  io.close = CloseWaiting;
  int* cookie = new int(fd);
  FILE* stream = fopencookie(cookie, "w", io);
  if (!stream) delete cookie;
  return stream;
}

// Opens a target that is not a regular file without waiting: a FIFO no
// process reads would block open(2) until one came. -1 with *error set
// (naming the output as it was given, `path`).
int OpenInPlace(const std::string& target_path, const std::string& path, const struct stat& target,
                std::string* error) {
  int fd = open(target_path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int why = errno;
    *error = "cannot write " + path + ": " +
             (why == ENXIO && S_ISFIFO(target.st_mode)   ? "it is a FIFO that no process is reading"
              : why == ENXIO && S_ISSOCK(target.st_mode) ? "it is a socket"
                                                         : strerror(why));
    return -1;
  }
  struct stat opened {};
  if (fstat(fd, &opened) != 0 || S_ISREG(opened.st_mode)) {
    // Swapped for a regular file since the stat: that is written beside
    // and renamed, never in place.
    close(fd);
    *error = "cannot write " + path + ": it changed while it was being opened";
    return -1;
  }
  return fd;
}

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

std::string LinkText(const std::string& path) {
  char text[PATH_MAX];
  ssize_t n = readlink(path.c_str(), text, sizeof(text) - 1);
  return n > 0 ? std::string(text, static_cast<size_t>(n)) : "?";
}

bool IsDescriptorNumber(const std::string& text) {
  return !text.empty() && text.size() < 8 && text.find_first_not_of("0123456789") == std::string::npos;
}

// The descriptor a name stands for, -1 for none: /dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, or a symbolic link (a few deep) to one.
// Opened by name, /dev/stdout would be the file behind descriptor 1 seen
// from outside: a regular file there would be replaced (and the link with
// it, by a rename over /dev/stdout), a socket could not be opened at all.
int NamedDescriptor(std::string path) {
  for (int depth = 0; depth < 8; ++depth) {
    if (path == "/dev/stdout") return STDOUT_FILENO;
    if (path == "/dev/stderr") return STDERR_FILENO;
    for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
      if (path.compare(0, prefix.size(), prefix) == 0 && IsDescriptorNumber(path.substr(prefix.size())))
        return std::stoi(path.substr(prefix.size()));
    }
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return -1;
    std::string text = LinkText(path);
    path = text[0] == '/' ? text : DirectoryOf(path) + "/" + text;
  }
  return -1;
}

// False with *error when `target` is one of the policy's inputs.
bool NotAnInput(const std::string& path, const struct stat& target, const OutputPolicy& policy, std::string* error) {
  for (const std::string& input : policy.inputs) {
    struct stat in {};
    if (stat(input.c_str(), &in) == 0 && in.st_dev == target.st_dev && in.st_ino == target.st_ino) {
      *error = "refusing to write " + path + ": it is " + (input == path ? "" : input + ", ") +
               "an input of this command";
      return false;
    }
  }
  return true;
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
  if (path == "-") return OpenDescriptor(STDOUT_FILENO, path, policy, error);
  if (int inherited = NamedDescriptor(path); inherited >= 0) return OpenDescriptor(inherited, path, policy, error);
  // Through a symbolic link: the file it names is replaced, never the link.
  std::string target_path = path;
  struct stat link {};
  if (lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    char resolved[PATH_MAX];
    if (!realpath(path.c_str(), resolved)) {
      *error = "cannot write " + path + ": it is a symbolic link to " + LinkText(path) + ", which does not exist";
      return nullptr;
    }
    target_path = resolved;
  }
  struct stat target {};
  const bool exists = stat(target_path.c_str(), &target) == 0;
  if (exists) {
    if (!NotAnInput(path, target, policy, error)) return nullptr;
    if (S_ISDIR(target.st_mode)) {
      *error = "cannot write " + path + ": it is a directory";
      return nullptr;
    }
  }
  std::unique_ptr<OutputFile> output(new OutputFile());
  output->path_ = path;
  output->target_path_ = target_path;
  if (exists && !S_ISREG(target.st_mode)) {
    // A device or a FIFO: nothing to rename over, so write it directly.
    int fd = OpenInPlace(target_path, path, target, error);
    return fd >= 0 && output->StartInPlace(fd, error) ? std::move(output) : nullptr;
  }
  const bool is_capture = exists && StartsWithCaptureMagic(target_path);
  if (exists && (policy.existing == OutputPolicy::Existing::kRefuse ||
                 (policy.existing == OutputPolicy::Existing::kReplaceUnlessCapture && is_capture))) {
    *error = path + (is_capture ? " holds a memframe capture already" : " exists already") +
             (policy.force_hint.empty() ? "" : " (" + policy.force_hint + ")");
    return nullptr;
  }
  int fd = CreateTemporaryBeside(target_path, policy.mode, &output->temp_path_);
  if (fd < 0) {
    output->temp_path_.clear();
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

// What the shell opened for memframe (/dev/stdout, /dev/fd/N): written
// where it points, at its offset, never replaced.
std::unique_ptr<OutputFile> OutputFile::OpenDescriptor(int inherited, const std::string& path,
                                                       const OutputPolicy& policy, std::string* error) {
  struct stat st {};
  if (fstat(inherited, &st) != 0) {
    *error = "cannot write " + path + ": descriptor " + std::to_string(inherited) + " is not open";
    return nullptr;
  }
  if (!NotAnInput(path, st, policy, error)) return nullptr;
  int fd = -1;
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
    // Opened anew (a description of our own), so that making it
    // non-blocking does not make the shell's non-blocking too.
    fd = open(("/proc/self/fd/" + std::to_string(inherited)).c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  }
  if (fd < 0) fd = fcntl(inherited, F_DUPFD_CLOEXEC, 3);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + strerror(errno);
    return nullptr;
  }
  std::unique_ptr<OutputFile> output(new OutputFile());
  output->path_ = output->target_path_ = path;
  return output->StartInPlace(fd, error) ? std::move(output) : nullptr;
}

bool OutputFile::StartInPlace(int fd, std::string* error) {
  in_place_ = true;
  stream_ = OpenWaitingStream(fd);
  if (stream_) return true;
  *error = "cannot write " + path_ + ": " + strerror(errno);
  close(fd);
  return false;
}

void InterruptBlockedWrites() { g_writes_interrupted.store(true, std::memory_order_relaxed); }

void AllowBlockedWrites() { g_writes_interrupted.store(false, std::memory_order_relaxed); }

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
  // Only a regular file is ever replaced: what took its place meanwhile (a
  // link, a device, a directory) is left alone.
  struct stat now {};
  if (may_replace_ && lstat(target_path_.c_str(), &now) == 0 && !S_ISREG(now.st_mode)) {
    *error = "cannot write " + path_ + ": it is no longer a regular file; left it alone";
    return false;
  }
  if (RenameInto(temp_path_, target_path_, may_replace_) != 0) {
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
