// Who allocated, by thread (analysis::AnalyzeThreads over every thread's
// events), and the thread filter: ticking threads shows only theirs in
// every view, as --thread does.
#pragma once

#include "view.h"

namespace memframe::viewer {

class ThreadsView : public View {
 public:
  const char* name() const override { return "threads"; }
  const char* title() const override { return "Threads"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
};

}  // namespace memframe::viewer
