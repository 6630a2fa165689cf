// The Windows side of writer/module_map.h: the loaded modules, from the
// process's module list, each as one segment covering its image. A module's
// load_bias is its base address, so module offsets are RVAs; under Wine the
// path is the Unix path of the file, which the Linux analysis can open
// (viewer/analysis, pe_symbols).
#include <windows.h>
#include <psapi.h>

#include <cstring>

#include "memframe.pb.h"
#include "platform/windows/analysis_path.h"
#include "writer/module_map.h"

namespace memframe::agent {

namespace {
constexpr int kMaxModules = 1024;
uint64_t g_signature = 0;  // of the list last encoded; 0 = none yet

// The modules as PrepareModuleMap last read them, paths and sizes included,
// so that the encoding (under the writer's lock) asks the loader nothing.
struct PreparedModule {
  HMODULE module;
  uint32_t image_size;
  char path[MAX_PATH * 4];
};
PreparedModule g_prepared[kMaxModules];
int g_prepared_count = 0;
uint64_t g_prepared_signature = 0;

// Lists the modules now; returns how many (at most kMaxModules).
int ListModules(HMODULE* modules) {
  DWORD needed = 0;
  if (!K32EnumProcessModules(GetCurrentProcess(), modules, sizeof(HMODULE) * kMaxModules, &needed)) return 0;
  DWORD count = needed / sizeof(HMODULE);
  return static_cast<int>(count > kMaxModules ? kMaxModules : count);
}

uint64_t Signature(const HMODULE* modules, int count) {
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(count);
  for (int i = 0; i < count; ++i) h = (h ^ reinterpret_cast<uint64_t>(modules[i])) * 1099511628211ull;
  return h ? h : 1;
}

// The module's file as the analysis should open it.
void ModulePath(HMODULE module, char* path, size_t size) {
  wchar_t wide[MAX_PATH * 2];
  DWORD n = GetModuleFileNameW(module, wide, MAX_PATH * 2);
  path[0] = '\0';
  if (n == 0 || n >= MAX_PATH * 2) return;
  wide[n] = L'\0';
  AnalysisPath(wide, path, size);
}

uint32_t ImageSize(HMODULE module) {
  auto* base = reinterpret_cast<const uint8_t*>(module);
  auto* dos = reinterpret_cast<const IMAGE_DOS_HEADER*>(base);
  if (dos->e_magic != IMAGE_DOS_SIGNATURE) return 0;
  auto* nt = reinterpret_cast<const IMAGE_NT_HEADERS*>(base + dos->e_lfanew);
  return nt->Signature == IMAGE_NT_SIGNATURE ? nt->OptionalHeader.SizeOfImage : 0;
}
}  // namespace

LoaderCounts ReadLoaderCounts() {
  HMODULE modules[kMaxModules];
  int count = ListModules(modules);
  return {static_cast<unsigned long long>(count), Signature(modules, count)};
}

bool ModuleMapCovers(const LoaderCounts& now) { return g_signature != 0 && g_signature == now.subs; }

void PrepareModuleMap() {
  static HMODULE modules[kMaxModules];
  const int count = ListModules(modules);
  const uint64_t signature = Signature(modules, count);
  if (signature == g_prepared_signature) return;
  for (int i = 0; i < count; ++i) {
    g_prepared[i].module = modules[i];
    g_prepared[i].image_size = ImageSize(modules[i]);
    ModulePath(modules[i], g_prepared[i].path, sizeof(g_prepared[i].path));
  }
  g_prepared_count = count;
  g_prepared_signature = signature;
}

bool LoadedObjectsChanged(bool* unloaded) {
  if (unloaded) *unloaded = false;  // no cached unwind rules on Windows (stack_capture_windows.cc)
  return g_prepared_signature != g_signature;
}

void EncodeModuleMap(SocketSink& sink, uint64_t ticks) {
  wire::ProtoWriter w = sink.BeginPacket(1u << 20);
  size_t body = w.BeginNested(wire::Packet::kModuleMapFieldNumber);
  w.Varint(wire::ModuleMap::kTicksFieldNumber, ticks);
  using M = wire::Module;
  for (int i = 0; i < g_prepared_count; ++i) {
    const PreparedModule& m = g_prepared[i];
    if (!m.image_size) continue;
    size_t module = w.BeginNested(wire::ModuleMap::kModulesFieldNumber);
    w.String(M::kPathFieldNumber, m.path);
    w.Varint(M::kLoadBiasFieldNumber, reinterpret_cast<uint64_t>(m.module));
    size_t segment = w.BeginNested(M::kSegmentsFieldNumber);
    w.Varint(wire::Segment::kVaddrFieldNumber, 0);
    w.Varint(wire::Segment::kMemszFieldNumber, m.image_size);
    w.EndNested(segment);
    w.EndNested(module);
  }
  w.EndNested(body);
  sink.EndPacket(w);
  g_signature = g_prepared_signature;
}

void ForgetModuleMapAfterFork() { g_signature = 0; }

}  // namespace memframe::agent
