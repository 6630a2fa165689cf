// The Vulkan calls that allocate and free device memory, make and destroy
// buffers and images, and bind them into memory; and the calls that say
// which memory types a device has. Interposed as symbols (a game linked to
// the loader) and handed out by vkGetInstanceProcAddr / vkGetDeviceProcAddr
// (present_hooks.h), as vkQueuePresentKHR is. The hook has one real
// function per name: a game with devices of two drivers at once calls the
// real function of the last one looked up (as for the presents).
//
// A buffer's or image's bytes are the memory it requires: the hook asks the
// real vkGet*MemoryRequirements once the resource exists (what the game
// does itself before binding it). Swapchain images are the driver's: no
// vkCreateImage, never seen. Nothing here allocates or takes a lock.
#include <atomic>
#include <cstdint>

#include "gpu/gpu_queue.h"
#include "gpu/vk_records.h"
#include "hooks/gl_hooks.h"
#include "hooks/tracked_call.h"

using namespace memframe::agent;

namespace {

using VkResult = int32_t;
using Handle = uint64_t;  // a non-dispatchable handle (VkDeviceMemory, VkBuffer, VkImage)
constexpr VkResult kSuccess = 0;

// As vulkan_core.h lays them out (the Vulkan 1.0 ABI).
struct MemoryAllocateInfo {
  uint32_t s_type;
  const void* next;
  uint64_t allocation_size;
  uint32_t memory_type_index;
};
struct BufferCreateInfo {
  uint32_t s_type;
  const void* next;
  uint32_t flags;
  uint64_t size;
  uint32_t usage;
};
struct ImageCreateInfo {
  uint32_t s_type;
  const void* next;
  uint32_t flags;
  uint32_t image_type;
  uint32_t format;
  uint32_t width, height, depth;
  uint32_t mip_levels;
  uint32_t array_layers;
  uint32_t samples;
  uint32_t tiling;
  uint32_t usage;
};
struct MemoryRequirements {
  uint64_t size;
  uint64_t alignment;
  uint32_t memory_type_bits;
};
struct MemoryProperties2 {
  uint32_t s_type;
  void* next;
  VkMemoryPropertiesAbi properties;
};
struct BindMemoryInfo {  // VkBindBufferMemoryInfo and VkBindImageMemoryInfo alike
  uint32_t s_type;
  const void* next;
  Handle resource;
  Handle memory;
  uint64_t offset;
};

}  // namespace

extern "C" {
// Declared for MEMFRAME_REAL_GL's decltype; defined below.
MEMFRAME_EXPORT void vkGetPhysicalDeviceMemoryProperties(void* physical_device, VkMemoryPropertiesAbi* properties);
MEMFRAME_EXPORT void vkGetBufferMemoryRequirements(void* device, Handle buffer, MemoryRequirements* requirements);
MEMFRAME_EXPORT void vkGetImageMemoryRequirements(void* device, Handle image, MemoryRequirements* requirements);
}

namespace {

std::atomic<void*> g_vkGetPhysicalDeviceMemoryProperties, g_vkGetPhysicalDeviceMemoryProperties2,
    g_vkGetPhysicalDeviceMemoryProperties2KHR, g_vkCreateDevice, g_vkAllocateMemory, g_vkFreeMemory,
    g_vkCreateBuffer, g_vkDestroyBuffer, g_vkCreateImage, g_vkDestroyImage, g_vkBindBufferMemory,
    g_vkBindImageMemory, g_vkBindBufferMemory2, g_vkBindBufferMemory2KHR, g_vkBindImageMemory2,
    g_vkBindImageMemory2KHR, g_vkGetBufferMemoryRequirements, g_vkGetImageMemoryRequirements;

// vkBind{Buffer,Image}Memory2(KHR): the real call, then one bind each.
// `hook_frame`: the hook's own frame, where the stack's unwind starts.
using BindManyFn = VkResult (*)(void*, uint32_t, const BindMemoryInfo*);
VkResult BindMany(BindManyFn real, VkKind kind, void* device, uint32_t count, const BindMemoryInfo* infos,
                  const void* hook_frame) {
  const VkResult result = real ? real(device, count, infos) : -3;  // VK_ERROR_INITIALIZATION_FAILED
  if (result == kSuccess && infos && GpuTracking())
    for (uint32_t i = 0; i < count; ++i) RecordVkBind(kind, infos[i].resource, infos[i].memory, infos[i].offset, hook_frame);
  return result;
}

}  // namespace

