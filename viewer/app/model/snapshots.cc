#include "snapshots.h"

#include "memframe/analysis/phases.h"
#include "memframe/analysis/site_origin.h"
#include "memframe/paths.h"

#include <algorithm>

namespace memframe::viewer {

DiffRanges DefaultDiffRanges(const analysis::FrameTable& table) {
  const auto& frames = table.frames;
  if (frames.empty()) return {};
  if (auto load = analysis::LargestLoadDiffFrames(table))
    return {{load->first, load->first}, {load->second, load->second}};
  const uint64_t last = frames.back().frame;
  size_t biggest = 0;  // row
  bool biggest_is_spike = false;
  for (size_t i = 0; i < frames.size(); ++i) {
    const analysis::FrameStats& f = frames[i];
    // A spike beats any ordinary frame; among equals, more bytes wins.
    bool better = f.spike != biggest_is_spike ? f.spike : f.bytes_allocated > frames[biggest].bytes_allocated;
    if (better) {
      biggest = i;
      biggest_is_spike = f.spike;
    }
  }
  // The frame before it: the previous row (frame numbers may have gaps).
  uint64_t before = frames[biggest > 0 ? biggest - 1 : 0].frame;
  return {{before, before}, {last, last}};
}

analysis::LiveSetDiff DiffAtFrames(const Session& session, uint64_t frame_a, uint64_t frame_b) {
  const analysis::Stream& stream = session.capture().main;
  analysis::LiveSet a = session.heap().live_sets.AtFrame(stream, frame_a);
  analysis::LiveSet b = session.heap().live_sets.AtFrame(stream, frame_b);
  return analysis::DiffLiveSets(a, b);
}

analysis::LiveSetDiff DiffAtCuts(const Session& session, const analysis::LiveSetCut& a, const analysis::LiveSetCut& b) {
  const analysis::Stream& stream = session.capture().main;
  return analysis::DiffLiveSets(analysis::LiveSetAt(stream, session.heap().live_sets, a),
                                analysis::LiveSetAt(stream, session.heap().live_sets, b));
}

analysis::AddressSpace AddressSpaceAt(Session& session, uint64_t frame, const analysis::LiveSet& live) {
  analysis::AddressSpace space;
  space.frame = frame;
  space.first_frame = session.frames().All().from;
  for (const auto& [address, block] : live.blocks()) space.blocks.emplace(address, block);
  for (const analysis::Event& e : session.MapEvents()) {
    if (e.frame > frame) continue;  // another thread may still bring an earlier frame
    if (e.kind() == analysis::EventKind::kMap) space.mapped.Map(e);
    else space.mapped.Unmap(e.address, e.size);
  }
  return space;
}

std::vector<TreeFrame> UserStackFrames(Session& session, uint32_t stack_id) {
  const auto& stack = session.Stack(stack_id);
  std::vector<TreeFrame> frames;
  const analysis::SiteOrigin origin = analysis::FindSiteOrigin(stack);
  // Another module allocated on the user frame's behalf: it is the
  // innermost node, so the driver's blocks and the game's own stay apart.
  if (origin.alloc < origin.user)
    frames.push_back({origin.module + " (" + analysis::ModuleClassName(origin.module_class) + ")", ""});
  for (size_t i = origin.user; i < stack.size(); ++i) {
    const analysis::SourceFrame& f = stack[i];
    std::string location = f.file.empty() ? "" : Basename(f.file) + (f.line ? ":" + std::to_string(f.line) : "");
    frames.push_back({f.function, std::move(location)});
  }
  return frames;
}

RegionTotals SumRegions(const std::vector<analysis::RegionLayout>& regions, bool mapped) {
  RegionTotals total;
  for (const analysis::RegionLayout& r : regions) {
    if (r.mapped != mapped) continue;
    total.regions++;
    total.span += r.span();
    total.blocks += r.blocks;
    total.live_bytes += r.live_bytes;
    total.holes += r.holes;
    total.free_bytes += r.free_bytes;
    total.largest_free_gap = std::max(total.largest_free_gap, r.largest_free_gap);
  }
  total.fragmentation = analysis::Fragmentation(total.largest_free_gap, total.free_bytes);
  return total;
}

}  // namespace memframe::viewer
