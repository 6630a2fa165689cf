// Hidden per-frame allocations: the call sites that allocate in most frames
// (analysis::FindHiddenSites), the churn a steady game should not have.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "view.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

class HiddenView : public View {
 public:
  const char* name() const override { return "hidden"; }
  const char* title() const override { return "Hidden per-frame allocations"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { has_rows_ = false; }

 private:
  // Recomputes rows_ when the inputs changed; true when it did.
  bool Refresh(ViewContext& ctx);
  void DrawTable(ViewContext& ctx, bool rows_changed);

  int min_percent_ = 50;  // the CLI's default threshold, 0.5
  bool follow_selection_ = false;
  analysis::FrameRange range_{};
  int rows_percent_ = -1;
  bool has_rows_ = false;
  std::vector<analysis::SiteStats> rows_;
  TableOrder order_;
  uint32_t selected_stack_ = 0;
  bool has_selection_ = false;
};

}  // namespace memframe::viewer
