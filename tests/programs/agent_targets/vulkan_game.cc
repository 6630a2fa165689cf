// A Vulkan program that presents through a swapchain on an X11 window (Mesa's
// lavapipe under Xvfb in the tests). It links the loader but fetches
// vkQueuePresentKHR with vkGetDeviceProcAddr, as engines do.
#include <X11/Xlib.h>
#define VK_USE_PLATFORM_XLIB_KHR
#include <vulkan/vulkan.h>

#include <cstdio>
#include <vector>

#include "host_truth.h"

#define CHECK(call)                                           \
  do {                                                        \
    VkResult result_ = (call);                                \
    if (result_ != VK_SUCCESS) {                              \
      std::fprintf(stderr, "%s failed: %d\n", #call, result_); \
      return 2;                                               \
    }                                                         \
  } while (0)

int main() {
  Display* x = XOpenDisplay(nullptr);
  if (!x) {
    std::fprintf(stderr, "no X display\n");
    return 2;
  }
  Window window = XCreateSimpleWindow(x, DefaultRootWindow(x), 0, 0, 128, 128, 0, 0, 0);
  XMapWindow(x, window);
  XFlush(x);

  const char* instance_extensions[] = {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XLIB_SURFACE_EXTENSION_NAME};
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_0;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  instance_info.enabledExtensionCount = 2;
  instance_info.ppEnabledExtensionNames = instance_extensions;
  VkInstance instance;
  CHECK(vkCreateInstance(&instance_info, nullptr, &instance));

  VkXlibSurfaceCreateInfoKHR surface_info{VK_STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR};
  surface_info.dpy = x;
  surface_info.window = window;
  VkSurfaceKHR surface;
  CHECK(vkCreateXlibSurfaceKHR(instance, &surface_info, nullptr, &surface));

  uint32_t gpu_count = 1;
  VkPhysicalDevice gpu;
  vkEnumeratePhysicalDevices(instance, &gpu_count, &gpu);
  if (gpu_count == 0) {
    std::fprintf(stderr, "no Vulkan device\n");
    return 2;
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = 0;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  const char* device_extensions[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = 1;
  device_info.ppEnabledExtensionNames = device_extensions;
  VkDevice device;
  CHECK(vkCreateDevice(gpu, &device_info, nullptr, &device));
  VkQueue queue;
  vkGetDeviceQueue(device, 0, 0, &queue);

  VkSurfaceCapabilitiesKHR caps;
  CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(gpu, surface, &caps));
  uint32_t format_count = 0;
  vkGetPhysicalDeviceSurfaceFormatsKHR(gpu, surface, &format_count, nullptr);
  std::vector<VkSurfaceFormatKHR> formats(format_count);
  vkGetPhysicalDeviceSurfaceFormatsKHR(gpu, surface, &format_count, formats.data());
  VkSwapchainCreateInfoKHR swap_info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  swap_info.surface = surface;
  swap_info.minImageCount = caps.minImageCount;
  swap_info.imageFormat = formats[0].format;
  swap_info.imageColorSpace = formats[0].colorSpace;
  swap_info.imageExtent = caps.currentExtent.width != UINT32_MAX ? caps.currentExtent : VkExtent2D{128, 128};
  swap_info.imageArrayLayers = 1;
  swap_info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  swap_info.preTransform = caps.currentTransform;
  swap_info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  swap_info.presentMode = VK_PRESENT_MODE_FIFO_KHR;
  swap_info.clipped = VK_TRUE;
  VkSwapchainKHR swapchain;
  CHECK(vkCreateSwapchainKHR(device, &swap_info, nullptr, &swapchain));

  auto present = reinterpret_cast<PFN_vkQueuePresentKHR>(vkGetDeviceProcAddr(device, "vkQueuePresentKHR"));
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  CHECK(vkCreateFence(device, &fence_info, nullptr, &fence));
  for (int frame = 0; frame < memframe::targets::kVulkanFrames; ++frame) {
    uint32_t image = 0;
    CHECK(vkAcquireNextImageKHR(device, swapchain, UINT64_MAX, VK_NULL_HANDLE, fence, &image));
    vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    vkResetFences(device, 1, &fence);
    VkPresentInfoKHR present_info{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    present_info.swapchainCount = 1;
    present_info.pSwapchains = &swapchain;
    present_info.pImageIndices = &image;
    CHECK(present(queue, &present_info));
  }
  vkDeviceWaitIdle(device);
  vkDestroyFence(device, fence, nullptr);
  vkDestroySwapchainKHR(device, swapchain, nullptr);
  vkDestroyDevice(device, nullptr);
  vkDestroySurfaceKHR(instance, surface, nullptr);
  vkDestroyInstance(instance, nullptr);
  XCloseDisplay(x);
  std::printf("vulkan presented %d frames\n", memframe::targets::kVulkanFrames);
  return 0;
}
