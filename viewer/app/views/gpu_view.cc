#include "views/gpu_view.h"

#include <algorithm>
#include <string>

#include <imgui.h>

#include "format.h"
#include "view_json.h"
#include "widgets/cut_text.h"
#include "widgets/gpu_kind.h"
#include "widgets/stack_panel.h"

namespace memframe::viewer {

namespace {

using analysis::GpuObject;

enum Column { kObject, kKind, kBytes, kFormat, kDimensions, kLevels, kMade, kDeleted, kFunction, kLocation, kColumns };

std::string BytesCell(const GpuObject& o) {
  std::string text = FormatBytes(o.peak_bytes);
  if (o.basis != analysis::GpuSizeBasis::kExact) text += std::string(" (") + analysis::GpuSizeBasisName(o.basis) + ")";
  return text;
}

}  // namespace

bool GpuView::Refresh(ViewContext& ctx) {
  const analysis::FrameRange range = ctx.selection.PickedRange(ctx.session.AllFrames());
  if (has_rows_ && range == range_) return false;
  range_ = range;
  has_rows_ = true;
  rows_.clear();
  bytes_ = alive_ = alive_bytes_ = 0;
  for (const GpuObject& o : ctx.session.Gpu().objects) {
    if (!range.Contains(o.made_frame)) continue;
    rows_.push_back(&o);
    if (!analysis::CountsInGpuTotal(o.kind)) continue;
    bytes_ += o.peak_bytes;
    if (o.alive) {
      ++alive_;
      alive_bytes_ += o.bytes;
    }
  }
  std::vector<uint32_t> stacks;
  for (const GpuObject* o : rows_) stacks.push_back(o->stack_id);
  std::sort(stacks.begin(), stacks.end());
  stacks.erase(std::unique(stacks.begin(), stacks.end()), stacks.end());
  labels_.Build(ctx.session, stacks);
  selected_ = nullptr;
  return true;
}

void GpuView::Draw(ViewContext& ctx) {
  const bool changed = Refresh(ctx);
  const analysis::GpuAnalysis& gpu = ctx.session.Gpu();
  if (gpu.empty()) {
    ImGui::TextWrapped(
        "No GPU objects: the program made no buffer, texture or renderbuffer through the calls memframe hooks "
        "(or it ran with memframe run --no-gpu).");
    return;
  }
  const std::string of = ctx.selection.has_picked_range()
                             ? " made in " + ctx.selection.DescribePicked(ctx.session.frames())
                             : " made";
  ImGui::Text("%s%s (%s at their largest); %s of them alive at the end (%s). Peak %s live in frame %llu.",
              Plural(rows_.size(), "GPU object").c_str(), of.c_str(), FormatBytes(bytes_).c_str(),
              FormatCount(alive_).c_str(), FormatBytes(alive_bytes_).c_str(), FormatBytes(gpu.peak_total).c_str(),
              static_cast<unsigned long long>(gpu.peak_frame));
  if (gpu.deletes_of_unknown) {
    ImGui::TextColored(palette::kWarning, "%s of objects made before the recording (an attach) or never made.",
                       Plural(gpu.deletes_of_unknown, "delete").c_str());
  }
  if (gpu.dropped)
    ImGui::TextColored(palette::kWarning, "%s dropped (--drop): the figures are short.",
                       Plural(gpu.dropped, "GPU event").c_str());
  const bool stack_shown = selected_ && keys_.stack_open();
  const float stack_height = stack_shown ? ImGui::GetContentRegionAvail().y * 0.42f : 0;
  ImGui::BeginChild("gpu_table", ImVec2(0, -stack_height), false, ImGuiWindowFlags_NoBackground);
  DrawTable(ctx, changed);
  ImGui::EndChild();
  if (stack_shown) {
    ImGui::BeginChild("gpu_stack", ImVec2(0, 0), true);
    // Where a Vulkan object lives, which the table's columns do not say.
    if (selected_->kind == analysis::GpuKind::kVkMemory)
      ImGui::Text("%s: %s", analysis::GpuObjectName(*selected_).c_str(), analysis::VkMemoryTypeText(*selected_).c_str());
    else if (analysis::IsVulkan(selected_->kind))
      ImGui::Text("%s: %s", analysis::GpuObjectName(*selected_).c_str(), analysis::VkBindingText(*selected_).c_str());
    DrawStackPanel(ctx.session, selected_->stack_id, ctx.fonts);
    ImGui::EndChild();
  }
}

void GpuView::DrawTable(ViewContext& ctx, bool rows_changed) {
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("gpu_objects", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Object", 0, 90);
  ImGui::TableSetupColumn("Kind", 0, 80);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 175);
  ImGui::TableSetupColumn("Format", 0, 175);
  ImGui::TableSetupColumn("Dimensions", 0, 95);
  ImGui::TableSetupColumn("Levels", 0, 55);
  ImGui::TableSetupColumn("Made", 0, 55);
  ImGui::TableSetupColumn("Deleted", 0, 90);
  // The caller chain that tells a stripped game's uploads apart is long.
  ImGui::TableSetupColumn("Made by", ImGuiTableColumnFlags_WidthStretch, 3);
  ImGui::TableSetupColumn("Location", ImGuiTableColumnFlags_WidthStretch, 1);
  ImGui::TableHeadersRow();

  Session& session = ctx.session;
  const auto& rows = rows_;
  const auto& order = order_.Update(rows.size(), rows_changed, [&](uint32_t a, uint32_t b, int column) {
    const GpuObject& x = *rows[a];
    const GpuObject& y = *rows[b];
    switch (column) {
      case kObject: return Compare3(x.name, y.name);
      case kKind: return Compare3(x.kind, y.kind);
      case kBytes: return Compare3(x.peak_bytes, y.peak_bytes);
      case kFormat: return analysis::GpuFormatName(x).compare(analysis::GpuFormatName(y));
      case kDimensions: return Compare3(uint64_t{x.width} * x.height * x.depth, uint64_t{y.width} * y.height * y.depth);
      case kLevels: return Compare3(x.levels, y.levels);
      case kMade: return Compare3(x.made_frame, y.made_frame);
      case kDeleted: return Compare3(x.alive ? UINT64_MAX : x.deleted_frame, y.alive ? UINT64_MAX : y.deleted_frame);
      case kFunction: return labels_.Label(session, x.stack_id).name.compare(labels_.Label(session, y.stack_id).name);
      case kLocation: return labels_.Label(session, x.stack_id).location.compare(labels_.Label(session, y.stack_id).location);
    }
    return 0;
  });
  if (!selected_ && !order.empty()) selected_ = rows[order[0]];  // its stack shows at once
  if (auto to = keys_.Moved(DisplayIndex(order, [&](uint32_t row) { return rows[row] == selected_; }),
                            static_cast<int>(order.size())))
    selected_ = rows[order[*to]];

  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  keys_.Reveal(clipper);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const GpuObject& o = *rows[order[i]];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      const std::string object = analysis::GpuObjectName(o);
      if (ImGui::Selectable(object.c_str(), selected_ == &o, ImGuiSelectableFlags_SpanAllColumns)) {
        selected_ = &o;
        keys_.OpenStack();
      }
      ImGui::PopID();
      keys_.AfterRow(i);
      ImGui::TableNextColumn();
      ImGui::TextColored(GpuKindColour(o.kind), "%s", analysis::GpuKindName(o.kind));
      ImGui::TableNextColumn();
      TextRight(BytesCell(o).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(analysis::GpuFormatName(o).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(analysis::GpuDimensions(o).c_str());
      ImGui::TableNextColumn();
      TextRight(o.levels ? std::to_string(o.levels).c_str() : "");
      ImGui::TableNextColumn();
      TextRight(std::to_string(o.made_frame).c_str());
      ImGui::TableNextColumn();
      if (o.alive)
        ImGui::TextColored(palette::kError, "alive at end");
      else
        TextRight(std::to_string(o.deleted_frame).c_str());
      const SiteLabel& label = labels_.Label(session, o.stack_id);
      ImGui::TableNextColumn();
      TextFitRight(label.has_stack ? label.name : "(no stack)", ImGui::GetStyleColorVec4(ImGuiCol_Text));
      ImGui::TableNextColumn();
      TextFitLeft(label.location, ImGui::GetStyleColorVec4(ImGuiCol_Text));
    }
  }
  ImGui::EndTable();
}

nlohmann::json GpuView::Data(ViewContext& ctx) {
  Refresh(ctx);
  nlohmann::json rows = nlohmann::json::array();
  analysis::JsonStackTable stacks;
  for (const GpuObject* o : rows_) {
    analysis::SiteStats site;
    site.stack_id = o->stack_id;
    nlohmann::json row = analysis::GpuObjectJson(*o, SiteViewOf(ctx.session, site), stacks);
    // As the row reads: look-alikes told apart.
    const SiteLabel& label = labels_.Label(ctx.session, o->stack_id);
    row["site"]["name"] = label.name;
    row["site"]["location"] = label.location;
    rows.push_back(std::move(row));
  }
  const analysis::GpuAnalysis& gpu = ctx.session.Gpu();
  nlohmann::json data = {{"view", name()},
          {"range", ctx.selection.has_picked_range() ? RangeJson(range_) : analysis::json(nullptr)},
          {"objects", rows_.size()},
          {"bytes", bytes_},
          {"alive_at_end", {{"objects", alive_}, {"bytes", alive_bytes_}}},
          {"peak", {{"bytes", gpu.peak_total}, {"frame", gpu.peak_frame}}},
          {"deletes_of_unknown", gpu.deletes_of_unknown},
          {"rows", std::move(rows)}};
  AddStacks(data, stacks);
  return data;
}

}  // namespace memframe::viewer
