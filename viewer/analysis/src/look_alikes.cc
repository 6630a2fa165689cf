#include "memframe/analysis/look_alikes.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "memframe/analysis/site_origin.h"

namespace memframe::analysis {

namespace {

constexpr size_t kMaxCallersNamed = 3;

// A row as a table prints it: its stack, the user frame's index, function
// and location.
struct Row {
  const std::vector<SourceFrame>* stack = nullptr;
  size_t user = 0;
  std::string function, location;

  const SourceFrame* Outward(size_t outward) const {
    size_t index = user + outward;
    return stack && index < stack->size() ? &(*stack)[index] : nullptr;
  }
};

// The same place in the code: same function and line, and, without line
// information, the same return address: two calls inside one function
// differ only there.
bool SamePlace(const SourceFrame& a, const SourceFrame& b) {
  if (a.function != b.function || a.file != b.file || a.line != b.line) return false;
  return a.line > 0 || a.address == b.address;
}

// Where in its function a frame is, for when its name alone does not say.
std::string PlaceOf(const SourceFrame& f) {
  return f.line > 0 ? LineLocation(f) : ModuleLocation(f);
}

// How far out a row's frames must go before it differs from its look-alikes
// (the deepest of the first differences), and at which
// of those depths a look-alike has a frame of the same name in another place,
// so that the name needs its place beside it.
struct Parting {
  size_t needed = 0;
  bool same_name[kMaxCallersNamed + 1] = {};

  void Compare(const Row& mine, const Row& theirs) {
    for (size_t outward = 0;; ++outward) {
      const SourceFrame* a = mine.Outward(outward);
      const SourceFrame* b = theirs.Outward(outward);
      if (!a) return;  // they differ only further out, or below the user frame
      if (b && SamePlace(*a, *b)) continue;
      needed = std::max(needed, outward);
      if (b && b->function == a->function && outward <= kMaxCallersNamed) same_name[outward] = true;
      return;
    }
  }
};

// Orders rows by their places outward, so that the look-alike a row parts
// from last is beside it.
bool PlacesBefore(const Row& x, const Row& y) {
  for (size_t outward = 0;; ++outward) {
    const SourceFrame* a = x.Outward(outward);
    const SourceFrame* b = y.Outward(outward);
    if (!a || !b) return !a && b;
    if (SamePlace(*a, *b)) continue;
    auto key = [](const SourceFrame& f) { return std::tie(f.function, f.file, f.line); };
    if (key(*a) != key(*b)) return key(*a) < key(*b);
    return a->address < b->address;
  }
}

// Groups larger than this compare each row with its neighbours in place
// order only (a table of 250,000 driver sites must not take n^2 steps): the
// depth is exact; a place beside a caller's name may be left out.
constexpr size_t kPairwiseLimit = 256;

std::vector<Parting> PartLookAlikes(const std::vector<Row>& rows, std::vector<size_t> group) {
  std::vector<Parting> parting(group.size());
  if (group.size() <= kPairwiseLimit) {
    for (size_t i = 0; i < group.size(); ++i)
      for (size_t j = 0; j < group.size(); ++j)
        if (i != j) parting[i].Compare(rows[group[i]], rows[group[j]]);
    return parting;
  }
  std::vector<size_t> order(group.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return PlacesBefore(rows[group[a]], rows[group[b]]); });
  for (size_t k = 0; k < order.size(); ++k) {
    if (k > 0) parting[order[k]].Compare(rows[group[order[k]]], rows[group[order[k - 1]]]);
    if (k + 1 < order.size()) parting[order[k]].Compare(rows[group[order[k]]], rows[group[order[k + 1]]]);
  }
  return parting;
}

LookAlikeName NameRow(const Row& row, const Parting& parting) {
  LookAlikeName name{row.location, ""};
  if (row.function.empty()) return name;
  const size_t needed = parting.needed;
  const bool* same_name = parting.same_name;
  // The user frame itself differs (one function without line information
  // allocating from two places): its place tells.
  if (same_name[0] && name.location.empty()) name.location = PlaceOf(*row.Outward(0));
  for (size_t outward = 1; outward <= std::min(needed, kMaxCallersNamed); ++outward) {
    const SourceFrame& f = *row.Outward(outward);
    if (outward > 1) name.via += " <- ";
    name.via += same_name[outward] ? f.function + " (" + PlaceOf(f) + ")" : f.function;
  }
  if (needed > kMaxCallersNamed) name.via += " <- ...";
  return name;
}

}  // namespace

std::string CutFromLeft(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars) return text;
  if (max_chars <= 3) return "...";
  size_t from = text.size() - (max_chars - 3);
  // Not inside a UTF-8 sequence.
  while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
  return "..." + text.substr(from);
}

std::string ShortenVia(const std::string& via, size_t max_chars) {
  if (via.size() <= max_chars) return via;
  size_t last = via.rfind(" <- ");
  // Past three callers the one that tells is not named: keep the start.
  if (last != std::string::npos && via.compare(last, std::string::npos, " <- ...") == 0)
    return via.substr(0, max_chars - 3) + "...";
  // Otherwise the end tells (the last caller's name, or its place).
  std::string tail = last == std::string::npos ? via : via.substr(last + 4);
  if (last != std::string::npos && tail.size() + 7 <= max_chars) return "... <- " + tail;
  return CutFromLeft(tail, max_chars);
}

std::vector<LookAlikeName> NameLookAlikes(const std::vector<const std::vector<SourceFrame>*>& stacks) {
  std::vector<Row> rows(stacks.size());
  for (size_t i = 0; i < stacks.size(); ++i) {
    if (!stacks[i] || stacks[i]->empty()) continue;
    Row& row = rows[i];
    row.stack = stacks[i];
    SiteOrigin origin = FindSiteOrigin(*row.stack);
    row.user = origin.user;
    if (row.user >= row.stack->size()) continue;
    // The whole name: rows whose allocating modules differ do not look alike.
    row.function = SiteName(*row.stack, origin);
    row.location = LineLocation((*row.stack)[row.user]);
  }
  // Only rows printed alike (same name and location) are compared.
  std::unordered_map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < rows.size(); ++i)
    if (!rows[i].function.empty()) groups[rows[i].function + '\n' + rows[i].location].push_back(i);
  std::vector<LookAlikeName> names(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) names[i].location = rows[i].location;
  for (auto& [key, group] : groups) {
    if (group.size() < 2) continue;
    std::vector<Parting> parting = PartLookAlikes(rows, group);
    for (size_t k = 0; k < group.size(); ++k) names[group[k]] = NameRow(rows[group[k]], parting[k]);
  }
  return names;
}

}  // namespace memframe::analysis
