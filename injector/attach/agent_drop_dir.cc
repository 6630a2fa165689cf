#include "attach/agent_drop_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace memframe::injector {

std::unique_ptr<AgentDropDir> AgentDropDir::Create(const std::string& parent, const char* name, std::string* error) {
  std::unique_ptr<AgentDropDir> dir(new AgentDropDir());
  dir->path_ = parent + "/" + name;
  if (mkdir(dir->path_.c_str(), 0700) != 0) {
    *error = "cannot create " + dir->path_ + ": " + strerror(errno);
    return nullptr;
  }
  dir->fd_ = open(dir->path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir->fd_ < 0) {
    *error = "cannot open " + dir->path_ + ": " + strerror(errno);
    rmdir(dir->path_.c_str());
    return nullptr;
  }
  return dir;
}

AgentDropDir::~AgentDropDir() {
  if (fd_ < 0) return;
  // Every name in it, each removed without being followed: the agent's
  // files and whatever its user put beside them.
  if (int scan = openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); scan >= 0) {
    if (DIR* entries = fdopendir(scan)) {
      while (dirent* e = readdir(entries))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlinkat(fd_, e->d_name, 0);
      closedir(entries);
    } else {
      close(scan);
    }
  }
  close(fd_);
  // By its name, in memframe's own directory: nobody else can have put
  // something else there. A directory the agent's user made inside stays.
  rmdir(path_.c_str());
}

bool AgentDropDir::HandTo(uid_t uid, gid_t gid) const { return fchown(fd_, uid, gid) == 0; }

bool AgentDropDir::Exists(const char* name) const {
  struct stat st {};
  return fstatat(fd_, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool AgentDropDir::HasFile(const char* name) const {
  struct stat st {};
  return fstatat(fd_, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

bool AgentDropDir::ReadFile(const char* name, std::string* text, size_t limit) const {
  if (!HasFile(name)) return false;  // a FIFO is not even opened
  // Swapped for something else since: O_NOFOLLOW refuses a symlink,
  // O_NONBLOCK never waits for a FIFO's writer, fstat tells the rest.
  int fd = openat(fd_, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) <= limit;
  text->clear();
  char chunk[4096];
  while (ok) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    if (text->size() + static_cast<size_t>(n) > limit) ok = false;
    else text->append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  return ok;
}

void AgentDropDir::Remove(const char* name) const { unlinkat(fd_, name, 0); }

}  // namespace memframe::injector
