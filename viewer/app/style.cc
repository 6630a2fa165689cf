#include "style.h"

#include <filesystem>

namespace memframe::viewer {

namespace {

// Latin-1 plus the few symbols the views print (– … ▲ ▼ µ).
const ImWchar kGlyphs[] = {0x0020, 0x00FF, 0x0394, 0x0394, 0x2013, 0x2014, 0x2026, 0x2026, 0x2212, 0x2212, 0x2265, 0x2265, 0x25A0, 0x25A0, 0x25B2, 0x25BC, 0};

ImFont* LoadFont(const char* path, float size) {
  if (!std::filesystem::exists(path)) return nullptr;
  return ImGui::GetIO().Fonts->AddFontFromFileTTF(path, size, nullptr, kGlyphs);
}

}  // namespace

Fonts SetUpStyle() {
  Fonts fonts;
  fonts.ui = LoadFont("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 15.0f);
  fonts.mono = LoadFont("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 14.0f);
  if (!fonts.ui) fonts.ui = ImGui::GetIO().Fonts->AddFontDefault();
  if (!fonts.mono) fonts.mono = fonts.ui;

  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0;
  style.FrameRounding = 3;
  style.TabRounding = 3;
  style.ScrollbarRounding = 3;
  style.WindowPadding = ImVec2(10, 8);
  style.FramePadding = ImVec2(8, 4);
  style.ItemSpacing = ImVec2(8, 5);
  style.CellPadding = ImVec2(6, 3);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1);
  c[ImGuiCol_ChildBg] = ImVec4(0.13f, 0.14f, 0.16f, 1);
  c[ImGuiCol_TableHeaderBg] = ImVec4(0.19f, 0.21f, 0.25f, 1);
  c[ImGuiCol_TableRowBgAlt] = ImVec4(1, 1, 1, 0.03f);
  c[ImGuiCol_Header] = ImVec4(0.26f, 0.42f, 0.66f, 0.55f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.42f, 0.66f, 0.75f);
  return fonts;
}

}  // namespace memframe::viewer
