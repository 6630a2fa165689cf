// CompareCaptures and FindRegressions (capture_compare.h).
#include "memframe/analysis/capture_compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "memframe/analysis/site_origin.h"

namespace memframe::analysis {

namespace {

struct KeyedSite {
  std::string name, function, location;
  ModuleClass module_class = ModuleClass::kSystem;
  SideFigures steady;
  uint64_t leaked_blocks = 0, leaked_bytes = 0;
};

// The identity of a stack across builds: function and file:line of each
// frame (the function's "module+0xoffset" name where there is no debug info).
std::string StackKey(const std::vector<SourceFrame>& stack) {
  std::string key;
  for (const SourceFrame& f : stack) key += f.function + "@" + LineLocation(f) + "\n";
  return key;
}

struct Side {
  std::map<std::string, KeyedSite> sites;
  std::vector<Phase> phases;
  uint64_t steady_frames = 0;
  SideFigures total;
  uint64_t leaked_bytes = 0;
};

KeyedSite& SiteOf(const CompareInput& in, uint32_t stack_id, Side& side) {
  auto it = in.capture.main.stacks.find(stack_id);
  const std::vector<SourceFrame> stack =
      it == in.capture.main.stacks.end() ? std::vector<SourceFrame>{} : in.symbolizer.SymbolizeStack(it->second);
  auto [entry, inserted] = side.sites.try_emplace(StackKey(stack));
  if (inserted) {
    const SiteOrigin origin = FindSiteOrigin(stack);
    entry->second.name = stack.empty() ? "(no stack)" : SiteName(stack, origin);
    entry->second.module_class = origin.module_class;
    if (origin.user < stack.size()) {
      entry->second.function = stack[origin.user].function;
      entry->second.location = LineLocation(stack[origin.user]);
    }
  }
  return entry->second;
}

Side Analyse(const CompareInput& in) {
  Side side;
  side.phases = FindPhases(in.heap.frames);
  const std::vector<FrameRange> steady = SteadyRanges(side.phases);
  for (const FrameRange& r : steady) side.steady_frames += in.heap.frames.CountIn(r);
  for (const SiteHistory& site : in.heap.sites.sites()) {
    SideFigures figures;
    for (const FrameRange& r : steady) {
      SiteStats s = SummarizeSite(site, r, 0);
      figures.allocations += s.allocations;
      figures.bytes += s.bytes;
    }
    if (figures.allocations == 0) continue;
    KeyedSite& k = SiteOf(in, site.stack_id, side);
    k.steady.allocations += figures.allocations;
    k.steady.bytes += figures.bytes;
    side.total.allocations += figures.allocations;
    side.total.bytes += figures.bytes;
  }
  for (const LeakSite& leak : in.heap.leaks.sites) {
    KeyedSite& k = SiteOf(in, leak.stack_id, side);
    k.leaked_blocks += leak.blocks;
    k.leaked_bytes += leak.bytes;
    side.leaked_bytes += leak.bytes;
  }
  return side;
}

double Growth(double base, double next) {
  if (base == 0) return next == 0 ? 0 : INFINITY;
  return (next - base) / base * 100.0;
}

}  // namespace

CaptureComparison CompareCaptures(const CompareInput& base_input, const CompareInput& next_input) {
  const Side base = Analyse(base_input), next = Analyse(next_input);
  CaptureComparison c;
  c.base_steady_frames = base.steady_frames;
  c.next_steady_frames = next.steady_frames;
  c.base_total = base.total;
  c.next_total = next.total;
  c.base_end = HowProgramEnded(base_input.capture);
  c.next_end = HowProgramEnded(next_input.capture);
  c.leaks_compared = c.base_end.LiveBlocksAreLeaks() && c.next_end.LiveBlocksAreLeaks();
  c.base_leaked_bytes = base.leaked_bytes;
  c.next_leaked_bytes = next.leaked_bytes;
  std::map<std::string, std::pair<const KeyedSite*, const KeyedSite*>> keys;
  for (const auto& [key, site] : base.sites) keys[key].first = &site;
  for (const auto& [key, site] : next.sites) keys[key].second = &site;
  for (const auto& [key, pair] : keys) {
    const auto [b, n] = pair;
    const KeyedSite& named = n ? *n : *b;
    if ((b ? b->steady.allocations : 0) + (n ? n->steady.allocations : 0) > 0) {
      SiteComparison s;
      s.name = named.name;
      s.function = named.function;
      s.location = named.location;
      s.module_class = named.module_class;
      if (b) s.base = b->steady;
      if (n) s.next = n->steady;
      const bool same = PerFrame(s.base.allocations, base.steady_frames) == PerFrame(s.next.allocations, next.steady_frames) &&
                        PerFrame(s.base.bytes, base.steady_frames) == PerFrame(s.next.bytes, next.steady_frames);
      s.change = s.base.allocations == 0   ? SiteComparison::Change::kNew
                 : s.next.allocations == 0 ? SiteComparison::Change::kGone
                 : same                    ? SiteComparison::Change::kSame
                                           : SiteComparison::Change::kChanged;
      if (s.change == SiteComparison::Change::kSame) ++c.unchanged_sites;
      else c.sites.push_back(s);
    }
    const uint64_t base_blocks = b ? b->leaked_blocks : 0, base_bytes = b ? b->leaked_bytes : 0;
    if (c.leaks_compared && n && (n->leaked_blocks > base_blocks || n->leaked_bytes > base_bytes))
      c.leaks_added.push_back({named.name, named.module_class, base_blocks, base_bytes, n->leaked_blocks, n->leaked_bytes});
  }
  auto delta = [&](const SiteComparison& s) {
    return std::fabs(PerFrame(s.next.bytes, next.steady_frames) - PerFrame(s.base.bytes, base.steady_frames));
  };
  std::stable_sort(c.sites.begin(), c.sites.end(), [&](const SiteComparison& a, const SiteComparison& b) {
    if (delta(a) != delta(b)) return delta(a) > delta(b);
    return a.name < b.name;
  });
  std::stable_sort(c.leaks_added.begin(), c.leaks_added.end(), [](const LeakComparison& a, const LeakComparison& b) {
    return a.next_bytes - a.base_bytes > b.next_bytes - b.base_bytes;
  });
  c.phases = PairPhases(base.phases, next.phases);
  return c;
}

std::string PhaseLabel(PhaseKind kind, uint32_t ordinal) { return std::string(PhaseKindName(kind)) + " " + std::to_string(ordinal); }

std::vector<PhaseComparison> PairPhases(const std::vector<Phase>& base, const std::vector<Phase>& next) {
  // Each phase's ordinal within its kind, counted in FindPhases' order.
  auto ordinals = [](const std::vector<Phase>& phases) {
    std::map<PhaseKind, uint32_t> seen;
    std::vector<uint32_t> out;
    for (const Phase& p : phases) out.push_back(++seen[p.kind]);
    return out;
  };
  const std::vector<uint32_t> base_ordinals = ordinals(base), next_ordinals = ordinals(next);
  std::map<std::pair<PhaseKind, uint32_t>, size_t> next_index;
  for (size_t j = 0; j < next.size(); ++j) next_index[{next[j].kind, next_ordinals[j]}] = j;
  std::vector<PhaseComparison> rows;
  std::vector<size_t> row_of_next(next.size(), SIZE_MAX);
  for (size_t i = 0; i < base.size(); ++i) {
    PhaseComparison row{base[i].kind, base_ordinals[i], base[i], std::nullopt};
    if (auto it = next_index.find({base[i].kind, base_ordinals[i]}); it != next_index.end()) {
      row.next = next[it->second];
      row_of_next[it->second] = rows.size();
    }
    rows.push_back(row);
  }
  // A phase only NEW has goes after the row of NEW's phase before it.
  size_t at = 0;
  for (size_t j = 0; j < next.size(); ++j) {
    if (row_of_next[j] != SIZE_MAX) {
      at = std::max(at, row_of_next[j] + 1);
      continue;
    }
    rows.insert(rows.begin() + static_cast<ptrdiff_t>(at), PhaseComparison{next[j].kind, next_ordinals[j], std::nullopt, next[j]});
    for (size_t& r : row_of_next)
      if (r != SIZE_MAX && r >= at) ++r;
    ++at;
  }
  return rows;
}

std::string LeaksNotComparedReason(const CaptureComparison& c) {
  if (c.leaks_compared) return "";
  const std::string base = DescribeProgramEnd(c.base_end), next = DescribeProgramEnd(c.next_end);
  const char* tail = "; only two runs that exited compare leaks";
  if (c.base_end.LiveBlocksAreLeaks()) return "NEW " + next + ", so the blocks live at its end are no leaks" + tail;
  if (c.next_end.LiveBlocksAreLeaks()) return "BASE " + base + ", so the blocks live at its end are no leaks" + tail;
  const std::string both = base == next ? "BASE and NEW " + base : "BASE " + base + " and NEW " + next;
  return both + ", so the blocks live at their ends are no leaks" + tail;
}

std::vector<std::string> FindRegressions(const CaptureComparison& c, double percent) {
  std::vector<std::string> found;
  auto check = [&](const std::string& what, double base, double next) {
    const double growth = Growth(base, next);
    // The margin keeps exactly PCT (1.0 -> 1.1 is 10.000000000000009%) a pass.
    if (growth > percent + 1e-9)
      found.push_back(what + " grew " + (std::isinf(growth) ? std::string("from 0") : std::to_string(std::lround(growth)) + "%"));
  };
  check("steady allocations per frame", PerFrame(c.base_total.allocations, c.base_steady_frames),
        PerFrame(c.next_total.allocations, c.next_steady_frames));
  check("steady bytes per frame", PerFrame(c.base_total.bytes, c.base_steady_frames),
        PerFrame(c.next_total.bytes, c.next_steady_frames));
  if (c.leaks_compared)
    check("leaked bytes", static_cast<double>(c.base_leaked_bytes), static_cast<double>(c.next_leaked_bytes));
  for (const SiteComparison& s : c.sites) {
    if (s.module_class != ModuleClass::kGame) continue;
    if (s.change == SiteComparison::Change::kNew) {
      found.push_back("new game site " + s.name);
      continue;
    }
    check("allocations per frame of " + s.name, PerFrame(s.base.allocations, c.base_steady_frames),
          PerFrame(s.next.allocations, c.next_steady_frames));
    check("bytes per frame of " + s.name, PerFrame(s.base.bytes, c.base_steady_frames),
          PerFrame(s.next.bytes, c.next_steady_frames));
  }
  return found;
}

}  // namespace memframe::analysis
