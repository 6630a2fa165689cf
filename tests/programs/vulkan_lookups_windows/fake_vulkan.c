// A stand-in vulkan-1.dll with the three functions the agent intercepts,
// so that the lookups are tested without a Vulkan loader or driver. Like a
// real loader, vkGetDeviceProcAddr hands out a device's own present, which
// no import slot holds.
#include <string.h>

static int __stdcall DeviceQueuePresent(void* queue, const void* info) {
  (void)queue;
  (void)info;
  return 0;
}

__declspec(dllexport) int __stdcall vkQueuePresentKHR(void* queue, const void* info) {
  return DeviceQueuePresent(queue, info);
}

__declspec(dllexport) void* __stdcall vkGetDeviceProcAddr(void* device, const char* name) {
  (void)device;
  return strcmp(name, "vkQueuePresentKHR") == 0 ? (void*)DeviceQueuePresent : NULL;
}

__declspec(dllexport) void* __stdcall vkGetInstanceProcAddr(void* instance, const char* name) {
  (void)instance;
  if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (void*)vkGetDeviceProcAddr;
  if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (void*)vkGetInstanceProcAddr;
  return NULL;
}
