// Units as a game developer reads them: the reports' own (units.h), so the
// viewer and the CLI print every figure alike, and the histogram's bins.
#pragma once

#include <cstdint>
#include <string>

#include "memframe/report/units.h"

namespace memframe::viewer {

using analysis::FormatBytes;
using analysis::FormatCount;
using analysis::FormatDuration;
using analysis::FormatPercent;
using analysis::FormatRate;
using analysis::FormatShare;
using analysis::Plural;

std::string FormatSizeBin(int bin);             // "32–63 B", "1–2 KiB"

}  // namespace memframe::viewer
