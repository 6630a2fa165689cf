#include "look_alike_labels.h"

namespace memframe::viewer {

SiteLabel WithLookAlike(SiteLabel label, const analysis::LookAlikeName& name) {
  constexpr size_t kViaChars = 44;  // as `memframe report hidden` prints it
  if (!name.via.empty()) label.name += " <- " + analysis::ShortenVia(name.via, kViaChars);
  if (!name.location.empty()) label.location = name.location;
  return label;
}

void LookAlikeLabels::Build(Session& session, const std::vector<uint32_t>& stack_ids) {
  names_.clear();
  labels_.clear();
  std::vector<const std::vector<analysis::SourceFrame>*> stacks;
  stacks.reserve(stack_ids.size());
  for (uint32_t id : stack_ids) stacks.push_back(&session.Stack(id));
  std::vector<analysis::LookAlikeName> names = analysis::NameLookAlikes(stacks);
  for (size_t i = 0; i < stack_ids.size(); ++i) {
    // Only rows that differ from their plain label are kept.
    if (!names[i].via.empty() || names[i].location != session.Label(stack_ids[i]).location)
      names_.emplace(stack_ids[i], std::move(names[i]));
  }
}

const SiteLabel& LookAlikeLabels::Label(Session& session, uint32_t stack_id) {
  auto name = names_.find(stack_id);
  if (name == names_.end()) return session.Label(stack_id);
  auto [label, added] = labels_.try_emplace(stack_id);
  if (added) label->second = WithLookAlike(session.Label(stack_id), name->second);
  return label->second;
}

const analysis::LookAlikeName& LookAlikeLabels::Name(uint32_t stack_id) const {
  static const analysis::LookAlikeName kNone;
  auto name = names_.find(stack_id);
  return name == names_.end() ? kNone : name->second;
}

}  // namespace memframe::viewer
