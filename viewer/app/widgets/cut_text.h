// Text in a cell too narrow for it: cut to fit, and the whole text in a
// tooltip while hovered. Locations are cut from the left (their end, the
// line, is what tells); a flame box's function from the right (its start
// names it). Call-site names in tables are cut in the middle
// (name_column.h).
#pragma once

#include <string>

#include <imgui.h>

namespace memframe::viewer {

// `text` cut from the right behind "..." to fit `width` pixels (whole if it fits).
std::string FitRight(const std::string& text, float width);

// `text` cut from the left (CutFromLeft) to fit `width` pixels.
std::string FitLeft(const std::string& text, float width);

// `text` cut from the left to fit the rest of the cell (CutFromLeft), with
// the whole text in a tooltip when cut.
void TextFitLeft(const std::string& text, const ImVec4& colour);

// `text` cut from the right to fit the rest of the cell, with the whole
// text in a tooltip when cut.
void TextFitRight(const std::string& text, const ImVec4& colour);

// A selectable showing `text` cut from the right to fit the cell, with the
// whole text in a tooltip when cut (or `tooltip`, when given). True when clicked.
bool SelectableFitRight(const std::string& text, bool selected, ImGuiSelectableFlags flags = 0,
                        const std::string& tooltip = "");

}  // namespace memframe::viewer
