#include "memframe/analysis/gpu_objects.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

#include "memframe/format.h"
#include "memframe/gl_formats.h"
#include "memframe/hex.h"

namespace memframe::analysis {

const char* GpuKindName(GpuKind kind) {
  switch (kind) {
    case GpuKind::kBuffer: return "buffer";
    case GpuKind::kTexture: return "texture";
    case GpuKind::kRenderbuffer: return "renderbuffer";
    case GpuKind::kVkMemory: return "vk-memory";
    case GpuKind::kVkBuffer: return "vk-buffer";
    case GpuKind::kVkImage: return "vk-image";
    case GpuKind::kNone: break;
  }
  return "none";
}

const char* GpuSizeBasisName(GpuSizeBasis basis) {
  switch (basis) {
    case GpuSizeBasis::kExact: return "exact";
    case GpuSizeBasis::kAsUploaded: return "as uploaded";
    case GpuSizeBasis::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string GlFormatName(uint32_t f) {
  if (f == 0) return "";
  if (const char* name = wire::GlFormatName(f)) return name;
  char hex[16];
  snprintf(hex, sizeof(hex), "0x%04X", f);
  return hex;
}

std::string VkFormatName(uint32_t f) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {9, "R8_UNORM"},       {16, "R8G8_UNORM"},           {37, "R8G8B8A8_UNORM"},      {43, "R8G8B8A8_SRGB"},
      {44, "B8G8R8A8_UNORM"}, {50, "B8G8R8A8_SRGB"},       {64, "A2B10G10R10_UNORM_PACK32"},
      {76, "R16_SFLOAT"},    {83, "R16G16_SFLOAT"},        {97, "R16G16B16A16_SFLOAT"}, {100, "R32_SFLOAT"},
      {103, "R32G32_SFLOAT"}, {109, "R32G32B32A32_SFLOAT"}, {122, "B10G11R11_UFLOAT_PACK32"},
      {124, "D16_UNORM"},    {126, "D32_SFLOAT"},          {129, "D24_UNORM_S8_UINT"},  {130, "D32_SFLOAT_S8_UINT"},
      {131, "BC1_RGB_UNORM_BLOCK"}, {133, "BC1_RGBA_UNORM_BLOCK"}, {137, "BC3_UNORM_BLOCK"},
      {139, "BC4_UNORM_BLOCK"}, {141, "BC5_UNORM_BLOCK"},  {145, "BC7_UNORM_BLOCK"},
  };
  if (f == 0) return "";
  for (const auto& [value, name] : kNames)
    if (value == f) return std::string("VK_FORMAT_") + name;
  return "VkFormat " + std::to_string(f);
}


std::string GpuObjectName(const GpuObject& o) {
  if (IsVulkan(o.kind)) return Hex(o.name);
  return std::to_string(o.name) + (o.context > 1 ? " (ctx " + std::to_string(o.context) + ")" : "");
}

std::string VkBindingText(const GpuObject& o) {
  if (o.memory == 0) return "not bound";
  return "bound in " + Hex(o.memory) + " at " + std::to_string(o.offset);
}

std::string VkMemoryTypeText(const GpuObject& memory) {
  if (memory.memory_heap == wire::kVkHeapUnknown) return "heap ? (the device's memory types were not seen)";
  const std::string flags = VkMemoryFlagsName(memory.memory_flags);
  return "type " + std::to_string(memory.memory_type) + ", heap " + std::to_string(memory.memory_heap) +
         (flags.empty() ? "" : " (" + flags + ")");
}

std::string GpuFormatName(const GpuObject& o) { return IsVulkan(o.kind) ? VkFormatName(o.format) : GlFormatName(o.format); }

std::string VkMemoryFlagsName(uint32_t flags) {
  static const char* const kBits[] = {"device-local", "host-visible", "host-coherent", "host-cached", "lazily-allocated",
                                      "protected"};
  std::string names;
  for (int bit = 0; bit < 6; ++bit)
    if (flags & (1u << bit)) names += std::string(names.empty() ? "" : ", ") + kBits[bit];
  return names;
}

std::vector<VkBlock> VkBlocks(const GpuAnalysis& gpu) {
  std::vector<VkBlock> blocks;
  // A handle may be reused after vkFreeMemory: the block is the latest of
  // that handle made when the resource was (objects are in the order made).
  std::multimap<uint64_t, size_t> by_handle;
  for (const GpuObject& o : gpu.objects) {
    if (o.kind != GpuKind::kVkMemory) continue;
    by_handle.emplace(o.name, blocks.size());
    blocks.push_back({&o, {}, 0});
  }
  for (const GpuObject& o : gpu.objects) {
    if ((o.kind != GpuKind::kVkBuffer && o.kind != GpuKind::kVkImage) || o.memory == 0) continue;
    VkBlock* in = nullptr;  // the latest block of that handle made by then
    auto [first, last] = by_handle.equal_range(o.memory);
    for (auto it = first; it != last; ++it)
      if (blocks[it->second].memory->made_frame <= o.made_frame) in = &blocks[it->second];
    if (!in) continue;
    in->bound.push_back(&o);
    in->bound_bytes += o.peak_bytes;
  }
  for (VkBlock& b : blocks)
    std::stable_sort(b.bound.begin(), b.bound.end(), [](const GpuObject* x, const GpuObject* y) { return x->offset < y->offset; });
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](const VkBlock& a, const VkBlock& b) { return a.memory->peak_bytes > b.memory->peak_bytes; });
  return blocks;
}

