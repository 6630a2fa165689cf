// A Windows path as the Linux analysis should open it: Wine's Unix path
// where Wine can say it (wine_get_unix_file_name), else the Windows path.
#pragma once

#include <cstddef>

namespace memframe::agent {

// `wide` as UTF-8 into `path` (`size` bytes); empty when it does not fit.
void AnalysisPath(const wchar_t* wide, char* path, size_t size);

}  // namespace memframe::agent
