// The row of module classes under the header: a toggle per class (what every
// view shows), each with its share of the allocations, and the rule editor
// (--module-class, editable).
#pragma once

#include <vector>

#include "memframe/analysis/module_class.h"
#include "session.h"

namespace memframe::viewer {

class ClassBar {
 public:
  // `rules` and `filter` are the app's, kept across refreshed sessions;
  // changes are applied to `session` at once. A preview's rules cannot be
  // edited (its classes come from the index, under the built-in rules).
  void Draw(Session& session, std::vector<analysis::ModuleClassRule>* rules, analysis::ClassFilter* filter);

 private:
  void DrawRuleEditor(Session& session, std::vector<analysis::ModuleClassRule>* rules);

  char pattern_[256] = {};
  int new_class_ = 0;
};

// Applies the app's rules and filter to a session just loaded.
void ApplyClassOptions(Session& session, const std::vector<analysis::ModuleClassRule>& rules,
                       const analysis::ClassFilter& filter);

}  // namespace memframe::viewer
