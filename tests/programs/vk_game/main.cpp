// The Vulkan game: see vk_truth.h for what it makes in which frame. It
// presents through a swapchain on an X11 window (lavapipe under Xvfb in
// the tests). Level 1 calls the functions it links from the loader; level 2
// calls pointers it fetched with vkGetDeviceProcAddr, as engines do.
//
// Prints one line per block, "vk_game: block NAME type T heap H flags F", so
// that the test can check the memory type memframe names against the
// driver's own answer.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "vk_truth.h"
#include "vk_window.h"

namespace {

using namespace memframe::vk_game;

void Check(VkResult result, const char* what) {
  if (result != VK_SUCCESS) {
    std::fprintf(stderr, "vk_game: %s failed: %d\n", what, result);
    std::exit(2);
  }
}

struct Device {
  VkPhysicalDevice gpu;
  VkDevice device;
  VkPhysicalDeviceMemoryProperties memory;
};

// The calls level 2 makes through pointers.
struct Fetched {
  PFN_vkAllocateMemory AllocateMemory;
  PFN_vkFreeMemory FreeMemory;
  PFN_vkCreateBuffer CreateBuffer;
  PFN_vkDestroyBuffer DestroyBuffer;
  PFN_vkCreateImage CreateImage;
  PFN_vkDestroyImage DestroyImage;
  PFN_vkBindBufferMemory2 BindBufferMemory2;
  PFN_vkBindImageMemory2 BindImageMemory2;
};

template <typename Fn>
void Fetch(VkDevice device, Fn* fn, const char* name) {
  *fn = reinterpret_cast<Fn>(vkGetDeviceProcAddr(device, name));
  if (!*fn) {
    std::fprintf(stderr, "vk_game: no %s\n", name);
    std::exit(2);
  }
}

uint32_t MemoryType(const Device& d, uint32_t allowed, bool device_local) {
  const VkMemoryPropertyFlags wanted =
      device_local ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
                   : VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < d.memory.memoryTypeCount; ++i)
    if ((allowed & (1u << i)) && (d.memory.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
  std::fprintf(stderr, "vk_game: no memory type for %s\n", device_local ? "device-local" : "host-visible");
  std::exit(2);
}

void RequireExactly(const VkMemoryRequirements& needs, const Resource& r) {
  if (needs.size != r.bytes || r.offset % needs.alignment != 0) {
    std::fprintf(stderr, "vk_game: %s requires %llu bytes aligned to %llu, not the truth's %llu at %llu\n", r.what,
                 static_cast<unsigned long long>(needs.size), static_cast<unsigned long long>(needs.alignment),
                 static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.offset));
    std::exit(4);
  }
}

struct Loaded {
  std::vector<VkDeviceMemory> blocks;
  std::vector<VkBuffer> buffers;
  std::vector<VkImage> images;
};

VkBufferCreateInfo BufferInfo(const Resource& r) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = r.bytes;
  info.usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  return info;
}