std::string GpuDimensions(const GpuObject& o) {
  if (o.width == 0) return "";
  std::string d = std::to_string(o.width);
  if (o.height > 1 || o.depth > 1) d += "x" + std::to_string(o.height);
  if (o.depth > 1) d += "x" + std::to_string(o.depth);
  if (!IsVulkan(o.kind) && wire::GlCubeMapTarget(o.target)) d += " cube";
  if (o.samples > 1) d += " x" + std::to_string(o.samples) + " samples";
  return d;
}

uint64_t GpuFrame::total() const {
  uint64_t sum = 0;
  for (int k = 0; k < kGpuKinds; ++k)
    if (CountsInGpuTotal(static_cast<GpuKind>(k))) sum += live_bytes[k];
  return sum;
}

void PlaceGpuEvents(Stream* stream) {
  auto& gpu = stream->gpu_events;
  std::stable_sort(gpu.begin(), gpu.end(), [](const GpuEvent& a, const GpuEvent& b) { return a.ticks < b.ticks; });
  if (gpu.empty() || stream->events.empty()) return;
  // The frame ends the capture kept, with the number of the frame each ended.
  std::vector<std::pair<uint64_t, uint64_t>> ends;
  for (const Event& e : stream->events)
    if (e.kind() == EventKind::kFrameEnd) ends.emplace_back(e.ticks, e.size);
  if (ends.empty()) return;
  size_t next = 0;  // events and ends are both in tick order
  for (GpuEvent& g : gpu) {
    while (next < ends.size() && ends[next].first <= g.ticks) ++next;
    g.frame = next == 0 ? ends[0].second : ends[next - 1].second + 1;
  }
}

namespace {

using Key = std::tuple<GpuKind, uint32_t, uint64_t>;
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<uint64_t>()(std::get<2>(k) * 31 + std::get<1>(k) * 7 + static_cast<uint64_t>(std::get<0>(k)));
  }
};

// Image (level << 3 | face) -> bytes and how they were found.
struct TextureImage {
  uint64_t bytes = 0;
  GpuSizeBasis basis = GpuSizeBasis::kExact;
};
using TextureImages = std::map<uint32_t, TextureImage>;

constexpr uint32_t kCubeMap = 0x8513;

class Replay {
 public:
  explicit Replay(GpuAnalysis* out) : out_(out) {}

  void Apply(const GpuEvent& e) {
    const Key key{e.kind, e.context, e.name};
    if (e.op == GpuOp::kDeclare) {
      declared_[key] = e.target;
      return;
    }
    auto it = live_.find(key);
    if (e.op == GpuOp::kDelete) {
      if (it == live_.end()) {
        ++out_->deletes_of_unknown;
        return;
      }
      GpuObject& o = out_->objects[it->second];
      Resize(o, 0);
      o.alive = false;
      o.deleted_frame = e.frame;
      ++frame_.deleted;
      images_.erase(it->second);
      live_.erase(it);
      return;
    }
    if (e.op == GpuOp::kBind) {
      if (it == live_.end()) return;
      out_->objects[it->second].memory = e.memory;
      out_->objects[it->second].offset = e.offset;
      return;
    }
    if (e.op == GpuOp::kMipmaps) {
      if (it != live_.end() && e.kind == GpuKind::kTexture) MakeMipmaps(it->second);
      return;
    }
    if (e.op != GpuOp::kStorage && e.op != GpuOp::kImage) return;
    if (it == live_.end()) it = live_.emplace(key, Make(e)).first;
    GpuObject& o = out_->objects[it->second];
    if (e.op == GpuOp::kStorage) {
      Describe(o, e);
      o.levels = e.levels;
      o.basis = e.basis;
      images_.erase(it->second);
      uint64_t bytes = e.bytes;
      if (e.kind == GpuKind::kTexture && e.target == 0) bytes = DeclaredStorageBytes(key, e, &o);
      if (o.bytes && bytes != o.bytes) ++o.resizes;
      Resize(o, bytes);
      o.memory_type = e.memory_type;
      o.memory_heap = e.memory_heap;
      o.memory_flags = e.memory_flags;
    } else {
      TextureImages& images = images_[it->second];
      images[e.level << 3 | e.face] = {e.bytes, e.basis};
      if (e.level == 0) Describe(o, e);
      if (wire::GlCubeFaceTarget(e.target)) o.target = kCubeMap;
      SumImages(o, images);
    }
  }

