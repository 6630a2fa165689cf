#include "attach/entry_patch_requests.h"

#include <unistd.h>

#include <fstream>
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
  std::ifstream in(path_);
  if (!in) return {};
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  unlink(path_.c_str());  // the agent publishes its next ones once this is gone
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
