#include "attach/entry_patch_requests.h"

#include <sstream>

namespace memframe::injector {

bool ParseEntryPatches(const std::string& text, std::vector<CodePatch>* patches, std::string* error) {
  std::istringstream lines(text);
  std::vector<CodePatch> parsed;
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.empty()) continue;
    std::istringstream words(line);
    CodePatch p;
    words >> std::hex >> p.word_at >> p.from >> p.to >> p.first >> p.length;
    words >> std::ws;
    std::getline(words, p.name);
    // The bytes changed lie inside the 8 written.
    if (!words.eof() || p.name.empty() || p.word_at % 8 != 0 || p.length == 0 || p.first < p.word_at ||
        p.first + p.length > p.word_at + 8) {
      *error = "line " + std::to_string(number) + " of the agent's entry patches is not one: '" + line + "'";
      return false;
    }
    parsed.push_back(p);
  }
  *patches = std::move(parsed);
  return true;
}

std::vector<std::string> EntryPatchRequests::Take() {
  // The agent publishes only while the name is free, so what is there stays
  // until it is removed here.
  if (!dir_.Exists(name_.c_str())) return {};
  std::string text;
  const bool published = dir_.ReadFile(name_.c_str(), &text);
  dir_.Remove(name_.c_str());  // the agent publishes its next ones once this is gone
  // Not the agent's (a FIFO, a symlink, a file too large): removed unread.
  if (!published) return {name_ + " in " + dir_.path() + " is not a file memframe reads; ignored"};
  std::vector<CodePatch> patches;
  std::string error;
  if (!ParseEntryPatches(text, &patches, &error)) return {error};
  CodePatchResult result = ApplyCodePatches(pid_, patches, false);
  if (result.stopped_ms > longest_stop_ms_) longest_stop_ms_ = result.stopped_ms;
  written_.insert(written_.end(), result.written.begin(), result.written.end());
  return result.refused;
}

std::vector<std::string> EntryPatchRequests::RestoreAll() {
  if (written_.empty()) return {};
  CodePatchResult result = ApplyCodePatches(pid_, written_, true);
  if (result.stopped_ms > longest_stop_ms_) longest_stop_ms_ = result.stopped_ms;
  written_.clear();
  // What memframe could not restore, the agent writes back itself at the
  // detach (entry_trampolines.h, DisarmEntryTrampolines).
  return result.refused;
}

}  // namespace memframe::injector
