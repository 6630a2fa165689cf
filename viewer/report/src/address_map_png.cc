#include "memframe/report/address_map_png.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "memframe/output_file.h"

// Static so that the viewer, which may define its own stb_image_write
// implementation, can link this library too.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace memframe::analysis {

namespace {

Rgb FromHue(double hue) {  // hue in [0, 360), full saturation and value
  double h = hue / 60.0;
  int sector = static_cast<int>(h) % 6;
  double f = h - static_cast<int>(h);
  auto c = [](double v) { return static_cast<uint8_t>(std::clamp(v, 0.0, 1.0) * 255.0 + 0.5); };
  switch (sector) {
    case 0: return {255, c(f), 0};
    case 1: return {c(1 - f), 255, 0};
    case 2: return {0, 255, c(f)};
    case 3: return {0, c(1 - f), 255};
    case 4: return {c(f), 0, 255};
    default: return {255, 0, c(1 - f)};
  }
}

uint64_t Mix(uint64_t x) {  // splitmix64 finaliser: neighbouring ids get unrelated colours
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t RowsFor(uint64_t span, uint64_t bytes_per_pixel) {
  uint64_t pixels = (span + bytes_per_pixel - 1) / bytes_per_pixel;
  return std::max<uint64_t>(1, (pixels + kMapWidth - 1) / kMapWidth);
}

}  // namespace

Rgb BlockColor(const LiveBlock& block, uint64_t map_frame, MapColoring coloring, uint64_t first_frame) {
  if (coloring == MapColoring::kSite) {
    uint64_t h = Mix(block.stack_id);
    // Keep every channel away from the dark free colours.
    return {static_cast<uint8_t>(96 + h % 160), static_cast<uint8_t>(96 + (h >> 8) % 160),
            static_cast<uint8_t>(96 + (h >> 16) % 160)};
  }
  uint64_t age = map_frame > block.frame ? map_frame - block.frame : 0;
  uint64_t span = map_frame > first_frame ? map_frame - first_frame : 0;
  double t = span ? std::min(1.0, static_cast<double>(age) / static_cast<double>(span)) : 0.0;
  return FromHue(240.0 * t);
}

AddressMapImage RenderAddressMap(const AddressSpace& space, MapColoring coloring) {
  std::vector<RegionLayout> regions = LayoutRegions(space);
  AddressMapImage image;
  image.width = kMapWidth;
  uint64_t bpp = kMinBytesPerPixel;
  auto total_rows = [&](uint64_t b) {
    uint64_t rows = 0;
    for (const RegionLayout& r : regions) rows += RowsFor(r.span(), b) + 1;
    return rows;
  };
  uint64_t widest = 0;
  for (const RegionLayout& r : regions) widest = std::max(widest, r.span());
  // Past one row per region, a coarser scale cannot help: with that many
  // regions the image is taller than kMaxMapHeight.
  while (total_rows(bpp) > kMaxMapHeight && bpp * kMapWidth < widest) bpp *= 2;
  image.bytes_per_pixel = bpp;
  image.height = static_cast<int>(std::max<uint64_t>(1, total_rows(bpp)));
  image.rgb.assign(static_cast<size_t>(image.width) * image.height * 3, 0);

  auto paint = [&](uint64_t row0, uint64_t first_pixel, uint64_t last_pixel, Rgb color) {
    for (uint64_t p = first_pixel; p <= last_pixel; ++p) {
      size_t at = ((row0 + p / kMapWidth) * kMapWidth + p % kMapWidth) * 3;
      image.rgb[at] = color.r;
      image.rgb[at + 1] = color.g;
      image.rgb[at + 2] = color.b;
    }
  };
  uint64_t row = 0;
  for (const RegionLayout& r : regions) {
    uint64_t rows = RowsFor(r.span(), bpp);
    uint64_t pixels = (r.span() + bpp - 1) / bpp;
    if (pixels) paint(row, 0, pixels - 1, r.mapped ? kMappedFreeColor : kHeapFreeColor);
    for (auto it = space.blocks.lower_bound(r.start); it != space.blocks.end() && it->first < r.end; ++it) {
      // Heap clusters never hold blocks of a mapping, and the reverse.
      if ((space.mapped.Find(it->first) != nullptr) != r.mapped) continue;
      uint64_t first = (it->first - r.start) / bpp;
      uint64_t last = (it->first + std::max<uint64_t>(it->second.size, 1) - 1 - r.start) / bpp;
      paint(row, first, std::min(last, pixels - 1), BlockColor(it->second, space.frame, coloring, space.first_frame));
    }
    row += rows + 1;  // the separator row stays black
  }
  return image;
}

bool WritePng(const AddressMapImage& image, const std::string& path, std::string* error,
              const std::vector<std::string>& inputs) {
  return WritePngFile(path, inputs, image.rgb.data(), image.width, image.height, 3, error);
}

bool WritePngFile(const std::string& path, const std::vector<std::string>& inputs, const uint8_t* pixels, int width,
                  int height, int channels, std::string* error) {
  OutputPolicy policy;
  policy.inputs = inputs;
  // A PNG is not worth a capture: refuse to replace one.
  policy.existing = OutputPolicy::Existing::kReplaceUnlessCapture;
  std::unique_ptr<OutputFile> file = OutputFile::Create(path, policy, error);
  if (!file) return false;
  std::string png;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &png, width, height, channels, pixels, width * channels)) {
    *error = "cannot encode the PNG for " + path;
    return false;
  }
  return file->Write(png.data(), png.size(), error) && file->Commit(error);
}

}  // namespace memframe::analysis
