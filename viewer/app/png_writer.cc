#include "png_writer.h"

#include "memframe/report/address_map_png.h"

namespace memframe::viewer {

bool WritePng(const std::string& path, const std::vector<std::string>& inputs, const std::vector<uint8_t>& rgba,
              int width, int height, std::string* error) {
  if (rgba.size() != static_cast<size_t>(width) * height * 4) {
    *error = "internal error: pixel buffer does not match the image size";
    return false;
  }
  return analysis::WritePngFile(path, inputs, rgba.data(), width, height, 4, error);
}

}  // namespace memframe::viewer
