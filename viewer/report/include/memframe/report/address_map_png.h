// A picture of the address space at one frame: every region of
// LayoutRegions (heap clusters, then mappings) as a band of rows, live bytes
// coloured, holes dark. Reading it: long dark runs inside a band are
// fragmentation; one colour scattered everywhere is a site that spreads its
// blocks over the heap.
//
// Layout: kMapWidth pixels per row; every pixel stands for the same number
// of bytes (a power of two, at least kMinBytesPerPixel, the smallest that
// fits all bands in kMaxMapHeight rows). A band starts on a new row and is
// followed by one black separator row. A pixel takes the colour of the
// highest-addressed block that touches it, so blocks smaller than a pixel
// still show.
#pragma once

#include <cstdint>
#include <string>

#include "memframe/analysis/fragmentation.h"

namespace memframe::analysis {

constexpr int kMapWidth = 1024;
constexpr int kMaxMapHeight = 4096;
constexpr uint64_t kMinBytesPerPixel = 16;

enum class MapColoring { kAge, kSite };

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

constexpr Rgb kHeapFreeColor{48, 48, 48};
constexpr Rgb kMappedFreeColor{32, 40, 72};
constexpr Rgb kSeparatorColor{0, 0, 0};

// Age: a block allocated in the map's frame is red, one as old as the
// capture (its first frame, AddressSpace::first_frame) blue, hue in between
// by age / (map_frame - first_frame). Site: a fixed colour per stack id.
Rgb BlockColor(const LiveBlock& block, uint64_t map_frame, MapColoring coloring, uint64_t first_frame = 0);

struct AddressMapImage {
  int width = 0, height = 0;
  uint64_t bytes_per_pixel = 0;
  std::vector<uint8_t> rgb;  // width * height * 3
};

AddressMapImage RenderAddressMap(const AddressSpace& space, MapColoring coloring);

// Writes the image as PNG (never over one of `inputs`: see
// memframe/output_file.h); false with *error on failure.
bool WritePng(const AddressMapImage& image, const std::string& path, std::string* error,
              const std::vector<std::string>& inputs = {});

// Any PNG, rows top first, `channels` 3 (RGB) or 4 (RGBA): the one PNG writer
// of the analysis and the viewer, complete on disk or not at all.
bool WritePngFile(const std::string& path, const std::vector<std::string>& inputs, const uint8_t* pixels, int width,
                  int height, int channels, std::string* error);

}  // namespace memframe::analysis
