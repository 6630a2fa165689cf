// The game's own allocators and private heaps (analysis::AnalyzeAllocators): one row each,
// like a module, with what it handed out per frame, its high-water against
// its capacity and backing heap block, its releases and the blocks held
// past a release; the selected one's bytes in use frame by frame below.
// Computed when the tab is first shown.
#pragma once

#include <optional>
#include <vector>

#include "memframe/analysis/allocators.h"
#include "view.h"

namespace memframe::viewer {

class AllocatorsView : public View {
 public:
  const char* name() const override { return "allocators"; }
  const char* title() const override { return "Allocators"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { usage_.reset(); }

 private:
  const std::vector<analysis::AllocatorUsage>& Usage(ViewContext& ctx);
  void DrawTable(ViewContext& ctx, const std::vector<analysis::AllocatorUsage>& usage);
  void DrawSelected(ViewContext& ctx, const analysis::AllocatorUsage& u);

  std::optional<std::vector<analysis::AllocatorUsage>> usage_;
  size_t selected_ = 0;
  std::vector<float> plot_;  // the selected allocator's high-water per frame
  size_t plot_of_ = SIZE_MAX;
};

}  // namespace memframe::viewer
