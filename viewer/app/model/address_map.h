// The fragmentation view's picture of the address space, as pixels: the
// layout of analysis/address_map_png.h (each region a band of rows, every
// pixel the same power-of-two number of bytes, a pixel coloured by the
// highest-addressed block touching it, holes dark), but only the rows on
// screen are painted, at any zoom. No ImGui or GL: the view uploads the
// pixels and the tests read them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "memframe/report/address_map_png.h"
#include "memframe/analysis/fragmentation.h"

namespace memframe::viewer {

// RGBA as bytes r, g, b, a in memory (ImGui's IM_COL32 on little endian).
constexpr uint32_t Rgba(analysis::Rgb c, uint8_t alpha = 255) {
  return c.r | uint32_t{c.g} << 8 | uint32_t{c.b} << 16 | uint32_t{alpha} << 24;
}
constexpr uint32_t kMapBackground = 0;  // transparent: the window shows through between bands

class AddressMap {
 public:
  // `regions` as LayoutRegions returns them; `width` pixels per row.
  AddressMap(std::vector<analysis::RegionLayout> regions, int width, uint64_t bytes_per_pixel);

  // The smallest power of two (at least 1) with which every band fits in
  // `max_rows` rows.
  static uint64_t FitBytesPerPixel(const std::vector<analysis::RegionLayout>& regions, int width, uint64_t max_rows);

  int width() const { return width_; }
  uint64_t bytes_per_pixel() const { return bytes_per_pixel_; }
  uint64_t row_bytes() const { return bytes_per_pixel_ * static_cast<uint64_t>(width_); }
  uint64_t total_rows() const { return total_rows_; }
  const std::vector<analysis::RegionLayout>& regions() const { return regions_; }
  uint64_t RegionFirstRow(size_t region) const { return first_row_[region]; }

  // What a pixel stands for: the region and the first byte it covers, or
  // nothing (a separator row, or past the end of a band).
  struct Spot {
    size_t region = 0;
    uint64_t address = 0;
  };
  std::optional<Spot> At(uint64_t row, int column) const;
  // The row and column that show `address` inside `region`.
  uint64_t RowOf(size_t region, uint64_t address) const;

  // Rows first_row .. first_row + rows - 1, width() pixels each, into *rgba.
  void Paint(const analysis::AddressSpace& space, analysis::MapColoring coloring, uint64_t first_row, int rows,
             std::vector<uint32_t>* rgba) const;

 private:
  // The band holding `row`: the last region whose first row is <= row.
  size_t BandOf(uint64_t row) const;

  std::vector<analysis::RegionLayout> regions_;
  std::vector<uint64_t> first_row_;  // per region
  int width_;
  uint64_t bytes_per_pixel_;
  uint64_t total_rows_ = 0;
};

// Rows a region takes at `row_bytes` per row (at least one).
uint64_t BandRows(const analysis::RegionLayout& region, uint64_t row_bytes);

}  // namespace memframe::viewer
