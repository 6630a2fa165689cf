// The GPU objects of a capture (gpu_event.h) replayed: each object from
// the call that made it to the one that deleted it, its size as it grew
// (a texture is the sum of its images; glBufferData on a live buffer is a
// resize), and the live GPU bytes of each kind at the end of every frame.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/gpu_event.h"

namespace memframe::analysis {

// Puts each of `stream`'s GPU events in the capture's frames: the frame after
// the last frame end (of the driving entry point, frame_source.h) before
// its tick. Call after ResolveFrameSource; sorts the events by tick. A
// stream whose events were not kept (summary_load.h) keeps the agent's
// frame numbers.
void PlaceGpuEvents(Stream* stream);

// Whether a kind's bytes count in the GPU total: a Vulkan buffer or image
// lives inside a VkDeviceMemory, whose bytes already count.
constexpr bool CountsInGpuTotal(GpuKind kind) { return kind != GpuKind::kVkBuffer && kind != GpuKind::kVkImage; }

struct GpuObject {
  GpuKind kind = GpuKind::kNone;
  uint32_t context = 0;  // GL share group
  uint64_t name = 0;
  uint64_t bytes = 0;       // at its deletion, or at the end of the capture
  uint64_t peak_bytes = 0;
  uint32_t format = 0;
  uint32_t target = 0;
  uint32_t width = 0, height = 0, depth = 0;
  uint32_t levels = 0;   // mip levels it has (storage, or images defined)
  uint32_t samples = 0;
  // The least certain of its sizes: any unknown image makes it unknown.
  GpuSizeBasis basis = GpuSizeBasis::kExact;
  uint64_t made_frame = 0;
  uint64_t deleted_frame = 0;
  bool alive = true;      // not deleted when the capture ends
  uint32_t stack_id = 0;  // the call that made it
  uint16_t thread = 0;
  uint32_t resizes = 0;   // storage redefined at another size while alive
  uint64_t memory = 0;    // Vulkan: the memory it is bound to (buffer, image)
  uint64_t offset = 0;
  uint32_t memory_type = 0, memory_heap = 0, memory_flags = 0;  // Vulkan memory
};

struct GpuFrame {
  std::array<uint64_t, kGpuKinds> live_bytes{};  // at the frame's end, by kind
  uint64_t made_bytes = 0;   // bytes of storage defined in the frame (new objects, resizes, images)
  uint64_t freed_bytes = 0;  // bytes of objects deleted (or shrunk) in the frame
  uint32_t made = 0;         // objects made
  uint32_t deleted = 0;
  uint64_t total() const;    // live bytes of the kinds that CountsInGpuTotal
};

struct GpuAnalysis {
  std::vector<GpuObject> objects;  // in the order made
  uint64_t first_frame = 0;        // frames[0]'s number
  std::vector<GpuFrame> frames;    // every frame from first_frame to the capture's last
  std::array<uint64_t, kGpuKinds> peak_bytes{};  // per kind, at a frame's end
  uint64_t peak_total = 0;
  uint64_t peak_frame = 0;
  uint64_t deletes_of_unknown = 0;  // names deleted the capture never saw made (made before an attach)
  uint64_t dropped = 0;             // events the agent dropped (drop mode)

  bool empty() const { return objects.empty(); }
  // Live bytes at the end of `frame` (0 before the first GPU event).
  const GpuFrame* Frame(uint64_t frame) const;
  uint64_t LiveTotal(uint64_t frame) const;
};

// "GL_RGBA8", "GL_ALPHA8", ...: every format the size table knows
// (gl_formats.h); "0x8C3A" for another; "" for 0.
std::string GlFormatName(uint32_t internal_format);
// "VK_FORMAT_R8G8B8A8_UNORM", ... for the common formats; "VkFormat 1000156000"
// for another; "" for 0.
std::string VkFormatName(uint32_t format);
// The object's format by its API: GlFormatName or VkFormatName.
std::string GpuFormatName(const GpuObject& object);
// "device-local, host-visible, host-coherent": a memory type's
// VkMemoryPropertyFlags (FORMAT.md, "GPU objects"); "" for none.
std::string VkMemoryFlagsName(uint32_t flags);
// "256x256", "64x64 cube", "64x64x4", "320x240 x4 samples"; "" without a size.
std::string GpuDimensions(const GpuObject& object);
constexpr bool IsVulkan(GpuKind kind) { return kind >= GpuKind::kVkMemory; }
// How an object is named: a GL name ("7", "7 (ctx 2)" in a second share
// group), a Vulkan handle in hex.
std::string GpuObjectName(const GpuObject& object);
// Where a Vulkan buffer or image lives: "bound in 0x55c0 at 524288", or
// "not bound".
std::string VkBindingText(const GpuObject& resource);
// A VkDeviceMemory's memory type: "type 0, heap 0 (device-local, host-visible)",
// or "heap ? (the device's memory types were not seen)".
std::string VkMemoryTypeText(const GpuObject& memory);

// A VkDeviceMemory and the buffers and images bound into it (a game's own
// sub-allocator binds many into one block), by offset.
struct VkBlock {
  const GpuObject* memory = nullptr;
  std::vector<const GpuObject*> bound;
  uint64_t bound_bytes = 0;  // the resources' bytes, overlaps counted twice
};
// Every VkDeviceMemory the capture made, largest first; a resource is in the
// block its last bind named, made while that block lived.
std::vector<VkBlock> VkBlocks(const GpuAnalysis& gpu);

// The GPU side of a diff of two moments: live bytes by kind at each, and
// the objects made after the first and still alive at the second (what a
// load left behind), largest first. A moment is the end of a frame
// (std::nullopt: the start).
struct GpuDiff {
  std::array<uint64_t, kGpuKinds> a{}, b{};
  std::vector<const GpuObject*> kept;
  uint64_t made = 0;     // objects made between the two
  uint64_t deleted = 0;  // objects deleted between the two
  uint64_t total_a() const;
  uint64_t total_b() const;
};
GpuDiff DiffGpu(const GpuAnalysis& gpu, std::optional<uint64_t> frame_a, uint64_t frame_b);

// `frame_count`: the capture's frames (frames past the last GPU event still
// get their row).
GpuAnalysis AnalyzeGpu(const Stream& stream, uint64_t frame_count);
// The same over every frame of `frames` (the heap analysis' table).
GpuAnalysis AnalyzeGpu(const Stream& stream, const FrameTable& frames);
// The kinds of the objects the capture made, in GpuKind order; with
// `in_total`, only those that count in the GPU total (CountsInGpuTotal).
std::vector<GpuKind> GpuKindsMade(const GpuAnalysis& gpu, bool in_total);

}  // namespace memframe::analysis
