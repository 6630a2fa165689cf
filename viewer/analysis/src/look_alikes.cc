#include "memframe/analysis/look_alikes.h"

#include <algorithm>

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

LookAlikeName NameRow(const std::vector<Row>& rows, size_t i) {
  const Row& row = rows[i];
  LookAlikeName name{row.location, ""};
  if (row.function.empty()) return name;
  // How far out this row's frames must go before it differs from every
  // look-alike (the deepest of the pairwise first differences), and at
  // which of those depths a look-alike has a frame of the same name in
  // another place, so that the name needs its place beside it.
  size_t needed = 0;
  std::vector<bool> same_name(kMaxCallersNamed + 1, false);
  for (size_t j = 0; j < rows.size(); ++j) {
    if (j == i || rows[j].function != row.function || rows[j].location != row.location) continue;
    for (size_t outward = 0;; ++outward) {
      const SourceFrame* mine = row.Outward(outward);
      const SourceFrame* theirs = rows[j].Outward(outward);
      if (!mine) break;  // they differ only further out, or below the user frame
      if (theirs && SamePlace(*mine, *theirs)) continue;
      needed = std::max(needed, outward);
      if (theirs && theirs->function == mine->function && outward < same_name.size()) same_name[outward] = true;
      break;
    }
  }
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
  std::vector<LookAlikeName> names;
  names.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) names.push_back(NameRow(rows, i));
  return names;
}

}  // namespace memframe::analysis
