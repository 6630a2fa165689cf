// What the Vulkan hooks record (hooks/vk_object_hooks.cc), once the real
// call has returned: one GpuRecord each (gpu_queue.h). A VkDeviceMemory is
// sized by its allocation and placed in its memory type and heap; a buffer
// or image by the memory it requires, and bound into a memory at an offset
// (a game's own sub-allocator binds many resources into one block).
//
// The memory types of each device come from
// vkGetPhysicalDeviceMemoryProperties, which the game calls to choose a type
// (or the hook of vkCreateDevice, if it did not): kept in small static
// tables, claimed with a compare-and-swap, never allocated in a hook.
#pragma once

#include <cstdint>

namespace memframe::agent {

enum class VkKind : uint8_t { kMemory = 4, kBuffer = 5, kImage = 6 };  // wire::GpuObjectKind

// The layouts of the few Vulkan structures the hooks read, as
// vulkan_core.h lays them out (the Vulkan 1.0 ABI, fixed): the agent builds
// without the Vulkan headers.
struct VkMemoryTypeAbi {
  uint32_t property_flags;
  uint32_t heap_index;
};
struct VkMemoryHeapAbi {
  uint64_t size;
  uint32_t flags;
};
struct VkMemoryPropertiesAbi {
  uint32_t type_count;
  VkMemoryTypeAbi types[32];
  uint32_t heap_count;
  VkMemoryHeapAbi heaps[16];
};

// The memory types of `physical_device`, as the driver gave them.
void RememberVkMemoryProperties(const void* physical_device, const VkMemoryPropertiesAbi& properties);
// `device` was made on `physical_device`.
void RememberVkDevice(const void* device, const void* physical_device);
bool VkDeviceKnown(const void* device);

struct VkImageShape {
  uint32_t format = 0;  // VkFormat
  uint32_t width = 0, height = 0, depth = 0;
  uint32_t layers = 0, levels = 0, samples = 0;
};

void RecordVkAllocate(const void* device, uint64_t memory, uint64_t bytes, uint32_t type_index,
                      const void* hook_frame);
// A buffer or an image made: `bytes` what it requires (0 and unknown when
// the requirement could not be asked).
void RecordVkResource(VkKind kind, uint64_t handle, uint64_t bytes, bool bytes_known, const VkImageShape& shape,
                      uint32_t usage, const void* hook_frame);
void RecordVkBind(VkKind kind, uint64_t handle, uint64_t memory, uint64_t offset, const void* hook_frame);
void RecordVkDelete(VkKind kind, uint64_t handle, const void* hook_frame);

}  // namespace memframe::agent
