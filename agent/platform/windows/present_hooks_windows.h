// The presents that end frames on Windows: SwapBuffers, wglSwapBuffers,
// wglSwapLayerBuffers and vkQueuePresentKHR by their imports (and the
// vkQueuePresentKHR that Vulkan's lookups hand out), and
// IDXGISwapChain::Present / IDXGISwapChain1::Present1 through the vtables
// of the swap chains the game creates (present_hooks_windows.cc). The
// outermost present on a thread ends a frame, as on Linux.
#pragma once

#include <windows.h>
#include <d3d11.h>
#include <dxgi1_2.h>

#include <atomic>
#include <cstdint>

#include "platform/windows/present_names_windows.h"

namespace memframe::agent {

// --frame-source NAME (MEMFRAME_FRAME_SOURCE): every call of the Windows
// present `name` ends a frame, nested or not, and no other present does.
// False when `name` is none of kWindowsPresentNames.
bool ForceWindowsFrameSource(const char* name);

// Import slots' real functions (filled in by iat_patch.cc) and their hooks.
extern std::atomic<void*> g_swap_buffers, g_wgl_swap_buffers, g_wgl_swap_layer_buffers, g_vk_queue_present,
    g_vk_get_instance_proc_addr, g_vk_get_device_proc_addr, g_d3d11_create_device, g_d3d11_create_device_and_swap_chain, g_create_dxgi_factory, g_create_dxgi_factory1,
    g_create_dxgi_factory2;

BOOL WINAPI SwapBuffersHook(HDC dc);
BOOL WINAPI WglSwapBuffersHook(HDC dc);
BOOL WINAPI WglSwapLayerBuffersHook(HDC dc, UINT planes);
int32_t __stdcall VkQueuePresentHook(void* queue, const void* info);
// Hand out the present hook for vkQueuePresentKHR, and themselves.
void* __stdcall VkGetInstanceProcAddrHook(void* instance, const char* name);
void* __stdcall VkGetDeviceProcAddrHook(void* device, const char* name);
// The DXGI objects' creators: each hooks the vtables of what it returns.
HRESULT WINAPI D3D11CreateDeviceHook(IDXGIAdapter* adapter, D3D_DRIVER_TYPE driver_type, HMODULE software,
                                     UINT flags, const D3D_FEATURE_LEVEL* feature_levels, UINT levels,
                                     UINT sdk_version, ID3D11Device** device, D3D_FEATURE_LEVEL* feature_level,
                                     ID3D11DeviceContext** context);
HRESULT WINAPI D3D11CreateDeviceAndSwapChainHook(IDXGIAdapter* adapter, D3D_DRIVER_TYPE driver_type,
                                                 HMODULE software, UINT flags,
                                                 const D3D_FEATURE_LEVEL* feature_levels, UINT levels,
                                                 UINT sdk_version, const DXGI_SWAP_CHAIN_DESC* desc,
                                                 IDXGISwapChain** swap_chain, ID3D11Device** device,
                                                 D3D_FEATURE_LEVEL* feature_level, ID3D11DeviceContext** context);
HRESULT WINAPI CreateDxgiFactoryHook(REFIID riid, void** factory);
HRESULT WINAPI CreateDxgiFactory1Hook(REFIID riid, void** factory);
HRESULT WINAPI CreateDxgiFactory2Hook(UINT flags, REFIID riid, void** factory);

}  // namespace memframe::agent

// The rows of the import hook table (windows_hooks.cc) for the above.
#define MEMFRAME_PRESENT_HOOKS                                                                                   \
  {L"gdi32.dll", "SwapBuffers", reinterpret_cast<void*>(SwapBuffersHook), &g_swap_buffers},                      \
  {L"opengl32.dll", "wglSwapBuffers", reinterpret_cast<void*>(WglSwapBuffersHook), &g_wgl_swap_buffers},         \
  {L"opengl32.dll", "wglSwapLayerBuffers", reinterpret_cast<void*>(WglSwapLayerBuffersHook),                     \
   &g_wgl_swap_layer_buffers},                                                                                   \
  {L"vulkan-1.dll", "vkQueuePresentKHR", reinterpret_cast<void*>(VkQueuePresentHook), &g_vk_queue_present},      \
  {L"vulkan-1.dll", "vkGetInstanceProcAddr", reinterpret_cast<void*>(VkGetInstanceProcAddrHook),                 \
   &g_vk_get_instance_proc_addr},                                                                                \
  {L"vulkan-1.dll", "vkGetDeviceProcAddr", reinterpret_cast<void*>(VkGetDeviceProcAddrHook),                     \
   &g_vk_get_device_proc_addr},                                                                                  \
  {L"d3d11.dll", "D3D11CreateDevice", reinterpret_cast<void*>(D3D11CreateDeviceHook), &g_d3d11_create_device},    \
  {L"d3d11.dll", "D3D11CreateDeviceAndSwapChain", reinterpret_cast<void*>(D3D11CreateDeviceAndSwapChainHook),    \
   &g_d3d11_create_device_and_swap_chain},                                                                       \
  {L"dxgi.dll", "CreateDXGIFactory", reinterpret_cast<void*>(CreateDxgiFactoryHook), &g_create_dxgi_factory},    \
  {L"dxgi.dll", "CreateDXGIFactory1", reinterpret_cast<void*>(CreateDxgiFactory1Hook), &g_create_dxgi_factory1}, \
  {L"dxgi.dll", "CreateDXGIFactory2", reinterpret_cast<void*>(CreateDxgiFactory2Hook), &g_create_dxgi_factory2}
