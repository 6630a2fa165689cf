// memframe's side of the entry patches of an attach: the agent publishes
// the entries it prepared in a file (agent/attach/entry_trampolines.h,
// PublishEntryPatches), memframe takes the file and writes them with every
// thread of the game stopped (code_patcher.h), and writes the original
// bytes back before it asks the agent to detach.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "attach/agent_drop_dir.h"
#include "attach/code_patcher.h"

namespace memframe::injector {

// The patches of the agent's file; a line that is not one is an error
// (and no patch of the file is used).
bool ParseEntryPatches(const std::string& text, std::vector<CodePatch>* patches, std::string* error);

class EntryPatchRequests {
 public:
  // The agent writes its file as `name` in `dir`.
  EntryPatchRequests(pid_t pid, const AgentDropDir& dir, std::string name) : pid_(pid), dir_(dir), name_(std::move(name)) {}

  // Takes the agent's file if there is one (a regular file: anything else
  // by its name is removed unread) and writes its patches; the lines to
  // warn about (refused patches, a bad file).
  std::vector<std::string> Take();

  // Writes back the original bytes of every patch written so far; the
  // lines to warn about.
  std::vector<std::string> RestoreAll();

  size_t armed() const { return written_.size(); }
  // The longest time the game's threads were held stopped for a patch.
  double longest_stop_ms() const { return longest_stop_ms_; }

 private:
  pid_t pid_;
  const AgentDropDir& dir_;
  std::string name_;
  std::vector<CodePatch> written_;
  double longest_stop_ms_ = 0;
};

}  // namespace memframe::injector
