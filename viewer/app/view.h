// A tool window: a struct of its own state plus Draw() (ImGui demo style),
// and Data(), the JSON of what Draw() shows, for --dump-view-data and tests.
// A new analysis view is one more View subclass and one line in
// view_registry.cc.
#pragma once

#include <nlohmann/json.hpp>

#include "selection.h"
#include "session.h"
#include "style.h"

namespace memframe::viewer {

struct ViewContext {
  Session& session;
  Selection& selection;
  const Fonts& fonts;  // empty in --dump-view-data mode (no window)
};

class View {
 public:
  virtual ~View() = default;
  virtual const char* name() const = 0;   // the --view / --dump-view-data name
  virtual const char* title() const = 0;  // the tab label
  // False for the timeline, which is drawn above the tabs.
  virtual bool is_tab() const { return true; }
  virtual void Draw(ViewContext& ctx) = 0;
  virtual nlohmann::json Data(ViewContext& ctx) = 0;
  // The session was replaced by a newer model of the same run (following a
  // run live): drop what was computed from the old one, keep the user's
  // picks (selected rows, sort, options).
  virtual void OnSessionChanged() {}
};

}  // namespace memframe::viewer
