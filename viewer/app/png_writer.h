// PNG output of screenshots (stb_image_write, from Debian's libstb-dev).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memframe::viewer {

// RGBA pixels, top row first, never over one of `inputs` (the capture shown).
// False with *error when the file can't be written.
bool WritePng(const std::string& path, const std::vector<std::string>& inputs, const std::vector<uint8_t>& rgba,
              int width, int height, std::string* error);

}  // namespace memframe::viewer
