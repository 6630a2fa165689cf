#include "views/address_map_canvas.h"

#include "memframe/analysis/site_origin.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "format.h"
#include "style.h"

namespace memframe::viewer {

namespace {

// Deepest zoom: one byte per pixel shows allocator headers as gaps.
constexpr uint64_t kMinBytesPerPixel = 1;

// The live block covering `address`, or end().
std::map<uint64_t, analysis::LiveBlock>::const_iterator BlockAt(const analysis::AddressSpace& space, uint64_t address,
                                                                uint64_t bpp) {
  // The pixel shows the highest-addressed block touching it.
  auto it = space.blocks.lower_bound(address + bpp);
  if (it == space.blocks.begin()) return space.blocks.end();
  --it;
  return it->first + std::max<uint64_t>(1, it->second.size) > address ? it : space.blocks.end();
}

}  // namespace

void AddressMapCanvas::ShowRegion(size_t region) { pending_region_ = region; }

void AddressMapCanvas::Layout(const std::vector<analysis::RegionLayout>& regions, int width, int height) {
  uint64_t fit = AddressMap::FitBytesPerPixel(regions, width, static_cast<uint64_t>(std::max(1, height)));
  uint64_t bpp = zoom_bpp_ ? std::clamp(zoom_bpp_, kMinBytesPerPixel, fit) : fit;
  if (map_ && width == width_ && height == height_ && bpp == map_->bytes_per_pixel()) return;
  map_ = std::make_unique<AddressMap>(regions, width, bpp);
  width_ = width;
  height_ = height;
}

void AddressMapCanvas::Draw(Session& session, const analysis::AddressSpace& space,
                            const std::vector<analysis::RegionLayout>& regions, analysis::MapColoring coloring) {
  if (!map_) painted_ = {};
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const int width = std::max(64, static_cast<int>(avail.x));
  const int height = std::max(64, static_cast<int>(avail.y));
  Layout(regions, width, height);
  if (pending_region_ && *pending_region_ < regions.size()) scroll_row_ = map_->RegionFirstRow(*pending_region_);
  pending_region_.reset();
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("map", ImVec2(static_cast<float>(width), static_cast<float>(height)));
  HandleInput(space, regions, pos.y);
  const double max_scroll = std::max<double>(0, static_cast<double>(map_->total_rows()) - height);
  scroll_row_ = std::clamp(scroll_row_, 0.0, max_scroll);

  Painted want{&space, coloring, map_->bytes_per_pixel(), static_cast<uint64_t>(scroll_row_), width, height};
  if (!(want == painted_)) {
    map_->Paint(space, coloring, want.first_row, height, &pixels_);
    texture_.Upload(width, height, pixels_.data());
    painted_ = want;
  }
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 end(pos.x + width, pos.y + height);
  draw->AddRectFilled(pos, end, IM_COL32(14, 15, 18, 255));
  draw->AddImage(texture_.id(), pos, end);
  // Where the view is in the whole map: a thin scroll indicator on the right.
  if (map_->total_rows() > static_cast<uint64_t>(height)) {
    float total = static_cast<float>(map_->total_rows());
    float y0 = pos.y + height * static_cast<float>(scroll_row_) / total;
    float y1 = pos.y + height * static_cast<float>(scroll_row_ + height) / total;
    draw->AddRectFilled(ImVec2(end.x - 4, y0), ImVec2(end.x, std::max(y1, y0 + 4)), IM_COL32(255, 255, 255, 90), 2);
  }
  if (ImGui::IsItemHovered()) {
    ImVec2 mouse = ImGui::GetMousePos();
    auto spot = map_->At(want.first_row + static_cast<uint64_t>(mouse.y - pos.y), static_cast<int>(mouse.x - pos.x));
    if (spot) Tooltip(session, space, *spot);
  }
}

void AddressMapCanvas::HandleInput(const analysis::AddressSpace& space,
                                   const std::vector<analysis::RegionLayout>& regions, float top) {
  if (!ImGui::IsItemHovered() && !ImGui::IsItemActive()) return;
  ImGuiIO& io = ImGui::GetIO();
  const float mouse_row = io.MousePos.y - top;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2))
    scroll_row_ -= io.MouseDelta.y;
  if (ImGui::IsItemHovered() && io.MouseWheel != 0) {
    // Keep the byte under the pointer under the pointer.
    auto anchor = map_->At(static_cast<uint64_t>(scroll_row_ + mouse_row), static_cast<int>(io.MousePos.x -
                                                                                             ImGui::GetItemRectMin().x));
    uint64_t bpp = map_->bytes_per_pixel();
    zoom_bpp_ = io.MouseWheel > 0 ? std::max(kMinBytesPerPixel, bpp / 2) : bpp * 2;
    uint64_t fit = AddressMap::FitBytesPerPixel(regions, width_, static_cast<uint64_t>(height_));
    if (zoom_bpp_ >= fit) zoom_bpp_ = 0;
    Layout(regions, width_, height_);
    if (anchor) scroll_row_ = static_cast<double>(map_->RowOf(anchor->region, anchor->address)) - mouse_row;
  }
  if (ImGui::IsItemClicked() && !ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2)) {
    auto spot = map_->At(static_cast<uint64_t>(scroll_row_ + mouse_row),
                         static_cast<int>(io.MousePos.x - ImGui::GetItemRectMin().x));
    if (spot) {
      auto block = BlockAt(space, spot->address, map_->bytes_per_pixel());
      if (block != space.blocks.end()) clicked_stack_ = block->second.stack_id;
    }
  }
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    zoom_bpp_ = 0;
    scroll_row_ = 0;
  }
}

