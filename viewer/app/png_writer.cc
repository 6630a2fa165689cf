#include "png_writer.h"

#include <cerrno>
#include <cstring>

#include <stb_image_write.h>

namespace memframe::viewer {

bool WritePng(const std::string& path, const std::vector<uint8_t>& rgba, int width, int height, std::string* error) {
  if (rgba.size() != static_cast<size_t>(width) * height * 4) {
    *error = "internal error: pixel buffer does not match the image size";
    return false;
  }
  errno = 0;
  if (!stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4)) {
    *error = "cannot write " + path + (errno ? std::string(": ") + std::strerror(errno) : std::string());
    return false;
  }
  return true;
}

}  // namespace memframe::viewer
