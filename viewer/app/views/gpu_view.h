// The GPU objects the program made through GL or Vulkan (gpu_objects.h),
// one row each: kind, size, format, dimensions, levels, the frames that made
// and deleted it (or alive at the end) and the call that made it; click a
// row for its whole stack. With a range picked (Selection::PickedRange),
// only the objects made in it: what that load put on the GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/gpu_objects.h"
#include "look_alike_labels.h"
#include "view.h"
#include "widgets/table_keys.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

class GpuView : public View {
 public:
  const char* name() const override { return "gpu"; }
  const char* title() const override { return "GPU"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override {
    has_rows_ = false;
    order_.Invalidate();
  }

 private:
  // Rebuilds rows_ when the range picked changed; true when it did.
  bool Refresh(ViewContext& ctx);
  void DrawTable(ViewContext& ctx, bool rows_changed);

  TableOrder order_;
  TableKeys keys_;
  std::vector<const analysis::GpuObject*> rows_;  // into Session::Gpu()
  bool has_rows_ = false;
  analysis::FrameRange range_{};  // of rows_
  uint64_t bytes_ = 0, alive_ = 0, alive_bytes_ = 0;  // of rows_ counted in the GPU total
  const analysis::GpuObject* selected_ = nullptr;
  LookAlikeLabels labels_;  // the rows' labels, look-alikes told apart
};

}  // namespace memframe::viewer
