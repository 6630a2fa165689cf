// Every view the viewer has, by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "view.h"

namespace memframe::viewer {

// In display order; the timeline first.
std::vector<std::unique_ptr<View>> MakeViews();
// "timeline, histogram, hidden, diff, ..." for messages.
std::string ViewNameList();
bool IsViewName(const std::string& name);

}  // namespace memframe::viewer
