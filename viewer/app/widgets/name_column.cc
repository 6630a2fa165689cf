#include "widgets/name_column.h"

#include <imgui.h>

#include "elide.h"

namespace memframe::viewer {

namespace {

float TextWidthOf(std::string_view text) {
  return ImGui::CalcTextSize(text.data(), text.data() + text.size()).x;
}

}  // namespace

void NameColumn::BeginFrame() {
  if (!drawing_.empty() && (drawing_ != cut_for_ || width_ != cut_width_)) {
    const std::vector<std::string> shown = ElideApart(drawing_, width_, TextWidthOf);
    cut_.clear();
    for (size_t i = 0; i < drawing_.size(); ++i) cut_[drawing_[i]] = shown[i];
    cut_for_ = drawing_;
    cut_width_ = width_;
  }
  drawing_.clear();
}

const std::string& NameColumn::Cut(const std::string& name) {
  width_ = ImGui::GetContentRegionAvail().x;
  drawing_.push_back(name);
  auto it = cut_.find(name);
  // A row new on screen is cut alone until the next frame cuts it with the others.
  if (it == cut_.end() || width_ != cut_width_) it = cut_.insert_or_assign(name, ElideMiddle(name, width_, TextWidthOf)).first;
  return it->second;
}

}  // namespace memframe::viewer
