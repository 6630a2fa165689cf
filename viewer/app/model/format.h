// Units as a game developer reads them: the reports' own (units.h), so the
// viewer and the CLI print every figure alike, the histogram's bins too.
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
using analysis::FormatSizeBin;
using analysis::Plural;

}  // namespace memframe::viewer
