// Parts of a file path, for everything above the agent (the CLI, the
// recorder, the analysis, the viewer).
#pragma once

#include <string>
#include <string_view>

namespace memframe {

// What follows the last '/' or '\\', or the whole path without one. A
// Windows capture carries Windows paths wherever Wine cannot give a Unix
// one (DbgHelp's source files of Wine's own DLLs, every path on Windows).
inline std::string Basename(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace memframe
