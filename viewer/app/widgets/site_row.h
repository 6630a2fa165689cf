// The cells every call-site table starts with: the site's name, as a
// selectable spanning the whole row, its location (dimmed), who allocated
// (class and module) and the thread(s) that did.
#pragma once

#include <cstdint>
#include <string>

#include <imgui.h>

#include "session.h"
#include "widgets/cut_text.h"
#include "widgets/name_column.h"

namespace memframe::viewer {

// Sets up the Function, Location, Module and Thread columns (in that order).
// They share the width the table's figures leave, the name the most of it:
// at 1280 px a name column of a fixed width left nothing but "...".
void SetupSiteColumns();

// Draws them in the current table row; returns true when the row was clicked.
// The name is cut by `names` (middle elision, rows told apart); `tooltip`, if
// not empty, shows while the function cell is hovered, else the whole name
// when it is cut. `thread` is the site's thread cell (Session::ThreadCell).
bool SiteRowLeadingCells(NameColumn& names, const SiteLabel& label, const std::string& thread, uint32_t stack_id,
                         bool selected, const std::string& tooltip = "");

// Sort order of the Module column: class, then module.
int CompareModules(const SiteLabel& a, const SiteLabel& b);

// The colour of a module class (tags, toggles).
ImVec4 ModuleClassColour(analysis::ModuleClass c);

}  // namespace memframe::viewer
