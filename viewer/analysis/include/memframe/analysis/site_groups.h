// Call sites as a developer sees them: stacks with the same allocating
// module that differ only above the user frame (site_origin.h: inside the
// runtime, the graphics driver or another library the game called) are one
// site. A real game's draw call reaches malloc through many driver paths;
// without grouping, each path is its own row with the same function and line.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

struct GroupedSites {
  // One merged history per group, under the group's lowest stack id; the
  // per-frame entries are summed, sizes are the min / max over the group.
  CallSiteIndex index;
  // Representative stack id -> every stack id of the group, ascending.
  std::unordered_map<uint32_t, std::vector<uint32_t>> members;
};

// Groups by the allocating module and the captured return addresses from the
// user frame's address to the outermost frame. Stacks without a definition stay alone.
GroupedSites GroupSitesByUserStack(const CallSiteIndex& sites, const Stream& stream, Symbolizer& symbolizer);

// Coarser (a table's "group by function"): stacks that differ only in the
// call's offset inside the user frame's function (two `new` lines of one
// function, called from the same place) are one site too. The key is the
// allocating module, the user frame's function and the return addresses
// outward of it; every user-stack group lies inside one of these.
GroupedSites GroupSitesByFunction(const CallSiteIndex& sites, const Stream& stream, Symbolizer& symbolizer);

}  // namespace memframe::analysis
