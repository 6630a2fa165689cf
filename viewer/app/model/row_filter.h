// The rows every call-site table keeps (the filter bar above each table):
// the classes ticked, a search text, and the size bin clicked in the
// histogram. No ImGui; the unit tests check it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/size_bin_sites.h"
#include "selection.h"
#include "session.h"

namespace memframe::viewer {

// True when `search` is empty or is found, ignoring case, in the label's
// name, function, location (file:line) or module.
bool MatchesSearch(const SiteLabel& label, const std::string& search);
// True when `search` is found, ignoring case, in the frame's function or
// file:line.
bool FrameMatchesSearch(const analysis::SourceFrame& frame, const std::string& search);
// Whether the table filters keep the site of `stack_id` for `search`: its
// label matches, or a frame of its stack from the allocating one outward
// does (Session::AnyFrameFromAlloc): a search for a game function keeps
// the driver's and the libraries' sites it led to, not only its own.
bool SiteMatchesSearch(Session& session, uint32_t stack_id, const std::string& search);

class RowFilter {
 public:
  RowFilter(Session& session, const Selection& selection);
  // A row of one stack, or of a group (`members`: every stack of the row,
  // named after `stack_id`): its class and search on the row's name, the
  // size bin on any member.
  bool Keeps(uint32_t stack_id, const std::vector<uint32_t>* members = nullptr) const;
  bool has_size_bin() const { return size_stacks_ != nullptr; }

 private:
  Session& session_;
  std::string search_;
  const Session::StackSet* size_stacks_ = nullptr;
};

// Rows restricted to one size bin: only the sites in `bin_sites` (the bin's
// entry of analysis::SitesBySizeBin) stay, their allocations and bytes
// become those of the bin. `group_of` maps a stack to its row's stack id
// (itself when the rows are not grouped).
void RestrictToSizeBin(std::vector<analysis::SiteStats>& rows, const std::vector<analysis::SizeBinSite>& bin_sites,
                       const std::function<uint32_t(uint32_t)>& group_of);

// The location a grouped row shows: its own, then "+K" when its stacks
// call from K other lines (stacks that differ inside a driver, not in the
// call, add none). Cached per row; Clear() when the rows change.
class GroupLocations {
 public:
  const std::string& Of(Session& session, uint32_t stack_id, const std::vector<uint32_t>& members);
  void Clear() { cache_.clear(); }

 private:
  std::unordered_map<uint32_t, std::string> cache_;
};

// What changes a table's rows besides its own inputs: compare with the
// previous frame's to know when to filter again.
struct RowFilterKey {
  std::string search;
  std::optional<int> size_bin;
  bool group_by_function = false;
  uint64_t classes = 0;
  bool operator==(const RowFilterKey&) const = default;
};
RowFilterKey FilterKeyOf(const Session& session, const Selection& selection);

}  // namespace memframe::viewer
