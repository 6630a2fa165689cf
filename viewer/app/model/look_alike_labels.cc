#include "look_alike_labels.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "memframe/analysis/module_class.h"
#include "memframe/analysis/site_origin.h"

namespace memframe::viewer {

SiteLabel WithLookAlike(SiteLabel label, const analysis::LookAlikeName& name) {
  constexpr size_t kViaChars = 44;  // as `memframe report hidden` prints it
  if (!name.via.empty()) label.name += " <- " + analysis::ShortenVia(name.via, kViaChars);
  if (!name.location.empty()) label.location = name.location;
  return label;
}

namespace {

// The stack as the tables name it: memframe's own frames left out.
std::vector<const analysis::SourceFrame*> Frames(Session& session, uint32_t stack_id) {
  std::vector<const analysis::SourceFrame*> frames;
  for (const analysis::SourceFrame& f : session.Stack(stack_id))
    if (!analysis::IsMemframeModule(f.module)) frames.push_back(&f);
  return frames;
}

std::string FrameText(const analysis::SourceFrame& f) {
  const std::string line = analysis::LineLocation(f);
  return line.empty() ? analysis::ModuleLocation(f) : f.function + " " + line;
}

bool SameFrame(const analysis::SourceFrame* a, const analysis::SourceFrame* b) {
  return a->module == b->module && a->module_offset == b->module_offset && a->function == b->function;
}

// An order whose equal frames are SameFrame's.
bool FrameBefore(const analysis::SourceFrame* a, const analysis::SourceFrame* b) {
  return std::tie(a->module, a->module_offset, a->function) < std::tie(b->module, b->module_offset, b->function);
}

}  // namespace

void LookAlikeLabels::NameInsides(Session& session, const std::vector<uint32_t>& alike) {
  std::vector<std::vector<const analysis::SourceFrame*>> stacks;
  for (uint32_t id : alike) stacks.push_back(Frames(session, id));
  // Innermost first: where each row parts from the row it shares the most
  // frames with. In the stacks' lexicographic order that row is a neighbour,
  // so a game's thousands of driver stacks under one call cost a sort, not
  // every pair.
  std::vector<size_t> sorted(alike.size());
  std::iota(sorted.begin(), sorted.end(), size_t{0});
  std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
    return std::lexicographical_compare(stacks[a].begin(), stacks[a].end(), stacks[b].begin(), stacks[b].end(),
                                        FrameBefore);
  });
  auto shared = [&](size_t a, size_t b) {
    size_t k = 0;
    while (k < stacks[a].size() && k < stacks[b].size() && SameFrame(stacks[a][k], stacks[b][k])) ++k;
    return k;
  };
  std::unordered_map<std::string, size_t> seen;  // text -> how many rows have it
  std::vector<std::string> texts(alike.size());
  for (size_t n = 0; n < sorted.size(); ++n) {
    const size_t i = sorted[n];
    size_t parts = 0;
    if (n > 0) parts = shared(i, sorted[n - 1]);
    if (n + 1 < sorted.size()) parts = std::max(parts, shared(i, sorted[n + 1]));
    if (parts < stacks[i].size()) texts[i] = FrameText(*stacks[i][parts]);
    ++seen[texts[i]];
  }
  for (size_t i = 0; i < alike.size(); ++i) {
    std::string text = texts[i];
    if (text.empty() || seen[text] > 1) text += (text.empty() ? "stack " : ", stack ") + std::to_string(alike[i]);
    inside_[alike[i]] = std::move(text);
  }
}

void LookAlikeLabels::Build(Session& session, const std::vector<uint32_t>& stack_ids) {
  names_.clear();
  inside_.clear();
  labels_.clear();
  std::vector<const std::vector<analysis::SourceFrame>*> stacks;
  stacks.reserve(stack_ids.size());
  for (uint32_t id : stack_ids) stacks.push_back(&session.Stack(id));
  std::vector<analysis::LookAlikeName> names = analysis::NameLookAlikes(stacks);
  // Rows that still read alike: the callers cannot tell them apart (the
  // stacks part inside a library), or not within the via's shortened length.
  std::unordered_map<std::string, std::vector<uint32_t>> alike;
  for (size_t i = 0; i < stack_ids.size(); ++i) {
    const SiteLabel label = WithLookAlike(session.Label(stack_ids[i]), names[i]);
    if (label.has_stack) alike[label.name + '\n' + label.location].push_back(stack_ids[i]);
  }
  for (const auto& [key, ids] : alike)
    if (ids.size() > 1) NameInsides(session, ids);
  for (size_t i = 0; i < stack_ids.size(); ++i) {
    // Only rows that differ from their plain label are kept.
    if (!names[i].via.empty() || names[i].location != session.Label(stack_ids[i]).location ||
        inside_.contains(stack_ids[i]))
      names_.emplace(stack_ids[i], std::move(names[i]));
  }
}

const SiteLabel& LookAlikeLabels::Label(Session& session, uint32_t stack_id) {
  auto name = names_.find(stack_id);
  if (name == names_.end()) return session.Label(stack_id);
  auto [label, added] = labels_.try_emplace(stack_id);
  if (added) {
    label->second = WithLookAlike(session.Label(stack_id), name->second);
    auto inside = inside_.find(stack_id);
    if (inside != inside_.end()) label->second.name += " in " + inside->second;
  }
  return label->second;
}

const std::string& LookAlikeLabels::Inside(uint32_t stack_id) const {
  static const std::string kNone;
  auto it = inside_.find(stack_id);
  return it == inside_.end() ? kNone : it->second;
}

const analysis::LookAlikeName& LookAlikeLabels::Name(uint32_t stack_id) const {
  static const analysis::LookAlikeName kNone;
  auto name = names_.find(stack_id);
  return name == names_.end() ? kNone : name->second;
}

}  // namespace memframe::viewer
