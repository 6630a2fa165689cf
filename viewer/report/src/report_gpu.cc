// `gpu`: the GPU objects beside the heap (gpu_objects.h): live GPU bytes by
// kind in the frames where they changed, the largest objects, the sites
// that made the most, and the objects alive at the end.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "memframe/analysis/gpu_objects.h"
#include "memframe/format.h"
#include "memframe/report/units.h"
#include "report_json_common.h"
#include "report_text_common.h"
#include "text_table.h"

namespace memframe::analysis {

namespace {

constexpr size_t kRowsShown = 20;

bool Changed(const GpuFrame& f) { return f.made || f.deleted || f.made_bytes || f.freed_bytes; }

struct GpuSite {
  uint32_t stack_id = 0;
  uint64_t objects = 0;
  uint64_t bytes = 0;        // each object at its largest
  uint64_t alive_bytes = 0;  // of those alive at the end
};

std::vector<GpuSite> Sites(const GpuAnalysis& gpu) {
  std::map<uint32_t, GpuSite> by_stack;
  for (const GpuObject& o : gpu.objects) {
    if (!CountsInGpuTotal(o.kind)) continue;
    GpuSite& s = by_stack[o.stack_id];
    s.stack_id = o.stack_id;
    ++s.objects;
    s.bytes += o.peak_bytes;
    if (o.alive) s.alive_bytes += o.bytes;
  }
  std::vector<GpuSite> sites;
  for (auto& [id, s] : by_stack) sites.push_back(s);
  std::stable_sort(sites.begin(), sites.end(), [](const GpuSite& a, const GpuSite& b) { return a.bytes > b.bytes; });
  return sites;
}

// Objects by their largest size, then in the order made.
std::vector<const GpuObject*> Largest(const GpuAnalysis& gpu, bool alive_only) {
  std::vector<const GpuObject*> objects;
  for (const GpuObject& o : gpu.objects)
    if (!alive_only || o.alive) objects.push_back(&o);
  std::stable_sort(objects.begin(), objects.end(),
                   [](const GpuObject* a, const GpuObject* b) { return a->peak_bytes > b->peak_bytes; });
  return objects;
}

// The first rows' call sites, named so that rows made by one upload helper
// (a stripped game's every texture comes through the same function) show
// the callers that tell them apart.
template <typename Row, typename StackOf>
std::vector<SiteView> NamedSites(const std::vector<Row>& rows, const ReportInput& input, StackOf stack_of) {
  std::vector<SiteView> views;
  for (size_t i = 0; i < rows.size() && i < kRowsShown; ++i) views.push_back(NameStack(stack_of(rows[i]), input));
  NameCallersOfLookAlikes(views);
  return views;
}

void ObjectTable(const std::vector<const GpuObject*>& objects, const ReportInput& input, std::ostream& out) {
  TextTable table({{"#"}, {"kind", true}, {"name"}, {"bytes"}, {"format", true}, {"size", true}, {"levels"},
                   {"made"}, {"deleted"}, {"function", true}, {"location", true}});
  const std::vector<SiteView> views = NamedSites(objects, input, [](const GpuObject* o) { return o->stack_id; });
  for (size_t i = 0; i < views.size(); ++i) {
    const GpuObject& o = *objects[i];
    const SiteView& v = views[i];
    std::string bytes = FormatBytes(o.peak_bytes);
    if (o.basis != GpuSizeBasis::kExact) bytes += std::string(" (") + GpuSizeBasisName(o.basis) + ")";
    table.AddRow({std::to_string(i + 1), GpuKindName(o.kind), GpuObjectName(o), bytes, GpuFormatName(o),
                  GpuDimensions(o), o.levels ? std::to_string(o.levels) : "", std::to_string(o.made_frame),
                  o.alive ? "-" : std::to_string(o.deleted_frame), SiteLabel(v), v.location});
  }
  table.Write(out);
}

// Each VkDeviceMemory, and the buffers and images bound into it by offset.
void VulkanBlocksText(const GpuAnalysis& gpu, const ReportInput& input, std::ostream& out) {
  const std::vector<VkBlock> blocks = VkBlocks(gpu);
  if (blocks.empty()) return;
  out << "\nVulkan memory and what is bound in it (largest first):\n";
  for (size_t i = 0; i < blocks.size() && i < kRowsShown; ++i) {
    const VkBlock& b = blocks[i];
    const GpuObject& m = *b.memory;
    out << "  " << GpuObjectName(m) << "  " << FormatBytes(m.peak_bytes) << ", " << VkMemoryTypeText(m) << ", frames "
        << m.made_frame << ".." << (m.alive ? std::string("end (alive)") : std::to_string(m.deleted_frame)) << "; "
        << b.bound.size() << " bound, " << FormatBytes(b.bound_bytes) << " (" << FormatBytes(m.peak_bytes > b.bound_bytes ? m.peak_bytes - b.bound_bytes : 0)
        << " not bound)  " << FunctionOrPlaceholder(NameStack(m.stack_id, input)) << '\n';
    if (b.bound.empty()) continue;
    TextTable table({{"offset"}, {"kind", true}, {"name"}, {"bytes"}, {"format", true}, {"size", true}, {"made"},
                     {"deleted"}});
    for (const GpuObject* o : b.bound)
      table.AddRow({FormatBytes(o->offset), GpuKindName(o->kind), GpuObjectName(*o), FormatBytes(o->peak_bytes),
                    GpuFormatName(*o), GpuDimensions(*o), std::to_string(o->made_frame),
                    o->alive ? "-" : std::to_string(o->deleted_frame)});
    std::ostringstream rows;
    table.Write(rows);
    std::istringstream lines(rows.str());
    for (std::string line; std::getline(lines, line);) out << "      " << line << '\n';
  }
}

json VulkanBlocksJson(const GpuAnalysis& gpu) {
  json blocks = json::array();
  for (const VkBlock& b : VkBlocks(gpu)) {
    json bound = json::array();
    for (const GpuObject* o : b.bound)
      bound.push_back({{"kind", GpuKindName(o->kind)}, {"name", o->name}, {"bytes", o->peak_bytes}, {"offset", o->offset}});
    blocks.push_back({{"memory", b.memory->name},
                      {"bytes", b.memory->peak_bytes},
                      {"memory_type", b.memory->memory_type},
                      {"memory_heap", b.memory->memory_heap == wire::kVkHeapUnknown ? json() : json(b.memory->memory_heap)},
                      {"memory_flags", VkMemoryFlagsName(b.memory->memory_flags)},
                      {"alive", b.memory->alive},
                      {"bound_bytes", b.bound_bytes},
                      {"bound", std::move(bound)}});
  }
  return blocks;
}

}  // namespace

GpuAnalysis AnalyzeGpuOf(const ReportInput& input) {
  return AnalyzeGpu(input.capture.main, input.heap.frames);
}

void WriteGpuText(const ReportInput& input, std::ostream& out) {
  const GpuAnalysis gpu = AnalyzeGpuOf(input);
  if (input.capture.main.process.attached)
    out << "The recording starts at an attach: GPU objects made before it are unknown until deleted ("
        << FormatCount(gpu.deletes_of_unknown) << " deleted since); GL calls through pointers from glXGetProcAddress "
        << "are seen (their entries are patched), Vulkan calls through pointers fetched before it are not.\n";
  if (gpu.empty()) {
    out << "No GPU objects: the program made no GL buffer, texture or renderbuffer and no Vulkan memory, buffer "
           "or image through the calls memframe hooks (or it ran with MEMFRAME_GPU=0).\n";
    return;
  }
  uint64_t deleted = 0, alive_bytes = 0, alive = 0, by_basis[3] = {};
  for (const GpuObject& o : gpu.objects) {
    deleted += !o.alive;
    if (o.alive && CountsInGpuTotal(o.kind)) {
      ++alive;
      alive_bytes += o.bytes;
    }
    ++by_basis[static_cast<int>(o.basis)];
  }
  out << "GPU objects: " << FormatCount(gpu.objects.size()) << " made, " << FormatCount(deleted) << " deleted, "
      << FormatCount(alive) << " alive at the end (" << FormatBytes(alive_bytes) << "); peak "
      << FormatBytes(gpu.peak_total) << " live in frame " << gpu.peak_frame << '\n';
  out << "Sizes: " << FormatCount(by_basis[0]) << " exact, " << FormatCount(by_basis[1])
      << " as uploaded (an unsized format: the driver picks the storage), " << FormatCount(by_basis[2])
      << " of a format memframe does not know (counted as 0 bytes)\n";
  if (gpu.deletes_of_unknown)
    out << FormatCount(gpu.deletes_of_unknown) << " deletes of objects made before the recording (or never made)\n";
  if (gpu.dropped) out << FormatCount(gpu.dropped) << " GPU events dropped (--drop): the figures are short\n";

  const std::vector<GpuKind> kinds = GpuKindsMade(gpu, false);
  out << "\nLive GPU bytes in the frames where they changed:\n";
  std::vector<TextTable::Column> columns = {{"frame"}};
  for (GpuKind k : kinds) columns.push_back({GpuKindName(k)});
  for (const char* c : {"total", "made", "deleted", "+bytes", "-bytes"}) columns.push_back({c});
  TextTable frames(columns);
  // A game that re-specifies a texture every frame (SuperTux's text) changes
  // every frame alike: consecutive frames with the same cells are one row.
  std::vector<std::string> run_cells;
  uint64_t run_from = 0, run_to = 0;
  bool collapsed = false;
  auto flush = [&] {
    if (run_cells.empty()) return;
    std::vector<std::string> row = {run_from == run_to ? std::to_string(run_from)
                                                       : std::to_string(run_from) + ".." + std::to_string(run_to)};
    collapsed |= run_from != run_to;
    row.insert(row.end(), run_cells.begin(), run_cells.end());
    frames.AddRow(row);
    run_cells.clear();
  };
  for (size_t i = 0; i < gpu.frames.size(); ++i) {
    const GpuFrame& f = gpu.frames[i];
    if (!Changed(f)) {
      flush();
      continue;
    }
    std::vector<std::string> cells;
    for (GpuKind k : kinds) cells.push_back(FormatBytes(f.live_bytes[static_cast<int>(k)]));
    for (const std::string& cell : {FormatBytes(f.total()), FormatCount(f.made), FormatCount(f.deleted),
                                    FormatBytes(f.made_bytes), FormatBytes(f.freed_bytes)})
      cells.push_back(cell);
    const uint64_t frame = gpu.first_frame + i;
    if (!run_cells.empty() && cells == run_cells && frame == run_to + 1) {
      run_to = frame;
      continue;
    }
    flush();
    run_cells = std::move(cells);
    run_from = run_to = frame;
  }
  flush();
  frames.Write(out);
  if (collapsed) out << "(A..B: each of those frames alike; --json lists every frame.)\n";

  out << "\nLargest objects:\n";
  ObjectTable(Largest(gpu, false), input, out);

  out << "\nSites by the bytes of the objects they made:\n";
  TextTable sites({{"#"}, {"objects"}, {"bytes"}, {"alive at end"}, {"function", true}, {"location", true}});
  const std::vector<GpuSite> by_site = Sites(gpu);
  const std::vector<SiteView> views = NamedSites(by_site, input, [](const GpuSite& s) { return s.stack_id; });
  for (size_t i = 0; i < views.size(); ++i) {
    const SiteView& v = views[i];
    sites.AddRow({std::to_string(i + 1), FormatCount(by_site[i].objects), FormatBytes(by_site[i].bytes),
                  FormatBytes(by_site[i].alive_bytes), SiteLabel(v), v.location});
  }
  sites.Write(out);

  VulkanBlocksText(gpu, input, out);

  const auto leaked = Largest(gpu, true);
  if (leaked.empty()) return;
  out << "\nAlive at the end (never deleted):\n";
  ObjectTable(leaked, input, out);
}

void WriteGpuJson(const ReportInput& input, std::ostream& out) {
  const GpuAnalysis gpu = AnalyzeGpuOf(input);
  const std::vector<GpuKind> kinds = GpuKindsMade(gpu, false);
  auto live_by_kind = [&](const std::array<uint64_t, kGpuKinds>& bytes) {
    json j = json::object();
    for (GpuKind k : kinds) j[GpuKindName(k)] = bytes[static_cast<int>(k)];
    return j;
  };
  json frames = json::array();
  for (size_t i = 0; i < gpu.frames.size(); ++i) {
    const GpuFrame& f = gpu.frames[i];
    if (!Changed(f)) continue;
    frames.push_back({{"frame", gpu.first_frame + i},
                      {"live_bytes", live_by_kind(f.live_bytes)},
                      {"total", f.total()},
                      {"made", f.made},
                      {"deleted", f.deleted},
                      {"made_bytes", f.made_bytes},
                      {"freed_bytes", f.freed_bytes}});
  }
  json objects = json::array();
  uint64_t alive_bytes = 0, alive = 0;
  for (const GpuObject& o : gpu.objects) {
    if (o.alive && CountsInGpuTotal(o.kind)) {
      ++alive;
      alive_bytes += o.bytes;
    }
    objects.push_back(GpuObjectJson(o, NameStack(o.stack_id, input), input.json_stacks));
  }
  json sites = json::array();
  for (const GpuSite& s : Sites(gpu)) {
    json row = StackRefJson(NameStack(s.stack_id, input), input.json_stacks);
    row["objects"] = s.objects;
    row["bytes"] = s.bytes;
    row["alive_bytes"] = s.alive_bytes;
    sites.push_back(std::move(row));
  }
  json peak = live_by_kind(gpu.peak_bytes);
  Emit({{"objects_made", gpu.objects.size()},
        {"alive_at_end", {{"objects", alive}, {"bytes", alive_bytes}}},
        {"peak", {{"bytes", gpu.peak_total}, {"frame", gpu.peak_frame}, {"by_kind", peak}}},
        {"attached", input.capture.main.process.attached},
        {"deletes_of_unknown", gpu.deletes_of_unknown},
        {"dropped", gpu.dropped},
        {"frames", std::move(frames)},
        {"sites", std::move(sites)},
        {"vulkan_blocks", VulkanBlocksJson(gpu)},
        {"objects", std::move(objects)}},
       input, out);
}

}  // namespace memframe::analysis
