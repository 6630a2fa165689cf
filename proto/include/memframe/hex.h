// The one hexadecimal formatter of addresses and of raw bytes (build ids),
// for the CLI, the reports and the analysis alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace memframe {

// "0x7f3a12c0"; "0x0" for 0.
inline std::string Hex(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char text[18];
  int at = sizeof text;
  do {
    text[--at] = kDigits[value & 15];
    value >>= 4;
  } while (value);
  return "0x" + std::string(text + at, sizeof text - at);
}

// Two lower-case digits a byte, no prefix: "9f3c...".
inline std::string HexBytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

}  // namespace memframe
