// memframe_vulkan_lookups.exe: presents kImportedFrames frames through a
// vkQueuePresentKHR fetched with the imported vkGetDeviceProcAddr, then
// kFetchedFrames through one fetched as volk does (LoadLibrary,
// GetProcAddress of vkGetInstanceProcAddr, which gives vkGetDeviceProcAddr).
// Every one is a frame (tests/windows/vulkan_lookups_test.sh). Runs beside
// fake_vulkan.c's vulkan-1.dll.
#include <windows.h>

#include <stdio.h>

enum { kImportedFrames = 10, kFetchedFrames = 7 };

typedef int(__stdcall* QueuePresent)(void*, const void*);
typedef void*(__stdcall* ProcAddr)(void*, const char*);
__declspec(dllimport) void* __stdcall vkGetDeviceProcAddr(void* device, const char* name);

int main(void) {
  void* device = (void*)1;  // the stand-in looks at no handle
  QueuePresent present = (QueuePresent)vkGetDeviceProcAddr(device, "vkQueuePresentKHR");
  for (int i = 0; i < kImportedFrames; ++i) present(NULL, NULL);

  HMODULE vulkan = LoadLibraryA("vulkan-1.dll");
  ProcAddr instance_proc = vulkan ? (ProcAddr)(void*)GetProcAddress(vulkan, "vkGetInstanceProcAddr") : NULL;
  ProcAddr device_proc = instance_proc ? (ProcAddr)instance_proc(NULL, "vkGetDeviceProcAddr") : NULL;
  QueuePresent fetched = device_proc ? (QueuePresent)device_proc(device, "vkQueuePresentKHR") : NULL;
  if (!fetched) {
    fprintf(stderr, "memframe_vulkan_lookups: no vkQueuePresentKHR by name\n");
    return 1;
  }
  for (int i = 0; i < kFetchedFrames; ++i) fetched(NULL, NULL);
  printf("memframe_vulkan_lookups: presented %d frames\n", kImportedFrames + kFetchedFrames);
  return 0;
}
