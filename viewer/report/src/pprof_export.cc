// The pprof profile (export.h, proto/profile.proto): one Sample per call
// stack, one Location per return address, Functions and Mappings from the
// symbolizer and the capture's modules. With GPU objects, two sample types
// more, gpu_inuse_objects and gpu_inuse_space: the objects alive at the end
// per stack that made them and kind (label "gpu_kind"), in samples of their
// own (a heap sample's GPU values are 0, a GPU sample's heap values too).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "memframe/analysis/gpu_objects.h"
#include "memframe/report/export.h"
#include "profile.pb.h"
#include "memframe/hex.h"

namespace memframe::analysis {

namespace {

namespace pp = perftools::profiles;

class ProfileBuilder {
 public:
  ProfileBuilder(const Stream& stream, Symbolizer& symbolizer) : stream_(stream), symbolizer_(symbolizer) {
    String("");  // index 0 must be the empty string
    for (const Module& m : stream.modules) AddMapping(m);
  }

  int64_t String(const std::string& s) {
    auto [it, inserted] = strings_.try_emplace(s, static_cast<int64_t>(strings_.size()));
    if (inserted) profile_.add_string_table(s);
    return it->second;
  }

  pp::Sample* AddSample(uint32_t stack_id, const std::vector<int64_t>& values) {
    pp::Sample* sample = profile_.add_sample();
    auto it = stream_.stacks.find(stack_id);
    if (it != stream_.stacks.end()) {
      for (uint64_t address : it->second) sample->add_location_id(Location(address));  // innermost = leaf first
    }
    for (int64_t v : values) sample->add_value(v);
    return sample;
  }

  pp::Profile& profile() { return profile_; }

 private:
  struct Range {
    uint64_t start = 0, limit = 0, id = 0;
  };

  void AddMapping(const Module& m) {
    if (m.segments.empty()) return;
    const auto [start, limit] = m.AddressRange();
    pp::Mapping* mapping = profile_.add_mapping();
    mapping->set_id(static_cast<uint64_t>(profile_.mapping_size()));
    mapping->set_memory_start(start);
    mapping->set_memory_limit(limit);
    // The lowest segment of an ELF file maps file offset 0 in practice
    // (the ELF header page), which is what pprof needs to find symbols.
    mapping->set_file_offset(0);
    mapping->set_filename(String(m.path));
    mapping->set_build_id(String(HexBytes(m.build_id)));
    // memframe symbolizes everything it can; pprof must not try again.
    mapping->set_has_functions(true);
    mapping->set_has_filenames(true);
    mapping->set_has_line_numbers(true);
    mapping->set_has_inline_frames(true);
    ranges_.push_back({start, limit, mapping->id()});
  }

  uint64_t MappingOf(uint64_t address) const {
    for (const Range& r : ranges_)
      if (address >= r.start && address < r.limit) return r.id;
    return 0;
  }

  uint64_t Function(const SourceFrame& f) {
    auto key = std::make_pair(f.function, f.file);
    auto [it, inserted] = functions_.try_emplace(key, functions_.size() + 1);
    if (inserted) {
      pp::Function* fn = profile_.add_function();
      fn->set_id(it->second);
      fn->set_name(String(f.function));
      fn->set_system_name(String(f.function));
      fn->set_filename(String(f.file));
    }
    return it->second;
  }

  uint64_t Location(uint64_t address) {
    auto [it, inserted] = locations_.try_emplace(address, locations_.size() + 1);
    if (!inserted) return it->second;
    pp::Location* loc = profile_.add_location();
    loc->set_id(it->second);
    loc->set_mapping_id(MappingOf(address));
    loc->set_address(address);
    // Symbolize's order (inlined calls innermost first, then the holder) is
    // the order pprof wants.
    for (const SourceFrame& f : symbolizer_.Symbolize(address)) {
      pp::Line* line = loc->add_line();
      line->set_function_id(Function(f));
      line->set_line(f.line);
    }
    return it->second;
  }

  const Stream& stream_;
  Symbolizer& symbolizer_;
  pp::Profile profile_;
  std::unordered_map<std::string, int64_t> strings_;
  std::map<std::pair<std::string, std::string>, uint64_t> functions_;
  std::unordered_map<uint64_t, uint64_t> locations_;
  std::vector<Range> ranges_;
};

}  // namespace

std::string PprofProfile(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer) {
  ProfileBuilder b(capture.main, symbolizer);
  pp::Profile& p = b.profile();
  const GpuAnalysis gpu = AnalyzeGpu(capture.main, heap.frames);
  std::vector<std::pair<const char*, const char*>> types = {
      {"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"}};
  if (!gpu.empty()) types.insert(types.end(), {{"gpu_inuse_objects", "count"}, {"gpu_inuse_space", "bytes"}});
  for (auto [type, unit] : types) {
    pp::ValueType* v = p.add_sample_type();
    v->set_type(b.String(type));
    v->set_unit(b.String(unit));
  }
  std::unordered_map<uint32_t, const LeakSite*> inuse;
  for (const LeakSite& leak : heap.leaks.sites) inuse[leak.stack_id] = &leak;
  for (const SiteHistory& site : heap.sites.sites()) {
    auto leak = inuse.find(site.stack_id);
    int64_t blocks = leak != inuse.end() ? static_cast<int64_t>(leak->second->blocks) : 0;
    int64_t bytes = leak != inuse.end() ? static_cast<int64_t>(leak->second->bytes) : 0;
    std::vector<int64_t> values = {static_cast<int64_t>(site.allocations), static_cast<int64_t>(site.bytes), blocks, bytes};
    if (!gpu.empty()) values.insert(values.end(), {0, 0});
    b.AddSample(site.stack_id, values);
  }
  // The GPU objects alive at the end, by the stack that made them and kind.
  std::map<std::pair<uint32_t, GpuKind>, std::pair<int64_t, int64_t>> alive;
  for (const GpuObject& o : gpu.objects) {
    if (!o.alive || !CountsInGpuTotal(o.kind)) continue;
    auto& [objects, bytes] = alive[{o.stack_id, o.kind}];
    ++objects;
    bytes += static_cast<int64_t>(o.bytes);
  }
  for (const auto& [key, figures] : alive) {
    pp::Sample* s = b.AddSample(key.first, {0, 0, 0, 0, figures.first, figures.second});
    pp::Label* label = s->add_label();
    label->set_key(b.String("gpu_kind"));
    label->set_str(b.String(GpuKindName(key.second)));
  }
  p.mutable_period_type()->set_type(b.String("space"));
  p.mutable_period_type()->set_unit(b.String("bytes"));
  p.set_period(1);  // every allocation is recorded, none sampled
  p.set_time_nanos(static_cast<int64_t>(capture.recorder.start_unix_ns));
  // memframe's question is churn, so the profile opens on what was allocated.
  p.set_default_sample_type(b.String("alloc_space"));
  p.add_comment(b.String("memframe capture " + capture.path));
  return p.SerializeAsString();
}

}  // namespace memframe::analysis
