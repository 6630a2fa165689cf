// Names cut to fit a column, in the middle. A call site's name starts with
// what it is (the function, the module that allocated) and ends with what
// tells look-alikes apart (the arguments, "(via Caller file.cpp:62)",
// "<- Update"), so both ends stay and the cut ("...") is in between. No
// ImGui: widths come from a function, so the unit tests measure in
// characters.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace memframe::viewer {

using TextWidth = std::function<float(std::string_view)>;

// `text` whole when it fits `width`, else head + "..." + tail with at least
// kTailShare of the room for the tail (more when the head needs less). When
// `keep` (a byte offset) is given, the character there is in the head or
// the tail, or in a window "...<around keep>..." when neither can hold it.
constexpr float kTailShare = 0.6f;
constexpr size_t kKeepNone = static_cast<size_t>(-1);
std::string ElideMiddle(const std::string& text, float width, const TextWidth& measure, size_t keep = kKeepNone);

// The texts of rows seen together, each cut to `width`: two different texts
// never come out alike when cutting can tell them apart (each keeps the
// first character where it differs from the text it is most alike).
std::vector<std::string> ElideApart(const std::vector<std::string>& texts, float width, const TextWidth& measure);

}  // namespace memframe::viewer
