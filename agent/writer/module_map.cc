#include "writer/module_map.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cstring>

#include "memframe.pb.h"

namespace memframe::agent {

namespace {
unsigned long long g_adds = ~0ull;
unsigned long long g_subs = ~0ull;

struct Counters {
  unsigned long long adds = 0, subs = 0;
};

int ReadCounters(dl_phdr_info* info, size_t size, void* data) {
  auto* c = static_cast<Counters*>(data);
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
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
};

int EncodeModule(dl_phdr_info* info, size_t, void* data) {
  auto* ctx = static_cast<EncodeContext*>(data);
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

bool LoadedObjectsChanged() {
  Counters c;
  dl_iterate_phdr(ReadCounters, &c);
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
  EncodeContext ctx{&w, executable};
  dl_iterate_phdr(EncodeModule, &ctx);
  w.EndNested(body);
  sink.EndPacket(w);
}

}  // namespace memframe::agent
