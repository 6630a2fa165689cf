// An RGBA texture for ImGui::Image, owned by the view that paints it. GL
// 1.1 calls only (exported by every libGL), so no loader is needed.
#pragma once

#include <cstdint>

#include <imgui.h>

namespace memframe::viewer {

class GlTexture {
 public:
  GlTexture() = default;
  ~GlTexture();
  GlTexture(const GlTexture&) = delete;
  GlTexture& operator=(const GlTexture&) = delete;

  // `rgba`: width * height pixels, bytes r, g, b, a. Nearest filtering: a
  // zoomed-in block keeps sharp edges.
  void Upload(int width, int height, const uint32_t* rgba);
  ImTextureID id() const { return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(id_)); }

 private:
  unsigned int id_ = 0;
};

}  // namespace memframe::viewer
