// memframe_d3d11_frames.exe: a Direct3D 11 program with a known number of
// frames, for the Windows agent's DXGI present hooks (tests/windows). It
// presents twice over:
//   1. a swap chain from D3D11CreateDeviceAndSwapChain, ended by Present;
//   2. a swap chain from IDXGIFactory2::CreateSwapChainForHwnd of a factory
//      from CreateDXGIFactory1, ended by Present1.
// Each frame allocates one FrameScratch block (kScratchBytes, operator new)
// and frees it before its present. Its main thread is named "d3d11 main"
// (SetThreadDescription). Links nothing of memframe.
//
//   memframe_d3d11_frames.exe [--frames N]   (N per swap chain, default 30)
#include <windows.h>
#include <d3d11.h>
#include <dxgi1_2.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr size_t kScratchBytes = 3000;

LRESULT CALLBACK WindowProc(HWND hwnd, UINT message, WPARAM w, LPARAM l) {
  return DefWindowProcW(hwnd, message, w, l);
}

HWND OpenWindow() {
  static bool registered = false;
  HINSTANCE instance = GetModuleHandleW(nullptr);
  if (!registered) {
    WNDCLASSW cls{};
    cls.lpfnWndProc = WindowProc;
    cls.hInstance = instance;
    cls.lpszClassName = L"memframe_d3d11_frames";
    registered = RegisterClassW(&cls) != 0;
  }
  return CreateWindowW(L"memframe_d3d11_frames", L"memframe d3d11 frames", WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0,
                       320, 240, nullptr, nullptr, instance, nullptr);
}

void PumpMessages() {
  MSG message;
  while (PeekMessageW(&message, nullptr, 0, 0, PM_REMOVE)) {
    TranslateMessage(&message);
    DispatchMessageW(&message);
  }
}

// The frame's one allocation, at a call site of its own.
__attribute__((noinline)) char* FrameScratch(int frame) {
  char* scratch = new char[kScratchBytes];
  std::memset(scratch, frame & 0xff, kScratchBytes);
  return scratch;
}

// Clears the back buffer of `chain` to a colour that changes per frame.
void Draw(ID3D11Device* device, ID3D11DeviceContext* context, IDXGISwapChain* chain, int frame) {
  ID3D11Texture2D* back = nullptr;
  if (FAILED(chain->GetBuffer(0, __uuidof(ID3D11Texture2D), reinterpret_cast<void**>(&back)))) return;
  ID3D11RenderTargetView* view = nullptr;
  if (SUCCEEDED(device->CreateRenderTargetView(back, nullptr, &view))) {
    char* scratch = FrameScratch(frame);
    const float colour[4] = {scratch[0] / 255.0f, 0.3f, 0.6f, 1.0f};
    delete[] scratch;
    context->OMSetRenderTargets(1, &view, nullptr);
    context->ClearRenderTargetView(view, colour);
    view->Release();
  }
  back->Release();
}

int Fail(const char* what, HRESULT hr) {
  std::fprintf(stderr, "memframe_d3d11_frames: %s failed (0x%08lx)\n", what, static_cast<unsigned long>(hr));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using SetDescriptionFn = HRESULT(WINAPI*)(HANDLE, PCWSTR);
  if (auto set_description = reinterpret_cast<SetDescriptionFn>(
          reinterpret_cast<void*>(GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "SetThreadDescription"))))
    set_description(GetCurrentThread(), L"d3d11 main");
  int frames = 30;
  if (argc == 3 && std::strcmp(argv[1], "--frames") == 0) frames = std::atoi(argv[2]);
  if (frames < 0 || argc == 2 || argc > 3) {
    std::fprintf(stderr, "usage: memframe_d3d11_frames.exe [--frames N]\n");
    return 2;
  }

  // 1. D3D11CreateDeviceAndSwapChain, Present.
  DXGI_SWAP_CHAIN_DESC desc{};
  desc.BufferDesc.Width = 320;
  desc.BufferDesc.Height = 240;
  desc.BufferDesc.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
  desc.SampleDesc.Count = 1;
  desc.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
  desc.BufferCount = 2;
  desc.OutputWindow = OpenWindow();
  desc.Windowed = TRUE;
  desc.SwapEffect = DXGI_SWAP_EFFECT_DISCARD;
  IDXGISwapChain* chain = nullptr;
  ID3D11Device* device = nullptr;
  ID3D11DeviceContext* context = nullptr;
  HRESULT hr = D3D11CreateDeviceAndSwapChain(nullptr, D3D_DRIVER_TYPE_HARDWARE, nullptr, 0, nullptr, 0,
                                             D3D11_SDK_VERSION, &desc, &chain, &device, nullptr, &context);
  if (FAILED(hr)) return Fail("D3D11CreateDeviceAndSwapChain", hr);
  for (int frame = 0; frame < frames; ++frame) {
    Draw(device, context, chain, frame);
    chain->Present(0, 0);
    PumpMessages();
  }

  // 2. A factory's CreateSwapChainForHwnd, Present1.
  IDXGIFactory2* factory = nullptr;
  hr = CreateDXGIFactory1(__uuidof(IDXGIFactory2), reinterpret_cast<void**>(&factory));
  if (FAILED(hr)) return Fail("CreateDXGIFactory1", hr);
  DXGI_SWAP_CHAIN_DESC1 desc1{};
  desc1.Width = 320;
  desc1.Height = 240;
  desc1.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
  desc1.SampleDesc.Count = 1;
  desc1.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
  desc1.BufferCount = 2;
  desc1.SwapEffect = DXGI_SWAP_EFFECT_DISCARD;
  IDXGISwapChain1* chain1 = nullptr;
  hr = factory->CreateSwapChainForHwnd(device, OpenWindow(), &desc1, nullptr, nullptr, &chain1);
  if (FAILED(hr)) return Fail("CreateSwapChainForHwnd", hr);
  const DXGI_PRESENT_PARAMETERS parameters{};
  for (int frame = 0; frame < frames; ++frame) {
    Draw(device, context, chain1, frame);
    chain1->Present1(0, 0, &parameters);
    PumpMessages();
  }

  chain1->Release();
  factory->Release();
  chain->Release();
  context->Release();
  device->Release();
  std::printf("memframe_d3d11_frames: %d frames presented\n", 2 * frames);
  return 0;
}
