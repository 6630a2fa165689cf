#include "gpu/gl_context_state.h"

#include <atomic>

namespace memframe::agent {

namespace {

// Slot 0 is the unknown context; the others are claimed by handle. 8 KiB a
// slot in .bss, resident only once used.
GlContextState g_contexts[kGlMaxContexts + 1];
std::atomic<uint64_t> g_handles[kGlMaxContexts + 1];
std::atomic<uint32_t> g_next_share_group{1};

__thread GlContextState* t_current __attribute__((tls_model("initial-exec"))) = nullptr;

// The slot of `context`, claimed if new (with a share group of its own);
// slot 0 when every slot is taken.
GlContextState& SlotOf(const void* context) {
  const auto handle = reinterpret_cast<uint64_t>(context);
  for (int i = 1; i <= kGlMaxContexts; ++i) {
    uint64_t seen = g_handles[i].load(std::memory_order_acquire);
    if (seen == handle) return g_contexts[i];
    if (seen == 0 && g_handles[i].compare_exchange_strong(seen, handle, std::memory_order_acq_rel)) {
      g_contexts[i].handle = handle;
      g_contexts[i].share_group = g_next_share_group.fetch_add(1, std::memory_order_relaxed);
      return g_contexts[i];
    }
    if (seen == handle) return g_contexts[i];  // another thread claimed it for the same context
  }
  return g_contexts[0];
}

}  // namespace

int GlBufferTargetIndex(uint32_t target) {
  switch (target) {
    case 0x8892: return 0;   // ARRAY_BUFFER
    case 0x8893: return 1;   // ELEMENT_ARRAY_BUFFER (the VAO's: element_buffers)
    case 0x88EB: return 2;   // PIXEL_PACK_BUFFER
    case 0x88EC: return 3;   // PIXEL_UNPACK_BUFFER
    case 0x8A11: return 4;   // UNIFORM_BUFFER
    case 0x8C2A: return 5;   // TEXTURE_BUFFER
    case 0x8C8E: return 6;   // TRANSFORM_FEEDBACK_BUFFER
    case 0x8F36: return 7;   // COPY_READ_BUFFER
    case 0x8F37: return 8;   // COPY_WRITE_BUFFER
    case 0x8F3F: return 9;   // DRAW_INDIRECT_BUFFER
    case 0x90D2: return 10;  // SHADER_STORAGE_BUFFER
    case 0x90EE: return 11;  // DISPATCH_INDIRECT_BUFFER
    case 0x9192: return 12;  // QUERY_BUFFER
    case 0x92C0: return 13;  // ATOMIC_COUNTER_BUFFER
    default: return -1;
  }
}

int GlTextureTargetIndex(uint32_t target) {
  switch (target) {
    case 0x0DE0: return 0;   // TEXTURE_1D
    case 0x0DE1: return 1;   // TEXTURE_2D
    case 0x806F: return 2;   // TEXTURE_3D
    case 0x8C18: return 3;   // TEXTURE_1D_ARRAY
    case 0x8C1A: return 4;   // TEXTURE_2D_ARRAY
    case 0x84F5: return 5;   // TEXTURE_RECTANGLE
    case 0x8513:             // TEXTURE_CUBE_MAP
    case 0x8515: case 0x8516: case 0x8517: case 0x8518: case 0x8519: case 0x851A:  // its faces
      return 6;
    case 0x9009: return 7;   // TEXTURE_CUBE_MAP_ARRAY
    case 0x8C2A: return 8;   // TEXTURE_BUFFER
    case 0x9100: return 9;   // TEXTURE_2D_MULTISAMPLE
    case 0x9102: return 10;  // TEXTURE_2D_MULTISAMPLE_ARRAY
    default: return -1;      // proxies and unknown targets
  }
}

GlContextState& CurrentGlContext() { return t_current ? *t_current : g_contexts[0]; }

void GlContextCreated(const void* context, const void* share) {
  if (!context) return;
  GlContextState& made = SlotOf(context);
  if (share && &made != &g_contexts[0]) made.share_group = SlotOf(share).share_group;
}

void GlMakeCurrent(const void* context) { t_current = context ? &SlotOf(context) : nullptr; }

uint32_t GlBoundBuffer(const GlContextState& c, uint32_t target) {
  const int i = GlBufferTargetIndex(target);
  if (i == 1) return c.vertex_array < kGlVertexArrays ? c.element_buffers[c.vertex_array] : c.buffers[1];
  return i < 0 ? 0 : c.buffers[i];
}

uint32_t GlBoundTexture(const GlContextState& c, uint32_t target) {
  const int i = GlTextureTargetIndex(target);
  return i < 0 || c.active_unit >= kGlTextureUnits ? 0 : c.textures[c.active_unit][i];
}

void GlBindBuffer(GlContextState& c, uint32_t target, uint32_t buffer) {
  const int i = GlBufferTargetIndex(target);
  if (i < 0) return;
  c.buffers[i] = buffer;  // for element arrays: the one of a VAO past kGlVertexArrays
  if (i == 1 && c.vertex_array < kGlVertexArrays) c.element_buffers[c.vertex_array] = buffer;
}

void GlBindTexture(GlContextState& c, uint32_t target, uint32_t texture) {
  const int i = GlTextureTargetIndex(target);
  if (i >= 0 && c.active_unit < kGlTextureUnits) c.textures[c.active_unit][i] = texture;
}

void GlBindVertexArray(GlContextState& c, uint32_t vertex_array) { c.vertex_array = vertex_array; }

void GlDeleteVertexArrays(GlContextState& c, int32_t count, const uint32_t* names) {
  for (int32_t i = 0; names && i < count; ++i) {
    if (names[i] < kGlVertexArrays) c.element_buffers[names[i]] = 0;
    if (names[i] == c.vertex_array) c.vertex_array = 0;  // deleting the bound VAO binds 0
  }
}

}  // namespace memframe::agent
