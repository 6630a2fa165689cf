// The two cells every call-site table starts with: the function, as a
// selectable spanning the whole row, and its location (dimmed; the module
// when the location is unknown).
#pragma once

#include <cstdint>
#include <string>

#include "session.h"

namespace memframe::viewer {

// Draws them in the current table row; returns true when the row was clicked.
// `tooltip`, if not empty, shows while the function cell is hovered (a name
// too long for its column).
bool SiteRowLeadingCells(const SiteLabel& label, uint32_t stack_id, bool selected, const std::string& tooltip = "");

}  // namespace memframe::viewer
