#include "platform/windows/present_hooks_windows.h"

#include <cstring>

#include "capture/marker_table.h"
#include "capture/recorder.h"
#include "capture/recursion_guard.h"
#include "platform/windows/iat_patch.h"

namespace memframe::agent {

std::atomic<void*> g_swap_buffers, g_wgl_swap_buffers, g_wgl_swap_layer_buffers, g_vk_queue_present,
    g_vk_get_instance_proc_addr, g_vk_get_device_proc_addr, g_d3d11_create_device, g_d3d11_create_device_and_swap_chain, g_create_dxgi_factory, g_create_dxgi_factory1,
    g_create_dxgi_factory2;

namespace {

template <typename Fn>
Fn Real(std::atomic<void*>& slot) {
  return reinterpret_cast<Fn>(slot.load(std::memory_order_relaxed));
}

// ---- Frames ---------------------------------------------------------------
std::atomic<uint32_t> g_present_markers[kPresentApiCount];
// Set when the game first presents a DXGI swap chain. From then on the GL
// and Vulkan presents are not frames: they are how Direct3D is implemented
// beneath it (Wine's wined3d calls SwapBuffers, DXVK vkQueuePresentKHR), on
// a thread of their own, so they are not nested in the game's Present.
std::atomic<bool> g_dxgi_presents{false};

// Dynamic markers (named in the stream's MarkerDefs): the fixed ids are
// the Linux entry points.
uint32_t PresentMarker(PresentApi api) {
  uint32_t id = g_present_markers[api].load(std::memory_order_relaxed);
  if (!id) {
    RecursionGuard guard;
    id = InternMarker(kWindowsPresentNames[api]);
    g_present_markers[api].store(id, std::memory_order_relaxed);
  }
  return id;
}

template <typename Call>
auto Present(PresentApi api, Call call) {
  if (api < kDxgiPresent && g_dxgi_presents.load(std::memory_order_relaxed)) return call();
  uint32_t marker = PresentMarker(api);
  EnterPresent();
  auto result = call();
  LeavePresent(marker);
  return result;
}

}  // namespace

bool ForceWindowsFrameSource(const char* name) {
  PresentApi api = WindowsPresentNamed(name);
  if (api == kPresentApiCount) return false;
  ConfigureFrameSource(PresentMarker(api), false);
  return true;
}

namespace {
// ---- Vtable methods -------------------------------------------------------
// Each patched vtable's real method. Vtables are per class, not per object,
// so a handful covers a game (Wine has one swap chain class per API).
constexpr int kMaxVtables = 16;
struct VtableMethod {
  int slot;  // the method's index in the vtable
  void* hook;
  std::atomic<void**> vtables[kMaxVtables];
  std::atomic<void*> reals[kMaxVtables];
};
SRWLOCK g_vtable_lock = SRWLOCK_INIT;

void** VtableOf(void* object) { return *static_cast<void***>(object); }

// The real method of `object`'s class. A vtable not patched here but
// holding the hook is a copy of one that was (a wrapper's): the last real
// method patched is then the best guess.
template <typename Fn>
Fn RealMethod(VtableMethod& method, void* object) {
  void** vtable = VtableOf(object);
  void* last = nullptr;
  for (int i = 0; i < kMaxVtables; ++i) {
    void** v = method.vtables[i].load(std::memory_order_acquire);
    if (!v) break;
    last = method.reals[i].load(std::memory_order_relaxed);
    if (v == vtable) return reinterpret_cast<Fn>(last);
  }
  return reinterpret_cast<Fn>(last);
}

void PatchMethod(VtableMethod& method, void* object) {
  void** slot = VtableOf(object) + method.slot;
  AcquireSRWLockExclusive(&g_vtable_lock);
  if (*slot != method.hook) {
    for (int i = 0; i < kMaxVtables; ++i) {
      if (method.vtables[i].load(std::memory_order_relaxed)) continue;
      method.reals[i].store(*slot, std::memory_order_relaxed);
      method.vtables[i].store(VtableOf(object), std::memory_order_release);
      WriteSlot(slot, method.hook);
      break;
    }
  }
  ReleaseSRWLockExclusive(&g_vtable_lock);
}

// Patches `method` in the vtable of `object`'s interface `Interface`, if the
// object has it (a shorter vtable has no such slot to patch).
template <typename Interface>
void PatchInterface(IUnknown* object, std::initializer_list<VtableMethod*> methods) {
  Interface* as = nullptr;
  if (FAILED(object->QueryInterface(__uuidof(Interface), reinterpret_cast<void**>(&as))) || !as) return;
  for (VtableMethod* method : methods) PatchMethod(*method, as);
  as->Release();
}

// The swap chains' presents. DXGI_PRESENT_TEST presents nothing.
HRESULT STDMETHODCALLTYPE PresentHook(IDXGISwapChain* self, UINT sync_interval, UINT flags);
HRESULT STDMETHODCALLTYPE Present1Hook(IDXGISwapChain1* self, UINT sync_interval, UINT flags,
                                       const DXGI_PRESENT_PARAMETERS* parameters);
VtableMethod g_present{8, reinterpret_cast<void*>(PresentHook), {}, {}};    // IDXGISwapChain::Present
VtableMethod g_present1{22, reinterpret_cast<void*>(Present1Hook), {}, {}};  // IDXGISwapChain1::Present1

HRESULT STDMETHODCALLTYPE PresentHook(IDXGISwapChain* self, UINT sync_interval, UINT flags) {
  auto real = RealMethod<HRESULT(STDMETHODCALLTYPE*)(IDXGISwapChain*, UINT, UINT)>(g_present, self);
  if (flags & DXGI_PRESENT_TEST) return real(self, sync_interval, flags);
  g_dxgi_presents.store(true, std::memory_order_relaxed);
  return Present(kDxgiPresent, [&] { return real(self, sync_interval, flags); });
}
HRESULT STDMETHODCALLTYPE Present1Hook(IDXGISwapChain1* self, UINT sync_interval, UINT flags,
                                       const DXGI_PRESENT_PARAMETERS* parameters) {
  auto real = RealMethod<HRESULT(STDMETHODCALLTYPE*)(IDXGISwapChain1*, UINT, UINT, const DXGI_PRESENT_PARAMETERS*)>(
      g_present1, self);
  if (flags & DXGI_PRESENT_TEST) return real(self, sync_interval, flags, parameters);
  g_dxgi_presents.store(true, std::memory_order_relaxed);
  return Present(kDxgiPresent, [&] { return real(self, sync_interval, flags, parameters); });
}

void HookSwapChain(IUnknown* chain) {
  if (!chain) return;
  RecursionGuard guard;
  PatchInterface<IDXGISwapChain>(chain, {&g_present});
  PatchInterface<IDXGISwapChain1>(chain, {&g_present1});
}

// The factories' swap chain creators.
HRESULT STDMETHODCALLTYPE CreateSwapChainHook(IDXGIFactory* self, IUnknown* device, DXGI_SWAP_CHAIN_DESC* desc,
                                              IDXGISwapChain** chain);
HRESULT STDMETHODCALLTYPE CreateSwapChainForHwndHook(IDXGIFactory2* self, IUnknown* device, HWND window,
                                                     const DXGI_SWAP_CHAIN_DESC1* desc,
                                                     const DXGI_SWAP_CHAIN_FULLSCREEN_DESC* fullscreen,
                                                     IDXGIOutput* output, IDXGISwapChain1** chain);
HRESULT STDMETHODCALLTYPE CreateSwapChainForCoreWindowHook(IDXGIFactory2* self, IUnknown* device, IUnknown* window,
                                                           const DXGI_SWAP_CHAIN_DESC1* desc, IDXGIOutput* output,
                                                           IDXGISwapChain1** chain);
HRESULT STDMETHODCALLTYPE CreateSwapChainForCompositionHook(IDXGIFactory2* self, IUnknown* device,
                                                            const DXGI_SWAP_CHAIN_DESC1* desc, IDXGIOutput* output,
                                                            IDXGISwapChain1** chain);
// Slots of IDXGIFactory::CreateSwapChain and IDXGIFactory2's three.
VtableMethod g_create_swap_chain{10, reinterpret_cast<void*>(CreateSwapChainHook), {}, {}};
VtableMethod g_create_for_hwnd{15, reinterpret_cast<void*>(CreateSwapChainForHwndHook), {}, {}};
VtableMethod g_create_for_core_window{16, reinterpret_cast<void*>(CreateSwapChainForCoreWindowHook), {}, {}};
VtableMethod g_create_for_composition{24, reinterpret_cast<void*>(CreateSwapChainForCompositionHook), {}, {}};

template <typename Chain>
HRESULT Hooked(HRESULT result, Chain** chain) {
  if (SUCCEEDED(result) && chain) HookSwapChain(*chain);
  return result;
}

HRESULT STDMETHODCALLTYPE CreateSwapChainHook(IDXGIFactory* self, IUnknown* device, DXGI_SWAP_CHAIN_DESC* desc,
                                              IDXGISwapChain** chain) {
  auto real = RealMethod<decltype(&CreateSwapChainHook)>(g_create_swap_chain, self);
  return Hooked(real(self, device, desc, chain), chain);
}
HRESULT STDMETHODCALLTYPE CreateSwapChainForHwndHook(IDXGIFactory2* self, IUnknown* device, HWND window,
                                                     const DXGI_SWAP_CHAIN_DESC1* desc,
                                                     const DXGI_SWAP_CHAIN_FULLSCREEN_DESC* fullscreen,
                                                     IDXGIOutput* output, IDXGISwapChain1** chain) {
  auto real = RealMethod<decltype(&CreateSwapChainForHwndHook)>(g_create_for_hwnd, self);
  return Hooked(real(self, device, window, desc, fullscreen, output, chain), chain);
}
HRESULT STDMETHODCALLTYPE CreateSwapChainForCoreWindowHook(IDXGIFactory2* self, IUnknown* device, IUnknown* window,
                                                           const DXGI_SWAP_CHAIN_DESC1* desc, IDXGIOutput* output,
                                                           IDXGISwapChain1** chain) {
  auto real = RealMethod<decltype(&CreateSwapChainForCoreWindowHook)>(g_create_for_core_window, self);
  return Hooked(real(self, device, window, desc, output, chain), chain);
}
HRESULT STDMETHODCALLTYPE CreateSwapChainForCompositionHook(IDXGIFactory2* self, IUnknown* device,
                                                            const DXGI_SWAP_CHAIN_DESC1* desc, IDXGIOutput* output,
                                                            IDXGISwapChain1** chain) {
  auto real = RealMethod<decltype(&CreateSwapChainForCompositionHook)>(g_create_for_composition, self);
  return Hooked(real(self, device, desc, output, chain), chain);
}

void HookFactory(IUnknown* factory) {
  if (!factory) return;
  RecursionGuard guard;
  PatchInterface<IDXGIFactory>(factory, {&g_create_swap_chain});
  PatchInterface<IDXGIFactory2>(factory, {&g_create_for_hwnd, &g_create_for_core_window, &g_create_for_composition});
}

// A device's factory, where a game that made its device alone (or Direct3D
// itself, through calls not imported) finds it: device -> adapter -> parent.
void HookFactoryOfDevice(IUnknown* device) {
  if (!device) return;
  RecursionGuard guard;
  IDXGIDevice* dxgi_device = nullptr;
  IDXGIAdapter* adapter = nullptr;
  IUnknown* factory = nullptr;
  if (SUCCEEDED(device->QueryInterface(__uuidof(IDXGIDevice), reinterpret_cast<void**>(&dxgi_device)))) {
    if (SUCCEEDED(dxgi_device->GetAdapter(&adapter))) {
      if (SUCCEEDED(adapter->GetParent(__uuidof(IDXGIFactory), reinterpret_cast<void**>(&factory)))) {
        HookFactory(factory);
        factory->Release();
      }
      adapter->Release();
    }
    dxgi_device->Release();
  }
}
}  // namespace

BOOL WINAPI SwapBuffersHook(HDC dc) {
  return Present(kSwapBuffers, [&] { return Real<BOOL(WINAPI*)(HDC)>(g_swap_buffers)(dc); });
}
BOOL WINAPI WglSwapBuffersHook(HDC dc) {
  return Present(kWglSwapBuffers, [&] { return Real<BOOL(WINAPI*)(HDC)>(g_wgl_swap_buffers)(dc); });
}
BOOL WINAPI WglSwapLayerBuffersHook(HDC dc, UINT planes) {
  return Present(kWglSwapLayerBuffers, [&] { return Real<BOOL(WINAPI*)(HDC, UINT)>(g_wgl_swap_layer_buffers)(dc, planes); });
}
int32_t __stdcall VkQueuePresentHook(void* queue, const void* info) {
  return Present(kVkQueuePresent, [&] {
    return Real<int32_t(__stdcall*)(void*, const void*)>(g_vk_queue_present)(queue, info);
  });
}

// ---- Vulkan's lookups -----------------------------------------------------
// Engines fetch vkQueuePresentKHR by name (vkGetDeviceProcAddr gives the
// driver's own, which no import slot holds), and loaders such as volk
// fetch the lookups themselves by name: each lookup hands out the agent's
// hook and keeps what it found for it, as InterceptSymbol does on Linux.
// The fetched present has a slot of its own: the import's is the loader's
// dispatching one, which a device's function must not replace.
namespace {
std::atomic<void*> g_vk_fetched_queue_present;

int32_t __stdcall VkFetchedQueuePresentHook(void* queue, const void* info) {
  return Present(kVkQueuePresent, [&] {
    return Real<int32_t(__stdcall*)(void*, const void*)>(g_vk_fetched_queue_present)(queue, info);
  });
}

struct VulkanLookup {
  const char* name;
  void* hook;
  std::atomic<void*>* real;
};
const VulkanLookup kVulkanLookups[] = {
    {"vkQueuePresentKHR", reinterpret_cast<void*>(VkFetchedQueuePresentHook), &g_vk_fetched_queue_present},
    {"vkGetInstanceProcAddr", reinterpret_cast<void*>(VkGetInstanceProcAddrHook), &g_vk_get_instance_proc_addr},
    {"vkGetDeviceProcAddr", reinterpret_cast<void*>(VkGetDeviceProcAddrHook), &g_vk_get_device_proc_addr},
};

void* InterceptVulkan(const char* name, void* found) {
  if (!found || !name) return found;
  for (const VulkanLookup& lookup : kVulkanLookups) {
    if (strcmp(lookup.name, name) != 0) continue;
    if (found != lookup.hook) lookup.real->store(found, std::memory_order_release);
    return lookup.hook;
  }
  return found;
}
}  // namespace

void* __stdcall VkGetInstanceProcAddrHook(void* instance, const char* name) {
  auto real = Real<void*(__stdcall*)(void*, const char*)>(g_vk_get_instance_proc_addr);
  return real ? InterceptVulkan(name, real(instance, name)) : nullptr;
}
void* __stdcall VkGetDeviceProcAddrHook(void* device, const char* name) {
  auto real = Real<void*(__stdcall*)(void*, const char*)>(g_vk_get_device_proc_addr);
  return real ? InterceptVulkan(name, real(device, name)) : nullptr;
}

HRESULT WINAPI D3D11CreateDeviceHook(IDXGIAdapter* adapter, D3D_DRIVER_TYPE driver_type, HMODULE software,
                                     UINT flags, const D3D_FEATURE_LEVEL* feature_levels, UINT levels,
                                     UINT sdk_version, ID3D11Device** device, D3D_FEATURE_LEVEL* feature_level,
                                     ID3D11DeviceContext** context) {
  HRESULT result = Real<decltype(&D3D11CreateDeviceHook)>(g_d3d11_create_device)(
      adapter, driver_type, software, flags, feature_levels, levels, sdk_version, device, feature_level, context);
  if (SUCCEEDED(result) && device) HookFactoryOfDevice(*device);
  return result;
}

HRESULT WINAPI D3D11CreateDeviceAndSwapChainHook(IDXGIAdapter* adapter, D3D_DRIVER_TYPE driver_type,
                                                 HMODULE software, UINT flags,
                                                 const D3D_FEATURE_LEVEL* feature_levels, UINT levels,
                                                 UINT sdk_version, const DXGI_SWAP_CHAIN_DESC* desc,
                                                 IDXGISwapChain** swap_chain, ID3D11Device** device,
                                                 D3D_FEATURE_LEVEL* feature_level, ID3D11DeviceContext** context) {
  HRESULT result = Real<decltype(&D3D11CreateDeviceAndSwapChainHook)>(g_d3d11_create_device_and_swap_chain)(
      adapter, driver_type, software, flags, feature_levels, levels, sdk_version, desc, swap_chain, device,
      feature_level, context);
  if (SUCCEEDED(result) && device) HookFactoryOfDevice(*device);
  return Hooked(result, swap_chain);
}

HRESULT WINAPI CreateDxgiFactoryHook(REFIID riid, void** factory) {
  HRESULT result = Real<decltype(&CreateDxgiFactoryHook)>(g_create_dxgi_factory)(riid, factory);
  if (SUCCEEDED(result) && factory) HookFactory(static_cast<IUnknown*>(*factory));
  return result;
}
HRESULT WINAPI CreateDxgiFactory1Hook(REFIID riid, void** factory) {
  HRESULT result = Real<decltype(&CreateDxgiFactory1Hook)>(g_create_dxgi_factory1)(riid, factory);
  if (SUCCEEDED(result) && factory) HookFactory(static_cast<IUnknown*>(*factory));
  return result;
}
HRESULT WINAPI CreateDxgiFactory2Hook(UINT flags, REFIID riid, void** factory) {
  HRESULT result = Real<decltype(&CreateDxgiFactory2Hook)>(g_create_dxgi_factory2)(flags, riid, factory);
  if (SUCCEEDED(result) && factory) HookFactory(static_cast<IUnknown*>(*factory));
  return result;
}

}  // namespace memframe::agent
