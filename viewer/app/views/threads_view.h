// Who allocated, by thread (analysis::ThreadHistory over every thread's
// events), over the range picked (the whole capture when none is), with the
// rates per frame over its steady frames (thread_table.h); and the thread
// filter: ticking threads shows only theirs in every view, as --thread does.
#pragma once

#include <optional>

#include "thread_table.h"
#include "view.h"

namespace memframe::viewer {

class ThreadsView : public View {
 public:
  const char* name() const override { return "threads"; }
  const char* title() const override { return "Threads"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { table_.reset(); }

 private:
  const ThreadTable& Table(ViewContext& ctx);

  std::optional<ThreadTable> table_;
  const Session* table_session_ = nullptr;  // the model table_ was built from
  bool table_all_frames_ = false;           // Session::judge_all_frames() of table_
};

}  // namespace memframe::viewer
