// FlameGraph's folded stacks (export.h).
#include <map>

#include "memframe/report/export.h"

namespace memframe::analysis {

namespace {

// ';' separates frames and the last space separates the count; newlines
// would end the line. Demangled C++ names carry spaces ("operator new",
// "(anonymous namespace)"), which FlameGraph accepts.
std::string FrameName(const SourceFrame& f) {
  std::string name = f.function.empty() ? "??" : f.function;
  for (char& c : name)
    if (c == ';' || c == '\n' || c == '\r') c = ':';
  return name;
}

}  // namespace

std::string FoldedStacks(const Stream& stream, const HeapAnalysis& heap, Symbolizer& symbolizer) {
  // Stacks that symbolize the same (different return addresses in one
  // function and line) are one line; std::map keeps the file sorted and
  // therefore reproducible.
  std::map<std::string, uint64_t> lines;
  for (const SiteHistory& site : heap.sites.sites()) {
    if (site.bytes == 0) continue;
    std::string line;
    auto it = stream.stacks.find(site.stack_id);
    if (it == stream.stacks.end() || it->second.empty()) {
      line = "(no stack)";
    } else {
      std::vector<SourceFrame> frames = symbolizer.SymbolizeStack(it->second);
      for (auto f = frames.rbegin(); f != frames.rend(); ++f) line += (line.empty() ? "" : ";") + FrameName(*f);
    }
    lines[line] += site.bytes;
  }
  std::string out;
  for (const auto& [stack, bytes] : lines) out += stack + " " + std::to_string(bytes) + "\n";
  return out;
}

}  // namespace memframe::analysis
