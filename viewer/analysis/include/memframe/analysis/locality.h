// How scattered each call site's live blocks are at one moment: the
// distinct 4 KiB pages and 64-byte cache lines they touch, against the
// fewest their bytes could fill packed together, and the address span
// from the lowest block to the end of the highest. A site that allocates
// in most frames and spreads its blocks over many times the pages they need
// costs a TLB miss and cold lines per object a frame: a pool would keep
// them together.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/live_set.h"

namespace memframe::analysis {

constexpr uint64_t kPageBytes = 4096;
constexpr uint64_t kCacheLineBytes = 64;
// Advice needs at least this many live blocks, spread over at least
// kScatterFactor times the pages they would fill packed.
constexpr uint64_t kLocalityMinBlocks = 8;
constexpr uint64_t kScatterFactor = 4;
// A site allocates "per frame" when it allocates in at least this share of
// the capture's frames (the hidden report's default).
constexpr double kPerFrameShare = 0.5;

struct SiteLocality {
  uint32_t stack_id = 0;
  uint64_t blocks = 0;
  uint64_t bytes = 0;
  uint64_t pages = 0;        // distinct 4 KiB pages the blocks touch
  uint64_t cache_lines = 0;  // distinct 64-byte lines
  uint64_t packed_pages = 0;  // the fewest pages its bytes fill: ceil(bytes / 4 KiB)
  uint64_t span = 0;          // from the lowest block's start to the highest block's end
  bool per_frame = false;     // allocates in at least kPerFrameShare of the frames
  bool scattered = false;     // the advice: per_frame, >= kLocalityMinBlocks, pages >= kScatterFactor * packed

  double pages_per_block() const { return blocks ? static_cast<double>(pages) / blocks : 0; }
  double lines_per_block() const { return blocks ? static_cast<double>(cache_lines) / blocks : 0; }
};

// Every site with live blocks in `live`, scattered ones first, then by
// pages (descending), then by stack id. `frames`: the capture's frame count
// (to judge per_frame against `sites`).
std::vector<SiteLocality> AnalyzeLocality(const LiveSet& live, const CallSiteIndex& sites, uint64_t frames);

}  // namespace memframe::analysis
