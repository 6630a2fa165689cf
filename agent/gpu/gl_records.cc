#include "gpu/gl_records.h"

#include "gpu/gl_context_state.h"
#include "gpu/gpu_queue.h"
#include "memframe.pb.h"
#include "memframe/gl_formats.h"

namespace memframe::agent {

namespace {

GpuRecord NewRecord(wire::GpuOp op, GlKind kind, uint32_t name) {
  GpuRecord r{};
  r.op = static_cast<uint8_t>(op);
  r.kind = static_cast<uint8_t>(kind);
  r.name = name;
  r.context = CurrentGlContext().share_group;
  return r;
}

void Describe(GpuRecord& r, const GlImage& image) {
  r.target = image.target;
  r.format = image.internal_format;
  r.width = image.width;
  r.height = image.height;
  r.depth = image.depth;
  r.levels = image.levels;
  r.samples = image.samples;
}

void Push(GpuRecord& r, const void* hook_frame) {
  RecursionGuard guard;  // the stack's unwinding and interning are the agent's own work
  if (guard.acquired()) PushGpuRecord(guard, r, hook_frame);
}

uint32_t Faces(uint32_t target) { return wire::GlCubeMapTarget(target) ? 6 : 1; }
uint64_t Samples(uint32_t samples) { return samples > 1 ? samples : 1; }

}  // namespace

void RecordGlBufferStore(uint32_t name, uint32_t target, int64_t bytes, const void* hook_frame) {
  if (name == 0 || bytes < 0) return;  // no buffer bound, or a call GL refuses
  GpuRecord r = NewRecord(wire::GPU_STORAGE, GlKind::kBuffer, name);
  r.target = target;
  r.bytes = static_cast<uint64_t>(bytes);
  Push(r, hook_frame);
}

void RecordGlTextureStorage(uint32_t name, const GlImage& image, const void* hook_frame) {
  if (name == 0) return;
  GpuRecord r = NewRecord(wire::GPU_STORAGE, GlKind::kTexture, name);
  Describe(r, image);
  uint64_t chain = 0;
  if (wire::GlChainBytes(image.internal_format, image.target, image.levels, image.width, image.height, image.depth,
                         &chain)) {
    r.bytes = chain * Faces(image.target) * Samples(image.samples);
  } else {
    r.basis = wire::GPU_SIZE_UNKNOWN;
  }
  Push(r, hook_frame);
}

void RecordGlTextureImage(uint32_t name, const GlImage& image, uint32_t level, uint32_t format, uint32_t type,
                          int64_t compressed_bytes, const void* hook_frame) {
  if (name == 0) return;
  GpuRecord r = NewRecord(wire::GPU_IMAGE, GlKind::kTexture, name);
  Describe(r, image);
  r.levels = 0;
  r.level = level;
  if (wire::GlCubeFaceTarget(image.target)) r.face = static_cast<uint8_t>(image.target - 0x8515);
  if (compressed_bytes > 0) {
    r.bytes = static_cast<uint64_t>(compressed_bytes);
  } else if (!wire::GlImageBytes(image.internal_format, image.width, image.height, image.depth, &r.bytes)) {
    const uint64_t pixel = wire::GlUnsizedFormat(image.internal_format) ? wire::GlPixelBytes(format, type) : 0;
    r.basis = pixel ? wire::GPU_SIZE_AS_UPLOADED : wire::GPU_SIZE_UNKNOWN;
    r.bytes = pixel * image.width * (image.height ? image.height : 1) * (image.depth ? image.depth : 1);
  }
  Push(r, hook_frame);
}

void RecordGlMipmaps(uint32_t name, uint32_t target, const void* hook_frame) {
  if (name == 0) return;
  GpuRecord r = NewRecord(wire::GPU_MIPMAPS, GlKind::kTexture, name);
  r.target = target;
  Push(r, hook_frame);
}

void RecordGlTextureTargets(uint32_t target, int32_t count, const uint32_t* names, const void* hook_frame) {
  for (int32_t i = 0; names && i < count; ++i) {
    GpuRecord r = NewRecord(wire::GPU_DECLARE, GlKind::kTexture, names[i]);
    r.target = target;
    Push(r, hook_frame);
  }
}

void RecordGlRenderbufferStorage(uint32_t name, const GlImage& image, const void* hook_frame) {
  if (name == 0) return;
  GpuRecord r = NewRecord(wire::GPU_STORAGE, GlKind::kRenderbuffer, name);
  Describe(r, image);
  if (wire::GlImageBytes(image.internal_format, image.width, image.height, 1, &r.bytes))
    r.bytes *= Samples(image.samples);
  else
    r.basis = wire::GPU_SIZE_UNKNOWN;
  Push(r, hook_frame);
}

void RecordGlDeletes(GlKind kind, int32_t count, const uint32_t* names, const void* hook_frame) {
  for (int32_t i = 0; names && i < count; ++i) {
    if (names[i] == 0) continue;  // deleting 0 is ignored by GL
    GpuRecord r = NewRecord(wire::GPU_DELETE, kind, names[i]);
    Push(r, hook_frame);
  }
}

}  // namespace memframe::agent