  void EndFrame() {
    frame_.live_bytes = live_bytes_;
    out_->frames.push_back(frame_);
    const uint64_t total = frame_.total();
    for (int k = 0; k < kGpuKinds; ++k) out_->peak_bytes[k] = std::max(out_->peak_bytes[k], live_bytes_[k]);
    if (total > out_->peak_total) {
      out_->peak_total = total;
      out_->peak_frame = out_->first_frame + out_->frames.size() - 1;
    }
    frame_ = GpuFrame{};
  }

 private:
  size_t Make(const GpuEvent& e) {
    GpuObject o;
    o.kind = e.kind;
    o.context = e.context;
    o.name = e.name;
    o.made_frame = e.frame;
    o.stack_id = e.stack_id;
    o.thread = e.thread;
    out_->objects.push_back(o);
    ++frame_.made;
    return out_->objects.size() - 1;
  }

  static void Describe(GpuObject& o, const GpuEvent& e) {
    o.format = e.format;
    o.target = e.target ? e.target : o.target;
    o.width = e.width;
    o.height = e.height;
    o.depth = e.depth;
    o.samples = e.samples;
  }

  // glTextureStorage* names no target: a cube map or a 1D array made by
  // glCreateTextures is sized again with the target it was made with.
  uint64_t DeclaredStorageBytes(const Key& key, const GpuEvent& e, GpuObject* o) {
    auto declared = declared_.find(key);
    if (declared == declared_.end() || e.basis != GpuSizeBasis::kExact) return e.bytes;
    const uint32_t target = declared->second;
    o->target = target;
    uint64_t chain = 0;
    if (!wire::GlChainBytes(e.format, target, e.levels, e.width, e.height, e.depth, &chain)) return e.bytes;
    return chain * (wire::GlCubeMapTarget(target) ? 6 : 1) * (e.samples > 1 ? e.samples : 1);
  }

  void SumImages(GpuObject& o, const TextureImages& images) {
    uint64_t sum = 0;
    uint32_t top_level = 0;
    GpuSizeBasis basis = GpuSizeBasis::kExact;
    for (const auto& [at, image] : images) {
      sum += image.bytes;
      top_level = std::max(top_level, at >> 3);
      basis = std::max(basis, image.basis);
    }
    o.levels = top_level + 1;
    o.basis = basis;
    Resize(o, sum);
  }

  // Every level below each face's base image, as glGenerateMipmap makes
  // them: from the format table, or for an unsized format at the base
  // image's bytes per texel.
  void MakeMipmaps(size_t index) {
    GpuObject& o = out_->objects[index];
    TextureImages& images = images_[index];
    const bool layers_in_height = wire::Gl1DArrayTarget(o.target);
    const bool layers_in_depth = wire::GlLayeredTarget(o.target) && !layers_in_height;
    const uint32_t w = std::max(o.width, 1u), h = std::max(o.height, 1u), d = std::max(o.depth, 1u);
    const uint32_t largest = std::max({w, layers_in_height ? 1u : h, layers_in_depth ? 1u : d});
    uint32_t levels = 1;
    while ((largest >> levels) > 0) ++levels;
    for (uint32_t face = 0; face < 6; ++face) {
      auto base = images.find(face);
      if (base == images.end()) continue;
      const TextureImage top = base->second;
      const uint64_t texels = uint64_t{w} * h * d;
      for (uint32_t level = 1; level < levels; ++level) {
        auto shrink = [level](uint32_t v) { return std::max(v >> level, 1u); };
        const uint32_t lw = shrink(w), lh = layers_in_height ? h : shrink(h), ld = layers_in_depth ? d : shrink(d);
        uint64_t bytes = 0;
        if (!wire::GlImageBytes(o.format, lw, lh, ld, &bytes) && texels)
          bytes = top.bytes / texels * (uint64_t{lw} * lh * ld);
        images[level << 3 | face] = {bytes, top.basis};
      }
    }
    SumImages(o, images);
  }