VkImageCreateInfo ImageInfo(const Resource& r) {
  const bool depth = r.bytes == 512 * 512 * 4;  // the shadow map
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = depth ? VK_FORMAT_D32_SFLOAT : VK_FORMAT_R8G8B8A8_UNORM;
  info.extent = depth ? VkExtent3D{512, 512, 1} : VkExtent3D{256, 256, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = depth ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT : VK_IMAGE_USAGE_SAMPLED_BIT;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  return info;
}

void PrintBlock(const Device& d, const Block& b, uint32_t type) {
  std::printf("vk_game: block %s type %u heap %u flags %u\n", b.what, type, d.memory.memoryTypes[type].heapIndex,
              d.memory.memoryTypes[type].propertyFlags);
}

// The calls a level makes: linked (level 1) or fetched (level 2).
struct Calls {
  PFN_vkAllocateMemory AllocateMemory;
  PFN_vkCreateBuffer CreateBuffer;
  PFN_vkCreateImage CreateImage;
};

// Allocates `b` and makes its resources; *buffers and *images get them in
// the order made.
VkDeviceMemory MakeBlock(const Device& d, const Calls& vk, const Block& b, Loaded& l, std::vector<VkBuffer>* buffers,
                         std::vector<VkImage>* images) {
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = b.bytes;
  allocate.memoryTypeIndex = MemoryType(d, ~0u, b.device_local);
  PrintBlock(d, b, allocate.memoryTypeIndex);
  VkDeviceMemory block;
  Check(vk.AllocateMemory(d.device, &allocate, nullptr, &block), "vkAllocateMemory");
  l.blocks.push_back(block);
  for (int i = 0; i < b.resource_count; ++i) {
    const Resource& r = b.resources[i];
    VkMemoryRequirements needs;
    if (r.kind == Kind::kBuffer) {
      const VkBufferCreateInfo info = BufferInfo(r);
      VkBuffer buffer;
      Check(vk.CreateBuffer(d.device, &info, nullptr, &buffer), "vkCreateBuffer");
      vkGetBufferMemoryRequirements(d.device, buffer, &needs);
      buffers->push_back(buffer);
      l.buffers.push_back(buffer);
    } else {
      const VkImageCreateInfo info = ImageInfo(r);
      VkImage image;
      Check(vk.CreateImage(d.device, &info, nullptr, &image), "vkCreateImage");
      vkGetImageMemoryRequirements(d.device, image, &needs);
      images->push_back(image);
      l.images.push_back(image);
    }
    RequireExactly(needs, r);
  }
  return block;
}

// The offset of the `index`-th resource of `kind` in `b`.
uint64_t OffsetOf(const Block& b, Kind kind, size_t index) {
  for (int i = 0; i < b.resource_count; ++i)
    if (b.resources[i].kind == kind && index-- == 0) return b.resources[i].offset;
  return 0;
}

// Level 1: the linked calls, one resource bound at a time.
__attribute__((noinline)) Loaded LoadLevel1(const Device& d) {
  Loaded l;
  const Calls linked{vkAllocateMemory, vkCreateBuffer, vkCreateImage};
  for (const Block& b : kLevel1Blocks) {
    std::vector<VkBuffer> buffers;
    std::vector<VkImage> images;
    const VkDeviceMemory block = MakeBlock(d, linked, b, l, &buffers, &images);
    for (size_t i = 0; i < buffers.size(); ++i)
      Check(vkBindBufferMemory(d.device, buffers[i], block, OffsetOf(b, Kind::kBuffer, i)), "vkBindBufferMemory");
    for (size_t i = 0; i < images.size(); ++i)
      Check(vkBindImageMemory(d.device, images[i], block, OffsetOf(b, Kind::kImage, i)), "vkBindImageMemory");
  }
  return l;
}

// All but the staging block and its buffer (the last of each): forgotten.
__attribute__((noinline)) void UnloadLevel1(const Device& d, Loaded& l) {
  for (size_t i = 0; i + 1 < l.buffers.size(); ++i) vkDestroyBuffer(d.device, l.buffers[i], nullptr);
  for (VkImage image : l.images) vkDestroyImage(d.device, image, nullptr);
  for (size_t i = 0; i + 1 < l.blocks.size(); ++i) vkFreeMemory(d.device, l.blocks[i], nullptr);
}

// Level 2: pointers from vkGetDeviceProcAddr; each block's resources made
// first and bound together with vkBind*Memory2.
__attribute__((noinline)) Loaded LoadLevel2(const Device& d, const Fetched& vk) {
  Loaded l;
  const Calls fetched{vk.AllocateMemory, vk.CreateBuffer, vk.CreateImage};
  for (const Block& b : kLevel2Blocks) {
    std::vector<VkBuffer> buffers;
    std::vector<VkImage> images;
    const VkDeviceMemory block = MakeBlock(d, fetched, b, l, &buffers, &images);
    std::vector<VkBindBufferMemoryInfo> buffer_binds;
    std::vector<VkBindImageMemoryInfo> image_binds;
    for (size_t i = 0; i < buffers.size(); ++i)
      buffer_binds.push_back(
          {VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, nullptr, buffers[i], block, OffsetOf(b, Kind::kBuffer, i)});
    for (size_t i = 0; i < images.size(); ++i)
      image_binds.push_back(
          {VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, nullptr, images[i], block, OffsetOf(b, Kind::kImage, i)});
    if (!buffer_binds.empty())
      Check(vk.BindBufferMemory2(d.device, static_cast<uint32_t>(buffer_binds.size()), buffer_binds.data()),
            "vkBindBufferMemory2");
    if (!image_binds.empty())
      Check(vk.BindImageMemory2(d.device, static_cast<uint32_t>(image_binds.size()), image_binds.data()),
            "vkBindImageMemory2");
  }
  return l;
}

__attribute__((noinline)) void UnloadLevel2(const Device& d, const Fetched& vk, Loaded& l) {
  for (VkBuffer buffer : l.buffers) vk.DestroyBuffer(d.device, buffer, nullptr);
  for (VkImage image : l.images) vk.DestroyImage(d.device, image, nullptr);
  for (VkDeviceMemory block : l.blocks) vk.FreeMemory(d.device, block, nullptr);
}

}  // namespace

int main() {
  memframe::vk_window::VkWindow w;
  if (!memframe::vk_window::Open(VK_API_VERSION_1_1, &w)) return 2;  // 1.1: vkBind*Memory2
  Device d{w.gpu, w.device, {}};
  vkGetPhysicalDeviceMemoryProperties(d.gpu, &d.memory);
  Fetched vk{};
  Fetch(d.device, &vk.AllocateMemory, "vkAllocateMemory");
  Fetch(d.device, &vk.FreeMemory, "vkFreeMemory");
  Fetch(d.device, &vk.CreateBuffer, "vkCreateBuffer");
  Fetch(d.device, &vk.DestroyBuffer, "vkDestroyBuffer");
  Fetch(d.device, &vk.CreateImage, "vkCreateImage");
  Fetch(d.device, &vk.DestroyImage, "vkDestroyImage");
  Fetch(d.device, &vk.BindBufferMemory2, "vkBindBufferMemory2");
  Fetch(d.device, &vk.BindImageMemory2, "vkBindImageMemory2");

  Loaded level1, level2;
  for (int frame = 0;; ++frame) {
    if (frame == kLevel1Frame) level1 = LoadLevel1(d);
    if (frame == kLevel2Frame) {
      UnloadLevel1(d, level1);
      level2 = LoadLevel2(d, vk);
    }
    if (frame == kEndFrame) {
      UnloadLevel2(d, vk, level2);
      break;
    }
    if (!memframe::vk_window::PresentFrame(w, vkQueuePresentKHR)) return 2;
  }
  // The staging buffer and its block stay: vkDestroyDevice reclaims them
  // without a vkDestroyBuffer or vkFreeMemory memframe could see.
  memframe::vk_window::Close(w);
  return 0;
}
