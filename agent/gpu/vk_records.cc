#include "gpu/vk_records.h"

#include <atomic>

#include "gpu/gpu_queue.h"
#include "memframe.pb.h"
#include "memframe/format.h"

namespace memframe::agent {

namespace {

// A few physical devices and devices: a game makes one or two. Keys are
// claimed with a compare-and-swap, then filled, then marked ready.
constexpr int kMaxPhysicalDevices = 8;
constexpr int kMaxDevices = 16;

struct PhysicalDevice {
  std::atomic<uintptr_t> key{0};
  std::atomic<bool> ready{false};
  VkMemoryPropertiesAbi properties;
};
struct Device {
  std::atomic<uintptr_t> key{0};
  std::atomic<uintptr_t> physical{0};
};

PhysicalDevice g_physical[kMaxPhysicalDevices];
Device g_devices[kMaxDevices];

// The slot of `key` in `slots`, claimed if new; null when all are taken.
template <typename Slot, int kCount>
Slot* Claim(Slot (&slots)[kCount], uintptr_t key) {
  for (Slot& s : slots) {
    uintptr_t seen = s.key.load(std::memory_order_acquire);
    if (seen == key) return &s;
    if (seen == 0 && (s.key.compare_exchange_strong(seen, key, std::memory_order_acq_rel) || seen == key)) return &s;
  }
  return nullptr;
}

template <typename Slot, int kCount>
const Slot* Find(const Slot (&slots)[kCount], uintptr_t key) {
  for (const Slot& s : slots) {
    uintptr_t seen = s.key.load(std::memory_order_acquire);
    if (seen == key) return &s;
    if (seen == 0) return nullptr;
  }
  return nullptr;
}

const VkMemoryPropertiesAbi* PropertiesOf(const void* device) {
  const Device* d = Find(g_devices, reinterpret_cast<uintptr_t>(device));
  if (!d) return nullptr;
  const PhysicalDevice* p = Find(g_physical, d->physical.load(std::memory_order_acquire));
  return p && p->ready.load(std::memory_order_acquire) ? &p->properties : nullptr;
}

GpuRecord NewRecord(wire::GpuOp op, VkKind kind, uint64_t handle) {
  GpuRecord r{};
  r.op = static_cast<uint8_t>(op);
  r.kind = static_cast<uint8_t>(kind);
  r.name = handle;
  return r;
}

void Push(GpuRecord& r, const void* hook_frame) {
  RecursionGuard guard;  // the stack's unwinding and interning are the agent's own work
  if (guard.acquired()) PushGpuRecord(guard, r, hook_frame);
}

}  // namespace

void RememberVkMemoryProperties(const void* physical_device, const VkMemoryPropertiesAbi& properties) {
  PhysicalDevice* p = Claim(g_physical, reinterpret_cast<uintptr_t>(physical_device));
  if (!p || p->ready.load(std::memory_order_acquire)) return;  // the driver's types do not change
  p->properties = properties;
  p->ready.store(true, std::memory_order_release);
}

void RememberVkDevice(const void* device, const void* physical_device) {
  // A destroyed device's handle may come back for another physical device.
  if (Device* d = Claim(g_devices, reinterpret_cast<uintptr_t>(device)))
    d->physical.store(reinterpret_cast<uintptr_t>(physical_device), std::memory_order_release);
}

bool VkDeviceKnown(const void* device) { return PropertiesOf(device) != nullptr; }

void RecordVkAllocate(const void* device, uint64_t memory, uint64_t bytes, uint32_t type_index,
                      const void* hook_frame) {
  GpuRecord r = NewRecord(wire::GPU_STORAGE, VkKind::kMemory, memory);
  r.bytes = bytes;
  r.memory_type = type_index;
  r.memory_heap = wire::kVkHeapUnknown;
  const VkMemoryPropertiesAbi* properties = PropertiesOf(device);
  if (properties && type_index < properties->type_count && type_index < 32) {
    r.memory_heap = properties->types[type_index].heap_index;
    r.memory_flags = properties->types[type_index].property_flags;
  }
  Push(r, hook_frame);
}

void RecordVkResource(VkKind kind, uint64_t handle, uint64_t bytes, bool bytes_known, const VkImageShape& shape,
                      uint32_t usage, const void* hook_frame) {
  GpuRecord r = NewRecord(wire::GPU_STORAGE, kind, handle);
  r.bytes = bytes_known ? bytes : 0;
  r.basis = bytes_known ? wire::GPU_SIZE_EXACT : wire::GPU_SIZE_UNKNOWN;
  r.target = usage;
  r.format = shape.format;
  r.width = shape.width;
  r.height = shape.height;
  r.depth = shape.depth > 1 ? shape.depth : shape.layers;
  r.levels = shape.levels;
  r.samples = shape.samples;
  Push(r, hook_frame);
}

void RecordVkBind(VkKind kind, uint64_t handle, uint64_t memory, uint64_t offset, const void* hook_frame) {
  GpuRecord r = NewRecord(wire::GPU_BIND, kind, handle);
  r.memory = memory;
  r.offset = offset;
  Push(r, hook_frame);
}

void RecordVkDelete(VkKind kind, uint64_t handle, const void* hook_frame) {
  if (handle == 0) return;  // vkFree / vkDestroy of VK_NULL_HANDLE does nothing
  GpuRecord r = NewRecord(wire::GPU_DELETE, kind, handle);
  Push(r, hook_frame);
}

}  // namespace memframe::agent
