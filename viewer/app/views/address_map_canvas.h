// The fragmentation view's map: the address space of every region painted
// (model/address_map.h), zoomed with the wheel around the pointer (a power
// of two bytes per pixel), panned by dragging; hovering a block shows its
// size, the frame it was made in and its stack, clicking pins its stack.
// Repainted only when the frame, colouring, zoom, scroll or size changes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "address_map.h"
#include "session.h"
#include "widgets/gl_texture.h"

namespace memframe::viewer {

class AddressMapCanvas {
 public:
  // `space` and `regions` must outlive the next Draw; call Reset() when
  // they change.
  void Reset() { map_.reset(); }
  void Draw(Session& session, const analysis::AddressSpace& space, const std::vector<analysis::RegionLayout>& regions,
            analysis::MapColoring coloring);
  // Scrolls the map so that `region` starts at the top.
  void ShowRegion(size_t region);
  std::optional<uint32_t> clicked_stack() const { return clicked_stack_; }
  uint64_t bytes_per_pixel() const { return map_ ? map_->bytes_per_pixel() : 0; }

 private:
  void Layout(const std::vector<analysis::RegionLayout>& regions, int width, int height);
  void HandleInput(const analysis::AddressSpace& space, const std::vector<analysis::RegionLayout>& regions, float top);
  void Tooltip(Session& session, const analysis::AddressSpace& space, const AddressMap::Spot& spot);

  std::unique_ptr<AddressMap> map_;
  uint64_t zoom_bpp_ = 0;  // 0: fit everything in the canvas
  int width_ = 0, height_ = 0;
  double scroll_row_ = 0;
  std::optional<size_t> pending_region_;
  std::optional<uint32_t> clicked_stack_;
  // What the texture shows, to repaint only on change.
  struct Painted {
    const analysis::AddressSpace* space = nullptr;
    analysis::MapColoring coloring = analysis::MapColoring::kAge;
    uint64_t bpp = 0, first_row = 0;
    int width = 0, height = 0;
    bool operator==(const Painted&) const = default;
  } painted_;
  std::vector<uint32_t> pixels_;
  GlTexture texture_;
};

}  // namespace memframe::viewer
