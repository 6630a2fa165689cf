// The line above every call-site table: a search box (function or any of
// its callers, module, file; any case), the size range clicked in the size histogram with a
// button that clears it, and, where the table can, "Group by function".
// The Selection holds them, so every table filters alike (row_filter.h).
#pragma once

#include "selection.h"

namespace memframe::viewer {

// `can_group`: the table can merge sites that differ only in their call's
// offset inside a function. `shown` / `total`: the rows kept and all rows.
void DrawFilterBar(Selection& selection, bool can_group, size_t shown, size_t total);

}  // namespace memframe::viewer
