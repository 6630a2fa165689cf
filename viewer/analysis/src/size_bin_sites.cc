#include "memframe/analysis/size_bin_sites.h"

#include <algorithm>
#include <unordered_map>

#include "memframe/analysis/event_pass.h"

namespace memframe::analysis {

namespace {

class SizeBinSitesPass : public EventPass {
 public:
  explicit SizeBinSitesPass(FrameRange range) : range_(range) {}

  void OnEvent(const Event& e) override {
    if (e.kind() != EventKind::kAlloc) return;
    if (!range_.Contains(e.frame)) return;
    SizeBinSite& site = bins_[SizeBin(e.size)][e.stack_id];
    site.stack_id = e.stack_id;
    site.allocations++;
    site.bytes += e.size;
  }

  SizeBinSites Finish() {
    SizeBinSites out;
    for (int b = 0; b < kSizeBins; ++b) {
      for (const auto& [stack, site] : bins_[b]) out[b].push_back(site);
      std::sort(out[b].begin(), out[b].end(), [](const SizeBinSite& x, const SizeBinSite& y) {
        if (x.allocations != y.allocations) return x.allocations > y.allocations;
        if (x.bytes != y.bytes) return x.bytes > y.bytes;
        return x.stack_id < y.stack_id;
      });
    }
    return out;
  }

 private:
  FrameRange range_;
  std::array<std::unordered_map<uint32_t, SizeBinSite>, kSizeBins> bins_;
};

}  // namespace

SizeBinSites SitesBySizeBin(const Stream& stream, FrameRange range) {
  SizeBinSitesPass pass(range);
  Replay(stream, {&pass});
  return pass.Finish();
}

}  // namespace memframe::analysis
