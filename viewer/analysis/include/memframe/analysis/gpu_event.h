// One GPU object event of a capture (proto/FORMAT.md, "GPU objects"): a
// buffer, texture or renderbuffer (GL), or a Vulkan memory, buffer or image,
// made, resized or deleted.
#pragma once

#include <cstdint>

namespace memframe::analysis {

// As wire::GpuObjectKind.
enum class GpuKind : uint8_t { kNone = 0, kBuffer, kTexture, kRenderbuffer, kVkMemory, kVkBuffer, kVkImage };
constexpr int kGpuKinds = 7;  // with kNone
// "buffer", "texture", "renderbuffer", "vk-memory", "vk-buffer", "vk-image".
const char* GpuKindName(GpuKind kind);

// As wire::GpuOp.
enum class GpuOp : uint8_t { kNone = 0, kStorage, kImage, kDelete, kMipmaps, kBind, kDeclare };
// As wire::GpuSizeBasis.
enum class GpuSizeBasis : uint8_t { kExact = 0, kAsUploaded, kUnknown };
// "exact", "as uploaded", "unknown".
const char* GpuSizeBasisName(GpuSizeBasis basis);

struct GpuEvent {
  uint64_t ticks = 0;
  uint64_t frame = 0;   // the capture's frame (frame_source.h), not the agent's counter
  uint64_t name = 0;
  uint64_t bytes = 0;
  uint64_t memory = 0;
  uint64_t offset = 0;
  GpuOp op = GpuOp::kNone;
  GpuKind kind = GpuKind::kNone;
  GpuSizeBasis basis = GpuSizeBasis::kExact;
  uint8_t face = 0;
  uint32_t context = 0;
  uint32_t format = 0;
  uint32_t target = 0;
  uint32_t width = 0, height = 0, depth = 0;
  uint32_t levels = 0, samples = 0, level = 0;
  uint32_t memory_type = 0, memory_heap = 0, memory_flags = 0;
  uint32_t stack_id = 0;
  uint16_t thread = 0;  // index into Stream::threads
};

}  // namespace memframe::analysis