MEMFRAME_EXPORT void vkGetPhysicalDeviceMemoryProperties(void* physical_device, VkMemoryPropertiesAbi* properties) {
  if (auto* real = MEMFRAME_REAL_GL(vkGetPhysicalDeviceMemoryProperties)) real(physical_device, properties);
  if (properties) RememberVkMemoryProperties(physical_device, *properties);
}
MEMFRAME_EXPORT void vkGetPhysicalDeviceMemoryProperties2(void* physical_device, MemoryProperties2* properties) {
  if (auto* real = MEMFRAME_REAL_GL(vkGetPhysicalDeviceMemoryProperties2)) real(physical_device, properties);
  if (properties) RememberVkMemoryProperties(physical_device, properties->properties);
}
MEMFRAME_EXPORT void vkGetPhysicalDeviceMemoryProperties2KHR(void* physical_device, MemoryProperties2* properties) {
  if (auto* real = MEMFRAME_REAL_GL(vkGetPhysicalDeviceMemoryProperties2KHR)) real(physical_device, properties);
  if (properties) RememberVkMemoryProperties(physical_device, properties->properties);
}
MEMFRAME_EXPORT VkResult vkCreateDevice(void* physical_device, const void* info, const void* allocator,
                                        void** device) {
  auto* real = MEMFRAME_REAL_GL(vkCreateDevice);
  const VkResult result = real ? real(physical_device, info, allocator, device) : -3;  // VK_ERROR_INITIALIZATION_FAILED
  if (result != kSuccess || !device) return result;
  RememberVkDevice(*device, physical_device);
  // A game that chose its memory types without asking (it knows the
  // hardware) still gets each allocation's heap.
  if (!VkDeviceKnown(*device)) {
    VkMemoryPropertiesAbi properties{};
    if (auto* ask = reinterpret_cast<decltype(&vkGetPhysicalDeviceMemoryProperties)>(
            g_vkGetPhysicalDeviceMemoryProperties.load(std::memory_order_acquire))) {
      ask(physical_device, &properties);
      RememberVkMemoryProperties(physical_device, properties);
    }
  }
  return result;
}
MEMFRAME_EXPORT VkResult vkAllocateMemory(void* device, const MemoryAllocateInfo* info, const void* allocator,
                                          Handle* memory) {
  auto* real = MEMFRAME_REAL_GL(vkAllocateMemory);
  const VkResult result = real ? real(device, info, allocator, memory) : -3;
  if (result == kSuccess && memory && info && GpuTracking())
    RecordVkAllocate(device, *memory, info->allocation_size, info->memory_type_index, __builtin_frame_address(0));
  return result;
}
MEMFRAME_EXPORT void vkFreeMemory(void* device, Handle memory, const void* allocator) {
  if (auto* real = MEMFRAME_REAL_GL(vkFreeMemory)) real(device, memory, allocator);
  if (GpuTracking()) RecordVkDelete(VkKind::kMemory, memory, __builtin_frame_address(0));
}
MEMFRAME_EXPORT VkResult vkCreateBuffer(void* device, const BufferCreateInfo* info, const void* allocator,
                                        Handle* buffer) {
  auto* real = MEMFRAME_REAL_GL(vkCreateBuffer);
  const VkResult result = real ? real(device, info, allocator, buffer) : -3;
  if (result != kSuccess || !buffer || !info || !GpuTracking()) return result;
  MemoryRequirements needs{};
  auto* ask = reinterpret_cast<decltype(&vkGetBufferMemoryRequirements)>(
      g_vkGetBufferMemoryRequirements.load(std::memory_order_acquire));
  if (ask) ask(device, *buffer, &needs);
  RecordVkResource(VkKind::kBuffer, *buffer, needs.size, ask != nullptr, VkImageShape{}, info->usage,
                   __builtin_frame_address(0));
  return result;
}
MEMFRAME_EXPORT void vkDestroyBuffer(void* device, Handle buffer, const void* allocator) {
  if (auto* real = MEMFRAME_REAL_GL(vkDestroyBuffer)) real(device, buffer, allocator);
  if (GpuTracking()) RecordVkDelete(VkKind::kBuffer, buffer, __builtin_frame_address(0));
}
MEMFRAME_EXPORT VkResult vkCreateImage(void* device, const ImageCreateInfo* info, const void* allocator,
                                       Handle* image) {
  auto* real = MEMFRAME_REAL_GL(vkCreateImage);
  const VkResult result = real ? real(device, info, allocator, image) : -3;
  if (result != kSuccess || !image || !info || !GpuTracking()) return result;
  MemoryRequirements needs{};
  auto* ask = reinterpret_cast<decltype(&vkGetImageMemoryRequirements)>(
      g_vkGetImageMemoryRequirements.load(std::memory_order_acquire));
  if (ask) ask(device, *image, &needs);
  VkImageShape shape{info->format, info->width,      info->height, info->depth,
                     info->array_layers, info->mip_levels, info->samples};
  RecordVkResource(VkKind::kImage, *image, needs.size, ask != nullptr, shape, info->usage, __builtin_frame_address(0));
  return result;
}
MEMFRAME_EXPORT void vkDestroyImage(void* device, Handle image, const void* allocator) {
  if (auto* real = MEMFRAME_REAL_GL(vkDestroyImage)) real(device, image, allocator);
  if (GpuTracking()) RecordVkDelete(VkKind::kImage, image, __builtin_frame_address(0));
}
MEMFRAME_EXPORT VkResult vkBindBufferMemory(void* device, Handle buffer, Handle memory, uint64_t offset) {
  auto* real = MEMFRAME_REAL_GL(vkBindBufferMemory);
  const VkResult result = real ? real(device, buffer, memory, offset) : -3;
  if (result == kSuccess && GpuTracking())
    RecordVkBind(VkKind::kBuffer, buffer, memory, offset, __builtin_frame_address(0));
  return result;
}
MEMFRAME_EXPORT VkResult vkBindImageMemory(void* device, Handle image, Handle memory, uint64_t offset) {
  auto* real = MEMFRAME_REAL_GL(vkBindImageMemory);
  const VkResult result = real ? real(device, image, memory, offset) : -3;
  if (result == kSuccess && GpuTracking()) RecordVkBind(VkKind::kImage, image, memory, offset, __builtin_frame_address(0));
  return result;
}
MEMFRAME_EXPORT VkResult vkBindBufferMemory2(void* device, uint32_t count, const BindMemoryInfo* infos) {
  return BindMany(MEMFRAME_REAL_GL(vkBindBufferMemory2), VkKind::kBuffer, device, count, infos, __builtin_frame_address(0));
}
MEMFRAME_EXPORT VkResult vkBindBufferMemory2KHR(void* device, uint32_t count, const BindMemoryInfo* infos) {
  return BindMany(MEMFRAME_REAL_GL(vkBindBufferMemory2KHR), VkKind::kBuffer, device, count, infos,
                  __builtin_frame_address(0));
}
MEMFRAME_EXPORT VkResult vkBindImageMemory2(void* device, uint32_t count, const BindMemoryInfo* infos) {
  return BindMany(MEMFRAME_REAL_GL(vkBindImageMemory2), VkKind::kImage, device, count, infos, __builtin_frame_address(0));
}
MEMFRAME_EXPORT VkResult vkBindImageMemory2KHR(void* device, uint32_t count, const BindMemoryInfo* infos) {
  return BindMany(MEMFRAME_REAL_GL(vkBindImageMemory2KHR), VkKind::kImage, device, count, infos,
                  __builtin_frame_address(0));
}
// Handed out only so that their real functions are known to the hooks
// above (a game fetches them by name with vkGetDeviceProcAddr).
MEMFRAME_EXPORT void vkGetBufferMemoryRequirements(void* device, Handle buffer, MemoryRequirements* requirements) {
  if (auto* real = MEMFRAME_REAL_GL(vkGetBufferMemoryRequirements)) real(device, buffer, requirements);
}
MEMFRAME_EXPORT void vkGetImageMemoryRequirements(void* device, Handle image, MemoryRequirements* requirements) {
  if (auto* real = MEMFRAME_REAL_GL(vkGetImageMemoryRequirements)) real(device, image, requirements);
}

