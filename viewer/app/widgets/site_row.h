// The cells every call-site table starts with: the site's name, as a
// selectable spanning the whole row, its location (dimmed), who allocated
// (class and module) and the thread(s) that did.
#pragma once

#include <cstdint>
#include <string>

#include <imgui.h>

#include "session.h"
#include "widgets/cut_text.h"

namespace memframe::viewer {

// Sets up the Function, Location, Module and Thread columns (in that order).
void SetupSiteColumns(float location_width = 150);

// Draws them in the current table row; returns true when the row was clicked.
// `tooltip`, if not empty, shows while the function cell is hovered (a name
// too long for its column).
// `thread` is the site's thread cell (Session::ThreadCell).
bool SiteRowLeadingCells(const SiteLabel& label, const std::string& thread, uint32_t stack_id, bool selected,
                         const std::string& tooltip = "");

// Sort order of the Module column: class, then module.
int CompareModules(const SiteLabel& a, const SiteLabel& b);

// The colour of a module class (tags, toggles).
ImVec4 ModuleClassColour(analysis::ModuleClass c);

}  // namespace memframe::viewer
