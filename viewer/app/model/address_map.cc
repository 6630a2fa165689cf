#include "address_map.h"

#include <algorithm>

namespace memframe::viewer {

uint64_t BandRows(const analysis::RegionLayout& region, uint64_t row_bytes) {
  return std::max<uint64_t>(1, (region.span() + row_bytes - 1) / row_bytes);
}

AddressMap::AddressMap(std::vector<analysis::RegionLayout> regions, int width, uint64_t bytes_per_pixel)
    : regions_(std::move(regions)), width_(std::max(1, width)), bytes_per_pixel_(std::max<uint64_t>(1, bytes_per_pixel)) {
  for (const analysis::RegionLayout& r : regions_) {
    first_row_.push_back(total_rows_);
    total_rows_ += BandRows(r, row_bytes()) + 1;  // one separator row after each band
  }
}

uint64_t AddressMap::FitBytesPerPixel(const std::vector<analysis::RegionLayout>& regions, int width, uint64_t max_rows) {
  for (uint64_t bpp = 1;; bpp *= 2) {
    uint64_t rows = 0;
    for (const analysis::RegionLayout& r : regions) rows += BandRows(r, bpp * std::max(1, width)) + 1;
    if (rows <= max_rows || bpp >= (uint64_t{1} << 40)) return bpp;
  }
}

size_t AddressMap::BandOf(uint64_t row) const {
  auto it = std::upper_bound(first_row_.begin(), first_row_.end(), row);
  return it == first_row_.begin() ? 0 : static_cast<size_t>(it - first_row_.begin() - 1);
}

std::optional<AddressMap::Spot> AddressMap::At(uint64_t row, int column) const {
  if (regions_.empty() || row >= total_rows_ || column < 0 || column >= width_) return std::nullopt;
  size_t band = BandOf(row);
  const analysis::RegionLayout& r = regions_[band];
  uint64_t address = r.start + (row - first_row_[band]) * row_bytes() + static_cast<uint64_t>(column) * bytes_per_pixel_;
  if (address >= r.end) return std::nullopt;
  return Spot{band, address};
}

uint64_t AddressMap::RowOf(size_t region, uint64_t address) const {
  const analysis::RegionLayout& r = regions_[region];
  return first_row_[region] + (std::clamp(address, r.start, r.end) - r.start) / row_bytes();
}

void AddressMap::Paint(const analysis::AddressSpace& space, analysis::MapColoring coloring, uint64_t first_row,
                       int rows, std::vector<uint32_t>* rgba) const {
  rgba->assign(static_cast<size_t>(width_) * std::max(0, rows), kMapBackground);
  const uint64_t bpp = bytes_per_pixel_;
  for (int y = 0; y < rows; ++y) {
    const uint64_t row = first_row + y;
    if (regions_.empty() || row >= total_rows_) break;
    const size_t band = BandOf(row);
    const analysis::RegionLayout& r = regions_[band];
    const uint64_t a0 = r.start + (row - first_row_[band]) * row_bytes();
    if (a0 >= r.end) continue;  // the separator row
    const uint64_t a1 = std::min(r.end, a0 + row_bytes());
    uint32_t* line = rgba->data() + static_cast<size_t>(y) * width_;
    const int hole_end = static_cast<int>((a1 - a0 + bpp - 1) / bpp);
    std::fill(line, line + hole_end, Rgba(r.mapped ? analysis::kMappedFreeColor : analysis::kHeapFreeColor));
    // Blocks in address order: a later (higher) block overwrites the pixel
    // it shares with an earlier one, as in the PNG.
    auto it = space.blocks.upper_bound(a0);
    if (it != space.blocks.begin()) --it;
    for (; it != space.blocks.end() && it->first < a1; ++it) {
      const uint64_t start = it->first, end = it->first + std::max<uint64_t>(1, it->second.size);
      if (end <= a0) continue;
      const int x0 = static_cast<int>((std::max(start, a0) - a0) / bpp);
      const int x1 = static_cast<int>((std::min(end, a1) - 1 - a0) / bpp);
      const uint32_t colour = Rgba(analysis::BlockColor(it->second, space.frame, coloring, space.first_frame));
      std::fill(line + x0, line + x1 + 1, colour);
    }
  }
}

}  // namespace memframe::viewer
