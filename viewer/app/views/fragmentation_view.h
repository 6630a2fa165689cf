// Fragmentation at the selected frame: every heap region and anonymous
// mapping painted (live blocks coloured by age or by call site, holes dark),
// with the figures of analysis/fragmentation.h beside it. The address space
// is rebuilt only when the frame changes. Below the figures, how scattered
// each site's live blocks are (analysis/locality.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "memframe/report/address_map_png.h"
#include "memframe/analysis/fragmentation.h"
#include "memframe/analysis/locality.h"
#include "snapshots.h"
#include "view.h"
#include "views/address_map_canvas.h"

namespace memframe::viewer {

class FragmentationView : public View {
 public:
  const char* name() const override { return "fragmentation"; }
  const char* title() const override { return "Fragmentation"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { has_space_ = false; }

 private:
  void Refresh(ViewContext& ctx);
  void DrawFigures(ViewContext& ctx);
  void DrawLegend();
  void DrawLocality(ViewContext& ctx);

  bool has_space_ = false;
  uint64_t frame_ = 0;
  analysis::AddressSpace space_;
  std::vector<analysis::RegionLayout> regions_;
  RegionTotals heap_, mapped_;
  analysis::MapColoring coloring_ = analysis::MapColoring::kAge;
  AddressMapCanvas canvas_;
  std::optional<size_t> selected_region_;
  std::vector<analysis::SiteLocality> locality_;  // the sites' live blocks at frame_, scattered first
};

}  // namespace memframe::viewer