  void Resize(GpuObject& o, uint64_t bytes) {
    const int k = static_cast<int>(o.kind);
    if (bytes > o.bytes) frame_.made_bytes += bytes - o.bytes;
    if (bytes < o.bytes) frame_.freed_bytes += o.bytes - bytes;
    live_bytes_[k] += bytes;
    live_bytes_[k] -= o.bytes;
    o.bytes = bytes;
    o.peak_bytes = std::max(o.peak_bytes, bytes);
  }

  GpuAnalysis* out_;
  std::unordered_map<Key, size_t, KeyHash> live_;
  std::unordered_map<Key, uint32_t, KeyHash> declared_;
  std::unordered_map<size_t, TextureImages> images_;
  std::array<uint64_t, kGpuKinds> live_bytes_{};
  GpuFrame frame_;
};

}  // namespace

const GpuFrame* GpuAnalysis::Frame(uint64_t frame) const {
  if (frames.empty() || frame < first_frame) return nullptr;
  return &frames[std::min<uint64_t>(frame - first_frame, frames.size() - 1)];
}

uint64_t GpuAnalysis::LiveTotal(uint64_t frame) const {
  const GpuFrame* f = Frame(frame);
  return f ? f->total() : 0;
}

namespace {
uint64_t Total(const std::array<uint64_t, kGpuKinds>& bytes) {
  GpuFrame f;
  f.live_bytes = bytes;
  return f.total();
}
}  // namespace

uint64_t GpuDiff::total_a() const { return Total(a); }
uint64_t GpuDiff::total_b() const { return Total(b); }

GpuDiff DiffGpu(const GpuAnalysis& gpu, std::optional<uint64_t> frame_a, uint64_t frame_b) {
  GpuDiff d;
  if (frame_a)
    if (const GpuFrame* f = gpu.Frame(*frame_a)) d.a = f->live_bytes;
  if (const GpuFrame* f = gpu.Frame(frame_b)) d.b = f->live_bytes;
  auto after_a = [&](uint64_t frame) { return !frame_a || frame > *frame_a; };
  for (const GpuObject& o : gpu.objects) {
    const bool made = after_a(o.made_frame) && o.made_frame <= frame_b;
    const bool deleted = !o.alive && after_a(o.deleted_frame) && o.deleted_frame <= frame_b;
    d.made += made;
    d.deleted += deleted;
    if (made && !deleted && CountsInGpuTotal(o.kind)) d.kept.push_back(&o);
  }
  std::stable_sort(d.kept.begin(), d.kept.end(),
                   [](const GpuObject* x, const GpuObject* y) { return x->peak_bytes > y->peak_bytes; });
  return d;
}

GpuAnalysis AnalyzeGpu(const Stream& stream, const FrameTable& frames) {
  return AnalyzeGpu(stream, frames.frames.empty() ? 0 : frames.frames.back().frame + 1);
}

std::vector<GpuKind> GpuKindsMade(const GpuAnalysis& gpu, bool in_total) {
  std::vector<GpuKind> kinds;
  for (int i = 1; i < kGpuKinds; ++i) {
    const GpuKind k = static_cast<GpuKind>(i);
    if ((!in_total || CountsInGpuTotal(k)) &&
        std::any_of(gpu.objects.begin(), gpu.objects.end(), [k](const GpuObject& o) { return o.kind == k; }))
      kinds.push_back(k);
  }
  return kinds;
}

GpuAnalysis AnalyzeGpu(const Stream& stream, uint64_t frame_count) {
  GpuAnalysis out;
  out.dropped = stream.gpu_dropped;
  const auto& events = stream.gpu_events;
  if (events.empty()) return out;
  out.first_frame = std::min<uint64_t>(events.front().frame, 0);
  const uint64_t last = std::max<uint64_t>(frame_count ? frame_count - 1 : 0, events.back().frame);
  Replay replay(&out);
  size_t next = 0;
  for (uint64_t frame = out.first_frame; frame <= last; ++frame) {
    while (next < events.size() && events[next].frame <= frame) replay.Apply(events[next++]);
    replay.EndFrame();
  }
  return out;
}

}  // namespace memframe::analysis
