// Where an attached agent leaves files for memframe (its ready file, the
// entries it wants patched): a directory of their own inside memframe's
// private one (launch.h, AgentSocket).
//
// memframe may run as root and the agent as another user, who must be able
// to write here and so owns this directory, and can put anything in it:
// a symlink to a root-only file, a FIFO that never opens, a directory in
// place of a file. So memframe never names a path in it: every file is
// looked up with the *at calls under the descriptor memframe opened when it
// made the directory (the directory above it stays root's, so nobody can
// swap this one for another), never followed (O_NOFOLLOW), never waited on
// (O_NONBLOCK), and only read if it is a regular file of bounded size.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace memframe::injector {

class AgentDropDir {
 public:
  // Makes `parent`/`name` (mode 0700); null with the reason if it cannot.
  static std::unique_ptr<AgentDropDir> Create(const std::string& parent, const char* name, std::string* error);
  // Removes every file in it, never following one, and the directory (unless
  // the agent's user made a directory inside).
  ~AgentDropDir();
  AgentDropDir(const AgentDropDir&) = delete;
  AgentDropDir& operator=(const AgentDropDir&) = delete;

  const std::string& path() const { return path_; }
  std::string PathOf(const char* name) const { return path_ + "/" + name; }

  // Gives the directory to the agent's user (root attaching to another
  // user's process); false if the kernel refused.
  bool HandTo(uid_t uid, gid_t gid) const;

  // True if anything is named `name` here.
  bool Exists(const char* name) const;
  // True if `name` is a regular file here (a symlink or a FIFO is not).
  bool HasFile(const char* name) const;
  // The content of the regular file `name`, at most `limit` bytes; false
  // if it is not one (absent, a symlink, a FIFO, a device, too large).
  bool ReadFile(const char* name, std::string* text, size_t limit = kReadLimit) const;
  // Removes `name` from this directory (whatever it is; never what a symlink
  // names).
  void Remove(const char* name) const;

  static constexpr size_t kReadLimit = 1u << 20;

 private:
  AgentDropDir() = default;
  int fd_ = -1;
  std::string path_;
};

}  // namespace memframe::injector