namespace memframe::agent {

namespace {
#define MEMFRAME_VK(name) {#name, 0, reinterpret_cast<void*>(&::name), &g_##name}
const InterceptedFunction kVkIntercepted[] = {
    MEMFRAME_VK(vkGetPhysicalDeviceMemoryProperties),
    MEMFRAME_VK(vkGetPhysicalDeviceMemoryProperties2),
    MEMFRAME_VK(vkGetPhysicalDeviceMemoryProperties2KHR),
    MEMFRAME_VK(vkCreateDevice),
    MEMFRAME_VK(vkAllocateMemory),
    MEMFRAME_VK(vkFreeMemory),
    MEMFRAME_VK(vkCreateBuffer),
    MEMFRAME_VK(vkDestroyBuffer),
    MEMFRAME_VK(vkCreateImage),
    MEMFRAME_VK(vkDestroyImage),
    MEMFRAME_VK(vkBindBufferMemory),
    MEMFRAME_VK(vkBindImageMemory),
    MEMFRAME_VK(vkBindBufferMemory2),
    MEMFRAME_VK(vkBindBufferMemory2KHR),
    MEMFRAME_VK(vkBindImageMemory2),
    MEMFRAME_VK(vkBindImageMemory2KHR),
    MEMFRAME_VK(vkGetBufferMemoryRequirements),
    MEMFRAME_VK(vkGetImageMemoryRequirements),
};
#undef MEMFRAME_VK
}  // namespace

const InterceptedFunction* VkObjectFunctions(int* count) {
  *count = static_cast<int>(sizeof(kVkIntercepted) / sizeof(kVkIntercepted[0]));
  return kVkIntercepted;
}

}  // namespace memframe::agent
