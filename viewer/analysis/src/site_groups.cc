#include "memframe/analysis/site_groups.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "memframe/analysis/site_origin.h"

namespace memframe::analysis {

namespace {

// The allocating module (site_origin.h) and the raw addresses from the user
// frame outward; `id` alone when the stack is unknown, so such stacks never
// merge.
using GroupKeyType = std::pair<std::string, std::vector<uint64_t>>;

// by_function: the user frame's own address is left out and its function
// joins the module in the key.
GroupKeyType GroupKey(uint32_t id, const Stream& stream, Symbolizer& symbolizer, bool by_function) {
  auto it = stream.stacks.find(id);
  if (it == stream.stacks.end() || it->second.empty()) return {"", {~uint64_t{0}, id}};
  const std::vector<uint64_t>& raw = it->second;
  std::vector<SourceFrame> expanded;
  std::vector<size_t> raw_index;  // expanded frame -> index of its return address in `raw`
  for (size_t i = 0; i < raw.size(); ++i) {
    for (const SourceFrame& f : symbolizer.Symbolize(raw[i])) {
      expanded.push_back(f);
      raw_index.push_back(i);
    }
  }
  SiteOrigin origin = FindSiteOrigin(expanded);
  size_t from = origin.user < expanded.size() ? raw_index[origin.user] : 0;
  if (by_function && origin.user < expanded.size() && !expanded[origin.user].function.empty()) {
    // Frames inlined into the user frame's address stay apart by function.
    std::string key = origin.module + '\n' + expanded[origin.user].function;
    for (size_t i = origin.user + 1; i < expanded.size() && raw_index[i] == from; ++i) key += '\n' + expanded[i].function;
    return {key, std::vector<uint64_t>(raw.begin() + static_cast<long>(from) + 1, raw.end())};
  }
  return {origin.module, std::vector<uint64_t>(raw.begin() + static_cast<long>(from), raw.end())};
}

void Merge(SiteHistory& into, const SiteHistory& site) {
  into.allocations += site.allocations;
  into.bytes += site.bytes;
  into.size_min = std::min(into.size_min, site.size_min);
  into.size_max = std::max(into.size_max, site.size_max);
  for (const SiteThread& t : site.threads) AddSiteThread(into.threads, t.thread, t.allocations);
  std::vector<SiteFrame> merged;
  merged.reserve(into.frames.size() + site.frames.size());
  auto a = into.frames.cbegin();
  auto b = site.frames.cbegin();
  while (a != into.frames.cend() || b != site.frames.end()) {
    if (b == site.frames.end() || (a != into.frames.cend() && a->frame < b->frame)) {
      merged.push_back(*a++);
    } else if (a == into.frames.cend() || b->frame < a->frame) {
      merged.push_back(*b++);
    } else {
      merged.push_back({a->frame, a->allocations + b->allocations, a->bytes + b->bytes});
      ++a;
      ++b;
    }
  }
  into.frames = std::move(merged);
}

GroupedSites GroupSites(const CallSiteIndex& sites, const Stream& stream, Symbolizer& symbolizer, bool by_function) {
  // Sites come sorted by stack id, so the first of a group is its lowest id.
  std::map<GroupKeyType, size_t> group_of;
  std::vector<SiteHistory> merged;
  GroupedSites out;
  for (const SiteHistory& site : sites.sites()) {
    auto [it, inserted] =
        group_of.try_emplace(GroupKey(site.stack_id, stream, symbolizer, by_function), merged.size());
    if (inserted) {
      merged.push_back(site);
      out.members[site.stack_id] = {site.stack_id};
    } else {
      SiteHistory& group = merged[it->second];
      Merge(group, site);
      out.members[group.stack_id].push_back(site.stack_id);
    }
  }
  out.index = CallSiteIndex(std::move(merged));
  return out;
}

}  // namespace

GroupedSites GroupSitesByUserStack(const CallSiteIndex& sites, const Stream& stream, Symbolizer& symbolizer) {
  return GroupSites(sites, stream, symbolizer, false);
}

GroupedSites GroupSitesByFunction(const CallSiteIndex& sites, const Stream& stream, Symbolizer& symbolizer) {
  return GroupSites(sites, stream, symbolizer, true);
}

}  // namespace memframe::analysis
