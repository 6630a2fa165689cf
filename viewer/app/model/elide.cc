#include "elide.h"

#include <algorithm>
#include <map>

namespace memframe::viewer {

namespace {

constexpr std::string_view kCut = "...";

bool IsBoundary(const std::string& text, size_t i) {
  return i == 0 || i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
}

// The longest prefix text[0, n) that fits `room` (n on a character boundary).
size_t FittingPrefix(const std::string& text, float room, const TextWidth& measure) {
  size_t lo = 0, hi = text.size();
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (measure(std::string_view(text).substr(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  while (!IsBoundary(text, lo)) --lo;
  return lo;
}

// The start of the longest suffix text[s, end) that fits `room`.
size_t FittingSuffix(const std::string& text, float room, const TextWidth& measure) {
  size_t lo = 0, hi = text.size();  // suffix lengths
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (measure(std::string_view(text).substr(text.size() - mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  size_t start = text.size() - lo;
  while (!IsBoundary(text, start)) ++start;
  return start;
}

size_t CharStart(const std::string& text, size_t i) {
  while (i > 0 && !IsBoundary(text, i)) --i;
  return i;
}

size_t CommonPrefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

std::string ElideMiddle(const std::string& text, float width, const TextWidth& measure, size_t keep) {
  if (measure(text) <= width) return text;
  const std::string cut(kCut);
  const float room = std::max(0.0f, width - measure(kCut));
  if (keep == kKeepNone) {
    const size_t tail = FittingSuffix(text, room * kTailShare, measure);
    const float tail_w = measure(std::string_view(text).substr(tail));
    const size_t head = FittingPrefix(text, room - tail_w, measure);
    return text.substr(0, head) + cut + text.substr(tail);
  }
  keep = CharStart(text, std::min(keep, text.size() - 1));
  // The tail from the kept character on, the rest of the room to the head
  // (when a quarter of the room is left for it: a name needs its start).
  const float from_keep = measure(std::string_view(text).substr(keep));
  if (from_keep <= room * 0.75f) {
    const size_t head = FittingPrefix(text, room - from_keep, measure);
    if (head < keep) return text.substr(0, head) + cut + text.substr(keep);
    return text;  // unreachable: the whole text would fit
  }
  // The head up to the kept character, the rest to the tail.
  size_t keep_end = keep + 1;
  while (!IsBoundary(text, keep_end)) ++keep_end;
  const float to_keep = measure(std::string_view(text).substr(0, keep_end));
  if (to_keep <= room) {
    const size_t tail = FittingSuffix(text, room - to_keep, measure);
    return text.substr(0, keep_end) + cut + text.substr(std::max(tail, keep_end));
  }
  // Neither: the start (what it is) and a window from just before the kept
  // character on, "libfri...0x1e004 in lib...".
  const float window_room = std::max(0.0f, width - 2 * measure(kCut));
  const size_t head = std::min(FittingPrefix(text, window_room / 3, measure), keep);
  const float room_after_head = window_room - measure(std::string_view(text).substr(0, head));
  const std::string before = text.substr(head, keep - head);
  // A few characters of context before it (up to four).
  const size_t lead_start = FittingSuffix(before, std::min(room_after_head / 3, measure("0000")), measure);
  const size_t from = head + lead_start;
  const std::string rest = text.substr(from);
  const size_t n = FittingPrefix(rest, room_after_head, measure);
  return text.substr(0, head) + (from > head ? cut : "") + rest.substr(0, n) + (n < rest.size() ? cut : "");
}

std::vector<std::string> ElideApart(const std::vector<std::string>& texts, float width, const TextWidth& measure) {
  std::vector<std::string> shown(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) shown[i] = ElideMiddle(texts[i], width, measure);
  // Texts cut alike keep where they part; a second round settles what the
  // first moved onto another row's cut.
  for (int round = 0; round < 2; ++round) {
    std::map<std::string, std::vector<size_t>> alike;
    for (size_t i = 0; i < texts.size(); ++i) alike[shown[i]].push_back(i);
    bool moved = false;
    for (const auto& [cut, rows] : alike) {
      if (rows.size() < 2) continue;
      for (size_t i : rows) {
        size_t keep = kKeepNone;
        for (size_t j : rows) {
          if (texts[j] == texts[i]) continue;
          const size_t common = CommonPrefix(texts[i], texts[j]);
          if (keep == kKeepNone || common > keep) keep = common;
        }
        if (keep == kKeepNone) continue;  // the same text: nothing tells them apart
        shown[i] = ElideMiddle(texts[i], width, measure, keep);
        moved = true;
      }
    }
    if (!moved) break;
  }
  return shown;
}

}  // namespace memframe::viewer
