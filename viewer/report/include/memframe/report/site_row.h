// A call site as every table shows it, in `memframe report` and in the
// viewer: its symbolized stack, the frame that names it, the threads that
// allocated there and its figures. Both build their rows of this one type,
// and row_json.h writes it, so a site reads the same in text, in a
// report's JSON and in the viewer's --dump-view-data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/module_class.h"
#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

// A thread that allocated at a site, named for output.
struct SiteViewThread {
  uint32_t tid = 0;
  std::string name;  // ThreadName: "tid N" when the thread has none
  uint64_t allocations = 0;
};

// A site with its symbolized stack and the frame that names it.
struct SiteView {
  SiteStats stats;
  std::vector<SourceFrame> stack;  // innermost first, inlined frames expanded
  std::string name;                 // as tables show it (SiteName): "" when the site has no stack
  std::string module;               // file name of the module that allocated (site_origin.h)
  ModuleClass module_class = ModuleClass::kSystem;
  std::string function;            // of the user frame; "" when the site has no stack
  std::string location;            // "basename:line" of the user frame; "" if unknown (or
                                   // "module+0xoffset": look_alikes.h)
  std::string user_location;       // "basename:line" of the user frame, as `name` holds it
  std::vector<uint32_t> stack_ids; // hidden sites: every stack of the group (site_groups.h)
  std::string via;                 // the callers that tell look-alike rows apart; "" when not needed
  std::vector<SiteViewThread> threads;  // who allocated there, most allocations first
  std::string thread;               // ThreadsCell: "main", "main+2"; "" when no thread allocated there
  // The game's own code made the allocation or led there (a game frame is
  // on the stack): what the user can change. Tables list these first.
  bool from_game = false;
};

// A site's view from its symbolized stack: name, module, class, function,
// location, from_game (site_origin.h); stats, threads and thread untouched.
void NameSiteView(SiteView& view);
// Sets threads and thread of `view` from `site` (a site of the capture, or
// a group of sites with its own history); null clears them.
void SetSiteThreads(SiteView& view, const SiteHistory* site, const Stream& stream);
// Sets location and via of rows that would print alike (look_alikes.h).
void NameCallersOfLookAlikes(std::vector<SiteView>& views);

}  // namespace memframe::analysis
