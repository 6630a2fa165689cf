// The viewer's one window: a header with the capture's figures, the frame
// timeline, and a tab per analysis view below it. Owns the loader, the
// loaded session, the shared selection and the views.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "memframe/analysis/live_follow.h"
#include "options.h"
#include "selection.h"
#include "session.h"
#include "widgets/class_bar.h"
#include "session_loader.h"
#include "style.h"
#include "view.h"

namespace memframe::viewer {

class App {
 public:
  enum class Status { kEmpty, kLoading, kReady, kFailed };

  App(const ViewerOptions& options, const Fonts& fonts);

  void Open(const std::string& path);
  // Follows a run being recorded through its live socket: the views show
  // the run so far and are refreshed in the background as it grows.
  void Follow(const std::string& socket_path);
  // Shows only `view` (screenshots): the timeline alone, or the timeline
  // strip above that view's tab.
  void FocusView(const std::string& view) { focus_view_ = view; }
  // Draws the whole window for one frame.
  void Draw();

  Status status() const { return status_; }
  // Still loading: nothing on screen yet, or a preview (Session::preview())
  // while the whole capture loads.
  bool loading() const;
  // A view waits for work done off the UI thread (Session::working).
  bool working() const { return session_ && session_->working(); }
  // The loaded capture is damaged (its figures stop at the damage).
  bool damaged() const { return session_ && !session_->capture().damage.empty(); }
  const std::string& error() const { return error_; }
  std::string LoadingText() const;  // "loading: 42%"

 private:
  void Poll();
  // Puts a loaded session (or a preview) on screen.
  void Show(std::unique_ptr<Session> session);
  void PollFollow();
  void StartRefresh();
  void DrawFollowBar();
  void RequestSnapshot();
  void ApplyInitialSelection();
  void DrawHeader();
  void DrawLoading();
  void DrawMessage(bool failed);
  void DrawViews();
  // The tab Ctrl+Tab / Ctrl+Shift+Tab, Ctrl+PageDown / PageUp or Ctrl+1..9
  // asks for this frame, or -1.
  int TabShortcut() const;

  ViewerOptions options_;
  const Fonts& fonts_;
  Status status_ = Status::kEmpty;
  std::unique_ptr<SessionLoader> loader_;
  std::unique_ptr<Session> session_;
  std::string error_;
  Selection selection_;
  std::vector<std::unique_ptr<View>> views_;
  ClassBar class_bar_;
  std::string focus_view_;
  int current_tab_ = 0;  // the tab drawn last frame, and how many there are
  int tab_count_ = 0;
  char open_path_[1024] = {};

  // Following a run (--follow). loader_ is then the refresh in progress.
  std::unique_ptr<analysis::LiveFollower> follower_;
  std::chrono::steady_clock::time_point refresh_started_, next_refresh_, refreshed_at_;
  double last_build_seconds_ = 0;
  uint64_t built_records_ = 0;   // records the session on screen was built from
  uint64_t refresh_records_ = 0;  // records when the refresh in progress started
  bool follow_final_ = false;     // the run ended and the session holds all of it
  std::string follow_note_;       // why the last refresh failed, or what a snapshot request said
  char snapshot_name_[128] = {};
  int snapshots_asked_ = 0;
};

}  // namespace memframe::viewer
