// The viewer's one window: a header with the capture's figures, the frame
// timeline, and a tab per analysis view below it. Owns the loader, the
// loaded session, the shared selection and the views.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "options.h"
#include "selection.h"
#include "session.h"
#include "session_loader.h"
#include "style.h"
#include "view.h"

namespace memframe::viewer {

class App {
 public:
  enum class Status { kEmpty, kLoading, kReady, kFailed };

  App(const ViewerOptions& options, const Fonts& fonts);

  void Open(const std::string& path);
  // Shows only `view` (screenshots): the timeline alone, or the timeline
  // strip above that view's tab.
  void FocusView(const std::string& view) { focus_view_ = view; }
  // Draws the whole window for one frame.
  void Draw();

  Status status() const { return status_; }
  const std::string& error() const { return error_; }

 private:
  void Poll();
  void ApplyInitialSelection();
  void DrawHeader();
  void DrawLoading();
  void DrawMessage(bool failed);
  void DrawViews();

  ViewerOptions options_;
  const Fonts& fonts_;
  Status status_ = Status::kEmpty;
  std::unique_ptr<SessionLoader> loader_;
  std::unique_ptr<Session> session_;
  std::string error_;
  Selection selection_;
  std::vector<std::unique_ptr<View>> views_;
  std::string focus_view_;
  char open_path_[1024] = {};
};

}  // namespace memframe::viewer
