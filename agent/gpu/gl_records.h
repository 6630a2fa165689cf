// What the GL hooks record, once the real call has returned: one GpuRecord
// each (gpu_queue.h), sized with the format table (memframe/gl_formats.h).
// Each takes the hook's frame address, where the stack's unwind starts, so
// the stack's first frame is the game's call of the GL function.
#pragma once

#include <cstdint>

namespace memframe::agent {

enum class GlKind : uint8_t { kBuffer = 1, kTexture = 2, kRenderbuffer = 3 };  // wire::GpuObjectKind

struct GlImage {
  uint32_t target = 0;
  uint32_t internal_format = 0;
  uint32_t width = 0, height = 0, depth = 0;
  uint32_t levels = 1;   // storage: the mip chain
  uint32_t samples = 0;  // multisample storage
};

// A buffer's whole store (glBufferData, glBufferStorage, the Named forms).
void RecordGlBufferStore(uint32_t name, uint32_t target, int64_t bytes, const void* hook_frame);
// An immutable or multisample texture's whole storage (glTexStorage*,
// glTextureStorage*, glTexImage*Multisample): every level, every face.
void RecordGlTextureStorage(uint32_t name, const GlImage& image, const void* hook_frame);
// One image of a texture (glTexImage*, glCopyTexImage*): its bytes from the
// table, or for an unsized format from the upload's `format` and `type`
// (0, 0: unknown). `compressed_bytes` > 0: glCompressedTexImage's own size.
void RecordGlTextureImage(uint32_t name, const GlImage& image, uint32_t level, uint32_t format, uint32_t type,
                          int64_t compressed_bytes, const void* hook_frame);
void RecordGlMipmaps(uint32_t name, uint32_t target, const void* hook_frame);
// glCreateTextures: each name's target, for a later glTextureStorage.
void RecordGlTextureTargets(uint32_t target, int32_t count, const uint32_t* names, const void* hook_frame);
void RecordGlRenderbufferStorage(uint32_t name, const GlImage& image, const void* hook_frame);
void RecordGlDeletes(GlKind kind, int32_t count, const uint32_t* names, const void* hook_frame);

}  // namespace memframe::agent
