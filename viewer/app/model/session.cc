#include "session.h"

namespace memframe::viewer {

namespace {

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Session::Session(analysis::Capture capture, analysis::HeapAnalysis heap, analysis::SizeHistogramIndex sizes,
                 std::unique_ptr<analysis::Symbolizer> symbolizer)
    : capture_(std::move(capture)),
      heap_(std::move(heap)),
      sizes_(std::move(sizes)),
      symbolizer_(std::move(symbolizer)),
      markers_(analysis::FindMarkerEvents(capture_.main)) {}

uint64_t Session::NsSinceStart(uint64_t ticks) const {
  const analysis::Stream& s = capture_.main;
  int64_t ns = s.clock.ToNs(ticks) - (s.events.empty() ? 0 : s.clock.ToNs(s.events[0].ticks));
  return ns > 0 ? static_cast<uint64_t>(ns) : 0;
}

analysis::FrameRange Session::AllFrames() const { return heap_.frames.All(); }

analysis::FrameRange Session::CompleteFrames() const { return heap_.frames.Complete(); }

const std::vector<analysis::SourceFrame>& Session::Stack(uint32_t stack_id) {
  auto cached = stacks_.find(stack_id);
  if (cached != stacks_.end()) return cached->second;
  std::vector<analysis::SourceFrame> frames;
  auto it = capture_.main.stacks.find(stack_id);
  if (it != capture_.main.stacks.end()) frames = symbolizer_->SymbolizeStack(it->second);
  return stacks_.emplace(stack_id, std::move(frames)).first->second;
}

const analysis::GroupedSites& Session::SiteGroups() {
  if (!has_groups_) {
    groups_ = analysis::GroupSitesByUserStack(heap_.sites, capture_.main, *symbolizer_);
    has_groups_ = true;
  }
  return groups_;
}

const std::vector<analysis::Event>& Session::MapEvents() {
  if (has_map_events_) return map_events_;
  for (const analysis::Event& e : capture_.main.events) {
    if (e.kind() == analysis::EventKind::kMap || e.kind() == analysis::EventKind::kUnmap) map_events_.push_back(e);
  }
  has_map_events_ = true;
  return map_events_;
}

namespace {

// True only for frames UserFrameIndex surely takes as the user frame: not
// runtime, and not even mentioning the standard library (a conservative
// version of the analysis' own rule, so stopping early never picks another
// frame than the full stack would).
bool SurelyUserFrame(const analysis::SourceFrame& f) {
  return !analysis::IsRuntimeModule(f.module) && f.function.find("std::") == std::string::npos &&
         f.function.find("__gnu_cxx::") == std::string::npos && f.file.find("/usr/include/") == std::string::npos;
}

}  // namespace

const SiteLabel& Session::Label(uint32_t stack_id) {
  auto cached = labels_.find(stack_id);
  if (cached != labels_.end()) return cached->second;
  // Symbolize from the innermost frame outwards and stop at the user frame:
  // a table names thousands of sites, and the frames beyond the user frame
  // (the game loop, main, libc start-up) are most of the work.
  std::vector<analysis::SourceFrame> prefix;
  auto it = capture_.main.stacks.find(stack_id);
  size_t user = 0;
  bool found = false;
  if (it != capture_.main.stacks.end()) {
    for (uint64_t address : it->second) {
      const auto& frames = symbolizer_->Symbolize(address);
      prefix.insert(prefix.end(), frames.begin(), frames.end());
      user = analysis::UserFrameIndex(prefix);
      if (SurelyUserFrame(prefix[user])) {
        found = true;
        break;
      }
    }
  }
  const std::vector<analysis::SourceFrame>& stack = found ? prefix : Stack(stack_id);
  if (!found) user = analysis::UserFrameIndex(stack);
  SiteLabel label;
  if (user < stack.size()) {
    const analysis::SourceFrame& f = stack[user];
    label.function = f.function;
    if (!f.file.empty() && f.line > 0) label.location = Basename(f.file) + ":" + std::to_string(f.line);
    label.module = Basename(f.module);
  }
  return labels_.emplace(stack_id, std::move(label)).first->second;
}

}  // namespace memframe::viewer
