#include "plateaus.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "memframe/analysis/phases.h"

namespace memframe::analysis {

namespace {

// A plateau's level: the interquartile mean of its allocations a frame (a
// few spikes or a frame alternating with a busier one do not move it) and
// the interquartile range, its jitter.
struct RateLevel {
  double mean = 0;
  double spread = 0;
};

RateLevel LevelOfRows(const std::vector<uint64_t>& values, size_t from, size_t to) {
  std::vector<uint64_t> w(values.begin() + static_cast<long>(from), values.begin() + static_cast<long>(to));
  std::sort(w.begin(), w.end());
  const size_t n = w.size(), q1 = n / 4, q3 = std::max(q1 + 1, n - n / 4);
  RateLevel level;
  for (size_t i = q1; i < q3; ++i) level.mean += static_cast<double>(w[i]);
  level.mean /= static_cast<double>(q3 - q1);
  level.spread = static_cast<double>(w[std::min(n - 1, n * 3 / 4)] - w[n / 4]);
  return level;
}

// log of the ratio of the two levels when they differ for good (by `ratio`
// and by more than their jitter), else 0.
double ChangeScore(const RateLevel& a, const RateLevel& b, double ratio = kPlateauRatio) {
  const double k = static_cast<double>(kPlateauPseudoCount);
  const double lo = std::min(a.mean, b.mean) + k, hi = std::max(a.mean, b.mean) + k;
  if (hi < ratio * lo || hi - lo <= std::max(a.spread, b.spread)) return 0;
  return std::log(hi / lo);
}

}  // namespace

uint64_t MedianOfRows(const std::vector<uint64_t>& values, size_t from, size_t to) {
  std::vector<uint64_t> w(values.begin() + static_cast<long>(from), values.begin() + static_cast<long>(to));
  auto mid = w.begin() + static_cast<long>((w.size() - 1) / 2);
  std::nth_element(w.begin(), mid, w.end());
  return *mid;
}

namespace {

uint64_t AbsDiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

// The row in [cut - M/2, cut + M/2] where the rows before are closest to
// the level before and the rows after to the level after (least absolute
// deviation): where the change really is, not just where the windows found it.
size_t PlaceCut(const std::vector<uint64_t>& a, size_t cut, size_t first, size_t last) {
  const size_t m = kMinPlateauFrames;
  const uint64_t before = MedianOfRows(a, cut - m, cut), after = MedianOfRows(a, cut, cut + m);
  const size_t lo = std::max(first + 1, cut - m / 2), hi = std::min(last, cut + m / 2);
  size_t best = cut;
  uint64_t best_cost = UINT64_MAX;
  for (size_t c = lo; c <= hi; ++c) {
    uint64_t cost = 0;
    for (size_t i = cut - m; i < c; ++i) cost += AbsDiff(a[i], before);
    for (size_t i = c; i < cut + m; ++i) cost += AbsDiff(a[i], after);
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// Rows where a new plateau starts, ascending.
std::vector<size_t> FindCuts(const std::vector<uint64_t>& a, size_t first, size_t last) {
  const size_t m = kMinPlateauFrames;
  std::vector<std::pair<double, size_t>> scored;
  if (last - first + 1 < 2 * m) return {};
  for (size_t c = first + m; c + m <= last + 1; ++c) {
    const double score = ChangeScore(LevelOfRows(a, c - m, c), LevelOfRows(a, c, c + m));
    if (score > 0) scored.emplace_back(score, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<size_t> cuts;
  for (const auto& candidate : scored) {
    const size_t c = candidate.second;
    const bool apart = std::all_of(cuts.begin(), cuts.end(), [&](size_t other) { return AbsDiff(c, other) >= m; });
    if (apart) cuts.push_back(c);
  }
  for (size_t& c : cuts) c = PlaceCut(a, c, first, last);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

// Where a short plateau at the head (or the tail) of rows first..last ends
// (or starts), if one does: the long windows cannot see a change fewer than
// kMinPlateauFrames rows from the edge, so there the rows on the edge's side
// of the cut are as many as there are (at least kShortPlateauFrames), and
// the change must be kShortPlateauRatio (a cutscene's opening seconds at 4x
// the world map behind it).
std::optional<size_t> ShortEdgeCut(const std::vector<uint64_t>& a, size_t first, size_t last, bool head) {
  const size_t m = kMinPlateauFrames, k = kShortPlateauFrames, end = last + 1;
  std::optional<size_t> best;
  if (end - first < 2 * k) return best;
  const size_t lo = head ? first + k : std::max(first + k, end >= m ? end - m + 1 : 0);
  const size_t hi = head ? std::min(first + m - 1, end - k) : end - k;
  double best_score = 0;
  for (size_t c = lo; c <= hi; ++c) {
    const double score = ChangeScore(LevelOfRows(a, std::max(first, c >= m ? c - m : 0), c),
                                     LevelOfRows(a, c, std::min(end, c + m)), kShortPlateauRatio);
    if (score > best_score) best_score = score, best = c;
  }
  return best;
}

// Cuts each plateau's short head and tail off it.
void CutShortEdges(const std::vector<uint64_t>& a, std::vector<PhaseRun>& plateaus) {
  std::vector<PhaseRun> out;
  for (PhaseRun p : plateaus) {
    for (bool head : {true, false}) {
      if (auto c = ShortEdgeCut(a, p.first, p.last, head)) {
        out.push_back({p.first, *c - 1});
        p.first = *c;
      }
    }
    out.push_back(p);
  }
  plateaus = std::move(out);
}

// Joins neighbouring plateaus whose whole levels do not differ (a slow ramp
// cut in two), from the first.
void JoinAlikePlateaus(const std::vector<uint64_t>& a, std::vector<PhaseRun>& plateaus) {
  for (;;) {
    size_t join = 0;
    while (join + 1 < plateaus.size() &&
           ChangeScore(LevelOfRows(a, plateaus[join].first, plateaus[join].last + 1),
                       LevelOfRows(a, plateaus[join + 1].first, plateaus[join + 1].last + 1)) > 0)
      ++join;
    if (join + 1 >= plateaus.size()) return;
    plateaus[join].last = plateaus[join + 1].last;
    plateaus.erase(plateaus.begin() + static_cast<long>(join) + 1);
  }
}

bool IsLongLoad(const PhaseSeries& s, const std::vector<PhaseRun>& plateaus, size_t i) {
  const PhaseRun& p = plateaus[i];
  const uint64_t before = s.LiveBefore(p.first), after = s.live[p.last];
  const uint64_t limit = std::max(kLoadFloorBytes, before / kLoadLiveDivisor);
  if (after <= before || after - before < limit) return false;
  const uint64_t bytes = MedianOfRows(s.bytes, p.first, p.last + 1);
  bool has_neighbour = false;
  for (size_t j : {i - 1, i + 1}) {
    if (j >= plateaus.size()) continue;  // i - 1 wraps for the first
    has_neighbour = true;
    if (bytes < 2 * MedianOfRows(s.bytes, plateaus[j].first, plateaus[j].last + 1)) return false;
  }
  return has_neighbour;
}

}  // namespace

bool LevelsDiffer(const std::vector<uint64_t>& values, size_t first, size_t middle, size_t end) {
  return ChangeScore(LevelOfRows(values, first, middle), LevelOfRows(values, middle, end)) > 0;
}

std::vector<PhaseRun> CutPlateaus(const PhaseSeries& s, size_t first, size_t last) {
  std::vector<PhaseRun> plateaus;
  size_t from = first;
  for (size_t cut : FindCuts(s.allocations, first, last)) {
    plateaus.push_back({from, cut - 1});
    from = cut;
  }
  plateaus.push_back({from, last});
  JoinAlikePlateaus(s.allocations, plateaus);
  CutShortEdges(s.allocations, plateaus);
  for (size_t i = 0; i < plateaus.size(); ++i)
    if (IsLongLoad(s, plateaus, i)) plateaus[i].kind = PhaseKind::kLoad;
  return plateaus;
}

}  // namespace memframe::analysis
