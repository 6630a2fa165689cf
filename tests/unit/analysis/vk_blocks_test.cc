// The Vulkan side of the GPU analysis: which memory each buffer or image
// is bound in when a driver hands a freed handle out again, and the names
// given to Vulkan formats and memory types.
#include <gtest/gtest.h>

#include "memframe/analysis/gpu_objects.h"

namespace memframe::analysis {
namespace {

GpuObject Object(GpuKind kind, uint64_t name, uint64_t bytes, uint64_t made, uint64_t deleted, uint64_t memory = 0,
                 uint64_t offset = 0) {
  GpuObject o;
  o.kind = kind;
  o.name = name;
  o.bytes = o.peak_bytes = bytes;
  o.made_frame = made;
  o.deleted_frame = deleted;
  o.alive = deleted == 0;
  o.memory = memory;
  o.offset = offset;
  return o;
}

TEST(VkBlocks, AResourceIsInTheLatestBlockOfItsHandleMadeByThen) {
  GpuAnalysis gpu;
  // Handle 0xA is a 4 MiB block in frames 10..40, then a 32 KiB one from 40.
  gpu.objects = {Object(GpuKind::kVkMemory, 0xA, 4 << 20, 10, 40),
                 Object(GpuKind::kVkImage, 0x1, 256 << 10, 10, 40, 0xA, 0),
                 Object(GpuKind::kVkBuffer, 0x2, 1 << 20, 10, 40, 0xA, 512 << 10),
                 Object(GpuKind::kVkMemory, 0xA, 32 << 10, 40, 70),
                 Object(GpuKind::kVkBuffer, 0x2, 32 << 10, 40, 70, 0xA, 0),
                 Object(GpuKind::kVkBuffer, 0x3, 64, 41, 0, 0xB, 0)};  // bound to a block never seen
  const std::vector<VkBlock> blocks = VkBlocks(gpu);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].memory, &gpu.objects[0]);  // largest first
  ASSERT_EQ(blocks[0].bound.size(), 2u);
  EXPECT_EQ(blocks[0].bound[0], &gpu.objects[1]);  // by offset
  EXPECT_EQ(blocks[0].bound[1], &gpu.objects[2]);
  EXPECT_EQ(blocks[0].bound_bytes, (256u << 10) + (1u << 20));
  EXPECT_EQ(blocks[1].memory, &gpu.objects[3]);
  ASSERT_EQ(blocks[1].bound.size(), 1u);
  EXPECT_EQ(blocks[1].bound[0], &gpu.objects[4]);
}

TEST(VkNames, FormatsAndMemoryTypesReadAsVulkanNamesThem) {
  EXPECT_EQ(VkFormatName(37), "VK_FORMAT_R8G8B8A8_UNORM");
  EXPECT_EQ(VkFormatName(126), "VK_FORMAT_D32_SFLOAT");
  EXPECT_EQ(VkFormatName(1000156000), "VkFormat 1000156000");
  EXPECT_EQ(VkFormatName(0), "");
  EXPECT_EQ(VkMemoryFlagsName(1), "device-local");
  EXPECT_EQ(VkMemoryFlagsName(2 | 4), "host-visible, host-coherent");
  EXPECT_EQ(VkMemoryFlagsName(0), "");
  GpuObject image = Object(GpuKind::kVkImage, 1, 0, 0, 0);
  image.format = 0x8058;  // a GL name's value is not read as GL's for a Vulkan object
  EXPECT_EQ(GpuFormatName(image), "VkFormat 32856");
}

}  // namespace
}  // namespace memframe::analysis
