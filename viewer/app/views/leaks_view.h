// Blocks still live when the capture ended, grouped by allocating stack
// (analysis::CollectLeaks).
#pragma once

#include <cstdint>

#include "view.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

class LeaksView : public View {
 public:
  const char* name() const override { return "leaks"; }
  const char* title() const override { return "Leaks"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { order_.Invalidate(); }

 private:
  void DrawTable(ViewContext& ctx);

  TableOrder order_;
  uint32_t selected_stack_ = 0;
  bool has_selection_ = false;
  std::vector<analysis::LeakSite> rows_;  // the leak sites the class filter keeps
  bool has_rows_ = false;
  uint64_t rows_classes_ = 0;  // Session::classes_generation() of rows_
};

}  // namespace memframe::viewer
