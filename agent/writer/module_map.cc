#include "writer/module_map.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "memframe.pb.h"

namespace memframe::agent {

namespace {
unsigned long long g_adds = ~0ull;
unsigned long long g_subs = ~0ull;

// The loader's counts when the last module map was read, packed by Pack();
// 0 until the first. Written by the writer, read by dlclose on any thread.
std::atomic<uint64_t> g_mapped{0};

bool HasCounts(size_t size) { return size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(dl_phdr_info::dlpi_subs); }

// One word, so that a reader never sees adds of one map with subs of
// another. The low 32 bits of each are plenty: telling two states apart
// needs 2^32 loads between them to fail. Never 0 once read (bit 63).
uint64_t Pack(const LoaderCounts& c) { return 1ull << 63 | (c.adds & 0x7fffffffull) << 32 | (c.subs & 0xffffffffull); }

int ReadCounts(dl_phdr_info* info, size_t size, void* data) {
  auto* c = static_cast<LoaderCounts*>(data);
  if (HasCounts(size)) {
    c->adds = info->dlpi_adds;
    c->subs = info->dlpi_subs;
  }
  return 1;  // the counters are the same in every entry
}

// NT_GNU_BUILD_ID from the PT_NOTE segments, or 0 bytes.
size_t FindBuildId(const dl_phdr_info* info, const uint8_t** id) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
    const uint8_t* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const uint8_t* name = p + sizeof(ElfW(Nhdr));
      const uint8_t* desc = name + ((note->n_namesz + 3) & ~3u);
      if (desc + note->n_descsz > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
        *id = desc;
        return note->n_descsz;
      }
      p = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 0;
}

struct EncodeContext {
  wire::ProtoWriter* writer;
  const char* executable;
  bool counted = false;
  LoaderCounts counts;  // under the same hold of the loader's lock as the modules
};

int EncodeModule(dl_phdr_info* info, size_t size, void* data) {
  auto* ctx = static_cast<EncodeContext*>(data);
  if (!ctx->counted && HasCounts(size)) {
    ctx->counts = {info->dlpi_adds, info->dlpi_subs};
    ctx->counted = true;
  }
  wire::ProtoWriter& w = *ctx->writer;
  using M = wire::Module;
  size_t module = w.BeginNested(wire::ModuleMap::kModulesFieldNumber);
  // The main program has an empty name in the loader's list.
  const char* path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : ctx->executable;
  w.String(M::kPathFieldNumber, path);
  w.Varint(M::kLoadBiasFieldNumber, info->dlpi_addr);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    size_t segment = w.BeginNested(M::kSegmentsFieldNumber);
    w.Varint(wire::Segment::kVaddrFieldNumber, ph.p_vaddr);
    w.Varint(wire::Segment::kMemszFieldNumber, ph.p_memsz);
    w.EndNested(segment);
  }
  const uint8_t* build_id = nullptr;
  size_t build_id_size = FindBuildId(info, &build_id);
  if (build_id_size) w.Bytes(M::kBuildIdFieldNumber, build_id, build_id_size);
  w.EndNested(module);
  return 0;
}
}  // namespace

LoaderCounts ReadLoaderCounts() {
  LoaderCounts c;
  dl_iterate_phdr(ReadCounts, &c);
  return c;
}

bool ModuleMapCovers(const LoaderCounts& now) {
  uint64_t mapped = g_mapped.load(std::memory_order_acquire);
  return mapped != 0 && mapped == Pack(now);
}

bool LoadedObjectsChanged(bool* unloaded) {
  LoaderCounts c = ReadLoaderCounts();
  if (unloaded) *unloaded = g_subs != ~0ull && c.subs != g_subs;
  if (c.adds == g_adds && c.subs == g_subs) return false;
  g_adds = c.adds;
  g_subs = c.subs;
  return true;
}

void EncodeModuleMap(SocketSink& sink, uint64_t ticks) {
  static char executable[4096];
  if (!executable[0]) {
    ssize_t n = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
    executable[n > 0 ? n : 0] = '\0';
  }
  // 1 MiB is room for a few thousand libraries.
  wire::ProtoWriter w = sink.BeginPacket(1u << 20);
  size_t body = w.BeginNested(wire::Packet::kModuleMapFieldNumber);
  w.Varint(wire::ModuleMap::kTicksFieldNumber, ticks);
  EncodeContext ctx{&w, executable, false, {}};
  dl_iterate_phdr(EncodeModule, &ctx);
  w.EndNested(body);
  sink.EndPacket(w);
  // The packet holds the list now: a dlclose in this state may skip the
  // wait for a new one. Published after the list was written, never before.
  g_mapped.store(ctx.counted && !w.overflow() ? Pack(ctx.counts) : 0, std::memory_order_release);
}

void PrepareModuleMap() {}

void ForgetModuleMapAfterFork() {
  g_adds = ~0ull;
  g_subs = ~0ull;
  g_mapped.store(0, std::memory_order_relaxed);
}

}  // namespace memframe::agent
