// Flame graph of the selection: what the selected frames allocated (count
// or bytes), or what is live at the end of the selected frame, by call path
// (outermost caller at the top), and the callers and callees of the
// function clicked. Recomputed when the selection, the metric or the
// classes change, never per drawn frame.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "call_tree.h"
#include "flame.h"
#include "view.h"

namespace memframe::viewer {

class FlameView : public View {
 public:
  const char* name() const override { return "flame"; }
  const char* title() const override { return "Flame graph"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { tree_.reset(); }

 private:
  void Refresh(ViewContext& ctx);
  void RefreshCallers(ViewContext& ctx);
  void DrawToolbar(ViewContext& ctx);
  void DrawFlame(ViewContext& ctx);
  // Draws `index` and its children inside [x0, x0 + width) at `depth`.
  void DrawNode(ViewContext& ctx, uint32_t index, float x0, float width, int depth);
  void DrawCallersPanel(ViewContext& ctx);
  nlohmann::json TreeJson() const;

  std::optional<CallTree> tree_;
  std::vector<FlameRow> rows_;
  FlameMetric metric_ = FlameMetric::kBytes;
  analysis::FrameRange range_{};
  uint64_t classes_ = 0;  // Session::classes_generation() of tree_
  uint32_t zoom_ = 0;     // the node drawn full width (0 = the root)
  // The callers and callees of selection.flame_function, for `callers_of_`.
  std::string callers_of_;
  bool has_callers_ = false;
  CallersCallees callers_;
  // Drawing state of one frame.
  ImVec2 canvas_origin_{};
  float row_height_ = 0;
  std::optional<uint32_t> hovered_;
};

}  // namespace memframe::viewer
