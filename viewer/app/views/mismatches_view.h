// Frees that do not match their allocation (analysis::FindMismatches): the
// wrong family, double frees, unknown pointers. Computed once per capture,
// when the tab is first shown; click a row for both stacks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memframe/analysis/mismatches.h"
#include "view.h"
#include "widgets/table_keys.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

class MismatchesView : public View {
 public:
  const char* name() const override { return "mismatches"; }
  const char* title() const override { return "Mismatches"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override {
    order_.Invalidate();
    has_kept_ = false;
  }

 private:
  // kept_: the report's rows the search keeps.
  void RefreshKept(ViewContext& ctx);
  void DrawTable(ViewContext& ctx);
  void DrawStacks(ViewContext& ctx, const analysis::Mismatch& m);

  TableOrder order_;
  TableKeys keys_;
  std::optional<size_t> selected_;  // index in the report
  std::vector<uint32_t> kept_;
  std::string kept_search_;
  bool has_kept_ = false;
};

}  // namespace memframe::viewer
