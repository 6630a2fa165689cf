// The labels of a table's rows with look-alikes told apart: rows that would
// print the same name and location get the callers where they part, by the
// rule the CLI's tables use (analysis::NameLookAlikes), so that Frame
// detail, Hidden, Leaks and Lifetimes never show two identical rows.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/look_alikes.h"
#include "session.h"

namespace memframe::viewer {

// `label` with the look-alike's location and its via ("name <- callers",
// shortened as `memframe report` prints it; the whole via is in `name`).
SiteLabel WithLookAlike(SiteLabel label, const analysis::LookAlikeName& name);

class LookAlikeLabels {
 public:
  // Names the rows of one table (each stack id once).
  void Build(Session& session, const std::vector<uint32_t>& stack_ids);
  // Session::Label of a row, told apart from its look-alikes.
  const SiteLabel& Label(Session& session, uint32_t stack_id);
  // What tells the row apart ({} for a row not in the table).
  const analysis::LookAlikeName& Name(uint32_t stack_id) const;
  // For rows whose stacks part only inside a library the user frame called
  // (the callers cannot tell them apart: a table of stacks, not of site
  // groups, has them), the frame where the row parts from its closest
  // look-alike, "swrast_dri.so+0x6e12f4", and the stack id when even that
  // reads alike; "" for every other row. The label's name ends with
  // " in <it>".
  const std::string& Inside(uint32_t stack_id) const;

 private:
  void NameInsides(Session& session, const std::vector<uint32_t>& alike);

  std::unordered_map<uint32_t, analysis::LookAlikeName> names_;
  std::unordered_map<uint32_t, std::string> inside_;
  std::unordered_map<uint32_t, SiteLabel> labels_;
};

}  // namespace memframe::viewer
