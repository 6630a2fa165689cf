// The one parser of decimal integers, for the CLI's options, the viewer's
// and the agent's settings: the whole text must be the number, within
// [min, max]. Allocation-free and without errno or locale, so the agent may
// call it while it starts.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace memframe {

template <typename Integer>
bool ParseInteger(std::string_view text, Integer* out, Integer min, Integer max) {
  Integer value{};
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) return false;
  *out = value;
  return true;
}

}  // namespace memframe
