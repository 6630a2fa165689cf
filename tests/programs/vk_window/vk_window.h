// A Vulkan device presenting through a swapchain on an X11 window (Mesa's
// lavapipe under Xvfb in the tests): the frame loop of the Vulkan target
// programs (agent_targets/vulkan_game.cc, vk_game/main.cpp), which differ
// only in what they make between presents. Header-only; the programs link
// nothing of memframe.
#pragma once

#include <X11/Xlib.h>
#define VK_USE_PLATFORM_XLIB_KHR
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace memframe::vk_window {

struct VkWindow {
  Display* x = nullptr;
  Window window = 0;
  VkInstance instance = VK_NULL_HANDLE;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VkPhysicalDevice gpu = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
};

inline bool Succeeded(VkResult result, const char* what) {
  if (result != VK_SUCCESS) std::fprintf(stderr, "%s failed: %d\n", what, result);
  return result == VK_SUCCESS;
}

// A 128x128 window, an instance of `api_version`, the first device with
// one queue, a FIFO swapchain and a fence for acquiring. False, after
// saying which call failed, when any step does.
inline bool Open(uint32_t api_version, VkWindow* w) {
  w->x = XOpenDisplay(nullptr);
  if (!w->x) {
    std::fprintf(stderr, "no X display\n");
    return false;
  }
  w->window = XCreateSimpleWindow(w->x, DefaultRootWindow(w->x), 0, 0, 128, 128, 0, 0, 0);
  XMapWindow(w->x, w->window);
  XFlush(w->x);

  const char* instance_extensions[] = {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XLIB_SURFACE_EXTENSION_NAME};
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = api_version;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  instance_info.enabledExtensionCount = 2;
  instance_info.ppEnabledExtensionNames = instance_extensions;
  if (!Succeeded(vkCreateInstance(&instance_info, nullptr, &w->instance), "vkCreateInstance")) return false;
  VkXlibSurfaceCreateInfoKHR surface_info{VK_STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR};
  surface_info.dpy = w->x;
  surface_info.window = w->window;
  if (!Succeeded(vkCreateXlibSurfaceKHR(w->instance, &surface_info, nullptr, &w->surface), "vkCreateXlibSurfaceKHR"))
    return false;

  uint32_t gpu_count = 1;
  vkEnumeratePhysicalDevices(w->instance, &gpu_count, &w->gpu);
  if (gpu_count == 0) {
    std::fprintf(stderr, "no Vulkan device\n");
    return false;
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
  if (!Succeeded(vkCreateDevice(w->gpu, &device_info, nullptr, &w->device), "vkCreateDevice")) return false;
  vkGetDeviceQueue(w->device, 0, 0, &w->queue);

  VkSurfaceCapabilitiesKHR caps;
  if (!Succeeded(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(w->gpu, w->surface, &caps), "surface capabilities"))
    return false;
  uint32_t format_count = 0;
  vkGetPhysicalDeviceSurfaceFormatsKHR(w->gpu, w->surface, &format_count, nullptr);
  std::vector<VkSurfaceFormatKHR> formats(format_count);
  vkGetPhysicalDeviceSurfaceFormatsKHR(w->gpu, w->surface, &format_count, formats.data());
  VkSwapchainCreateInfoKHR swap_info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  swap_info.surface = w->surface;
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
  if (!Succeeded(vkCreateSwapchainKHR(w->device, &swap_info, nullptr, &w->swapchain), "vkCreateSwapchainKHR"))
    return false;
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  return Succeeded(vkCreateFence(w->device, &fence_info, nullptr, &w->fence), "vkCreateFence");
}

// Acquires the next image and presents it through `present` (the linked
// vkQueuePresentKHR, or one fetched by name): one frame.
inline bool PresentFrame(VkWindow& w, PFN_vkQueuePresentKHR present) {
  uint32_t image = 0;
  if (!Succeeded(vkAcquireNextImageKHR(w.device, w.swapchain, UINT64_MAX, VK_NULL_HANDLE, w.fence, &image),
                 "vkAcquireNextImageKHR"))
    return false;
  vkWaitForFences(w.device, 1, &w.fence, VK_TRUE, UINT64_MAX);
  vkResetFences(w.device, 1, &w.fence);
  VkPresentInfoKHR present_info{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  present_info.swapchainCount = 1;
  present_info.pSwapchains = &w.swapchain;
  present_info.pImageIndices = &image;
  return Succeeded(present(w.queue, &present_info), "vkQueuePresentKHR");
}

// Destroys what Open made; objects the program still has on the device
// go with it (vkDestroyDevice), unseen by any per-object call.
inline void Close(VkWindow& w) {
  vkDeviceWaitIdle(w.device);
  vkDestroyFence(w.device, w.fence, nullptr);
  vkDestroySwapchainKHR(w.device, w.swapchain, nullptr);
  vkDestroyDevice(w.device, nullptr);
  vkDestroySurfaceKHR(w.instance, w.surface, nullptr);
  vkDestroyInstance(w.instance, nullptr);
  XCloseDisplay(w.x);
}

}  // namespace memframe::vk_window
