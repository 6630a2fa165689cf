#include "view_registry.h"

#include "views/allocators_view.h"
#include "views/diff_view.h"
#include "views/flame_view.h"
#include "views/fragmentation_view.h"
#include "views/gpu_view.h"
#include "views/frame_detail_view.h"
#include "views/lifetimes_view.h"
#include "views/mismatches_view.h"
#include "views/hidden_view.h"
#include "views/leaks_view.h"
#include "views/threads_view.h"
#include "views/timeline_view.h"

namespace memframe::viewer {

std::vector<std::unique_ptr<View>> MakeViews() {
  std::vector<std::unique_ptr<View>> views;
  views.push_back(std::make_unique<TimelineView>());
  views.push_back(std::make_unique<FrameDetailView>());
  views.push_back(std::make_unique<HiddenView>());
  views.push_back(std::make_unique<DiffView>());
  views.push_back(std::make_unique<FlameView>());
  views.push_back(std::make_unique<FragmentationView>());
  views.push_back(std::make_unique<LeaksView>());
  views.push_back(std::make_unique<LifetimesView>());
  views.push_back(std::make_unique<MismatchesView>());
  views.push_back(std::make_unique<AllocatorsView>());
  views.push_back(std::make_unique<ThreadsView>());
  views.push_back(std::make_unique<GpuView>());
  return views;
}

std::string ViewNameList() {
  std::string list;
  for (const auto& view : MakeViews()) list += (list.empty() ? "" : ", ") + std::string(view->name());
  return list;
}

bool IsViewName(const std::string& name) {
  for (const auto& view : MakeViews())
    if (name == view->name()) return true;
  return false;
}

}  // namespace memframe::viewer
