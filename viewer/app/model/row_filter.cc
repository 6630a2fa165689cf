#include "row_filter.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

namespace memframe::viewer {

namespace {

bool ContainsIgnoringCase(const std::string& haystack, const std::string& needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != haystack.end();
}

}  // namespace

bool MatchesSearch(const SiteLabel& label, const std::string& search) {
  if (search.empty()) return true;
  for (const std::string* field : {&label.name, &label.function, &label.location, &label.module})
    if (ContainsIgnoringCase(*field, search)) return true;
  return false;
}

bool FrameMatchesSearch(const analysis::SourceFrame& frame, const std::string& search) {
  return ContainsIgnoringCase(frame.function, search) || ContainsIgnoringCase(analysis::LineLocation(frame), search);
}

bool SiteMatchesSearch(Session& session, uint32_t stack_id, const std::string& search) {
  // The allocator's own frames (malloc, operator new) are before the
  // allocating one: every site has them, so they match nothing.
  return MatchesSearch(session.Label(stack_id), search) ||
         session.AnyFrameFromAlloc(stack_id, [&](const analysis::SourceFrame& f) { return FrameMatchesSearch(f, search); });
}

RowFilter::RowFilter(Session& session, const Selection& selection) : session_(session), search_(selection.search) {
  if (selection.size_bin) size_stacks_ = &session.StacksInSizeBin(*selection.size_bin);
}

bool RowFilter::Keeps(uint32_t stack_id, const std::vector<uint32_t>* members) const {
  if (!session_.Keeps(stack_id) || !SiteMatchesSearch(session_, stack_id, search_)) return false;
  if (!size_stacks_) return true;
  if (!members) return size_stacks_->contains(stack_id);
  return std::any_of(members->begin(), members->end(), [&](uint32_t id) { return size_stacks_->contains(id); });
}

void RestrictToSizeBin(std::vector<analysis::SiteStats>& rows, const std::vector<analysis::SizeBinSite>& bin_sites,
                       const std::function<uint32_t(uint32_t)>& group_of) {
  std::unordered_map<uint32_t, analysis::SizeBinSite> in_bin;
  for (const analysis::SizeBinSite& s : bin_sites) {
    analysis::SizeBinSite& to = in_bin[group_of(s.stack_id)];
    to.allocations += s.allocations;
    to.bytes += s.bytes;
  }
  std::erase_if(rows, [&](const analysis::SiteStats& s) { return !in_bin.contains(s.stack_id); });
  for (analysis::SiteStats& s : rows) {
    s.allocations = in_bin[s.stack_id].allocations;
    s.bytes = in_bin[s.stack_id].bytes;
  }
}

const std::string& GroupLocations::Of(Session& session, uint32_t stack_id, const std::vector<uint32_t>& members) {
  auto it = cache_.find(stack_id);
  if (it != cache_.end()) return it->second;
  std::string location = session.Label(stack_id).location;
  std::unordered_set<std::string> others;
  for (uint32_t id : members) {
    const std::string& l = session.Label(id).location;
    if (l != location) others.insert(l);
  }
  if (!others.empty()) location += " +" + std::to_string(others.size());
  return cache_.emplace(stack_id, std::move(location)).first->second;
}

RowFilterKey FilterKeyOf(const Session& session, const Selection& selection) {
  return {selection.search, selection.size_bin, selection.group_by_function, session.classes_generation()};
}

}  // namespace memframe::viewer