void AddressMapCanvas::Tooltip(Session& session, const analysis::AddressSpace& space, const AddressMap::Spot& spot) {
  const analysis::RegionLayout& region = map_->regions()[spot.region];
  auto block = BlockAt(space, spot.address, map_->bytes_per_pixel());
  ImGui::BeginTooltip();
  if (block == space.blocks.end() || block->first >= region.end) {
    // A hole: from the end of the block before to the start of the next.
    auto next = space.blocks.lower_bound(spot.address);
    uint64_t to = next == space.blocks.end() ? region.end : std::min(next->first, region.end);
    uint64_t from = region.start;
    if (next != space.blocks.begin()) {
      auto prev = std::prev(next);
      from = std::max(region.start, prev->first + prev->second.size);
    }
    ImGui::Text("Free: %s", FormatBytes(to > from ? to - from : 0).c_str());
    ImGui::TextColored(palette::kDimText, "0x%llx \xE2\x80\x93 0x%llx", static_cast<unsigned long long>(from),
                       static_cast<unsigned long long>(to));
  } else {
    const analysis::LiveBlock& b = block->second;
    const SiteLabel& label = session.Label(b.stack_id);
    ImGui::Text("%s block, made in frame %llu (%llu frames old)", FormatBytes(b.size).c_str(),
                static_cast<unsigned long long>(b.frame),
                static_cast<unsigned long long>(space.frame - std::min(space.frame, b.frame)));
    ImGui::TextColored(palette::kDimText, "0x%llx", static_cast<unsigned long long>(block->first));
    ImGui::Separator();
    const auto& stack = session.Stack(b.stack_id);
    size_t user = analysis::UserFrameIndex(stack);
    for (size_t i = user; i < stack.size() && i < user + 8; ++i) {
      ImGui::TextColored(i == user ? ImVec4(1.0f, 0.86f, 0.45f, 1) : ImGui::GetStyle().Colors[ImGuiCol_Text], "%s",
                         stack[i].function.c_str());
    }
    if (stack.empty()) ImGui::TextUnformatted(label.function.empty() ? "(no stack)" : label.function.c_str());
    ImGui::TextColored(palette::kDimText, "Click to pin the whole stack");
  }
  ImGui::EndTooltip();
}

}  // namespace memframe::viewer
