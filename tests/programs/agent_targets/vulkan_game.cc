// A Vulkan program that presents through a swapchain on an X11 window (Mesa's
// lavapipe under Xvfb in the tests). It links the loader but fetches
// vkQueuePresentKHR with vkGetDeviceProcAddr, as engines do.
#include <cstdio>

#include "host_truth.h"
#include "vk_window.h"

int main() {
  using namespace memframe::vk_window;
  VkWindow w;
  if (!Open(VK_API_VERSION_1_0, &w)) return 2;
  auto present = reinterpret_cast<PFN_vkQueuePresentKHR>(vkGetDeviceProcAddr(w.device, "vkQueuePresentKHR"));
  for (int frame = 0; frame < memframe::targets::kVulkanFrames; ++frame)
    if (!PresentFrame(w, present)) return 2;
  Close(w);
  std::printf("vulkan presented %d frames\n", memframe::targets::kVulkanFrames);
  return 0;
}
