#include "app.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <cstring>

#include <imgui.h>

#include "memframe/report/capture_notes.h"
#include "memframe/analysis/program_end.h"
#include "memframe/analysis/summary_index.h"
#include "memframe/paths.h"

#include "format.h"
#include "view_registry.h"

namespace memframe::viewer {

App::App(const ViewerOptions& options, const Fonts& fonts) : options_(options), fonts_(fonts), views_(MakeViews()) {
  if (!options.follow_socket.empty()) {
    Follow(options.follow_socket);
  } else if (!options.capture_path.empty()) {
    Open(options.capture_path);
  }
}

namespace {
// A refresh waits at least this long after the previous one, and at least
// kRefreshBackoff times as long as that one took: rebuilding the run so far
// then takes at most 1 / (1 + kRefreshBackoff) of a core, however long the
// game runs (live_follow.h says why the model is rebuilt, not appended to).
constexpr double kRefreshMinSeconds = 1.0;
constexpr double kRefreshBackoff = 4.0;
}  // namespace

void App::Follow(const std::string& socket_path) {
  loader_.reset();
  session_.reset();
  views_ = MakeViews();
  selection_.Clear();
  error_.clear();
  follow_final_ = false;
  built_records_ = 0;
  follower_ = analysis::LiveFollower::Start(socket_path, &error_);
  if (!follower_) {
    status_ = Status::kFailed;
    ErrorLine(std::cerr, "memframe-viewer") << error_ << '\n';
    return;
  }
  std::snprintf(open_path_, sizeof open_path_, "%s", follower_->capture_path().c_str());
  status_ = Status::kLoading;
  StartRefresh();
}

void App::StartRefresh() {
  analysis::LiveFollower::Status s = follower_->status();
  refresh_records_ = s.records;
  follow_final_ = s.ended;  // this build holds the whole run
  refresh_started_ = std::chrono::steady_clock::now();
  // A refresh keeps the threads picked since (by TID: the run's threads
  // only grow).
  loader_ = std::make_unique<SessionLoader>(follower_->capture_path(), follower_.get(),
                                            session_ ? session_->PendingThreadTids() : options_.threads);
}

void App::PollFollow() {
  auto now = std::chrono::steady_clock::now();
  if (loader_) {
    SessionLoader::State state = loader_->state();
    if (state == SessionLoader::State::kLoading) return;
    last_build_seconds_ = std::chrono::duration<double>(now - refresh_started_).count();
    if (state == SessionLoader::State::kReady) {
      // The old session stays alive until every view has let go of it.
      std::unique_ptr<Session> old = std::move(session_);
      session_ = loader_->Take();
      ApplyClassOptions(*session_, options_.module_class_rules, options_.classes);
      session_->SetJudgeAllFrames(old ? old->judge_all_frames() : options_.all_frames);
      for (auto& view : views_) view->OnSessionChanged();
      if (!old) {
        ApplyInitialSelection();
        if (!session_->capture().damage.empty())
          std::fprintf(stderr, "memframe-viewer: warning: %s\n", session_->capture().damage.c_str());
      }
      status_ = Status::kReady;
      built_records_ = refresh_records_;
      refreshed_at_ = now;
      follow_note_.clear();
    } else {
      // Before the program's first events there is nothing to show yet;
      // later, a failed refresh keeps the previous model on screen.
      follow_note_ = loader_->error();
      if (follow_final_ && !session_) {
        error_ = follow_note_;
        status_ = Status::kFailed;
        ErrorLine(std::cerr, "memframe-viewer") << error_ << '\n';
      }
    }
    loader_.reset();
    double wait = std::max(kRefreshMinSeconds, kRefreshBackoff * last_build_seconds_);
    next_refresh_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(wait));
    return;
  }
  if (follow_final_ && session_) return;
  analysis::LiveFollower::Status s = follower_->status();
  // The end of the run is shown at once: the user is waiting for it.
  if ((now >= next_refresh_ || s.ended) && (s.records != built_records_ || s.ended)) StartRefresh();
}

void App::RequestSnapshot() {
  if (!follower_) return;
  std::string error;
  if (follower_->status().ended) {
    follow_note_ = "the run is over: nothing left to mark";
  } else if (follower_->RequestSnapshot(snapshot_name_, &error)) {
    ++snapshots_asked_;
    follow_note_ = "marked: the snapshot appears in the capture and on the timeline at the next refresh";
    snapshot_name_[0] = '\0';
  } else {
    follow_note_ = error;
  }
}

void App::DrawFollowBar() {
  analysis::LiveFollower::Status s = follower_->status();
  if (s.ended) {
    ImGui::TextColored(palette::kDimText, "run ended");
  } else {
    ImGui::TextColored(ImVec4(1.0f, 0.35f, 0.3f, 1), "LIVE");
  }
  ImGui::SameLine();
  double age = std::chrono::duration<double>(std::chrono::steady_clock::now() - refreshed_at_).count();
  ImGui::TextColored(palette::kDimText, "%s records, shown %.0f s ago (built in %.1f s)",
                     FormatCount(s.records).c_str(), session_ ? age : 0.0, last_build_seconds_);
  if (!s.ended) {
    ImGui::SameLine(0, 20);
    ImGui::SetNextItemWidth(160);
    ImGui::InputTextWithHint("##snapshot_name", "snapshot name (auto)", snapshot_name_, sizeof snapshot_name_);
    ImGui::SameLine();
    // Ctrl+M: the GLFW backend indexes KeysDown by GLFW key codes, which are
    // ASCII for letters (ImGui 1.86 has no named key for M).
    bool shortcut = ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('M', false);
    if (ImGui::Button("Snapshot now") || shortcut) RequestSnapshot();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Mark this moment (Ctrl+M); diff two marks with `memframe report CAPTURE diff A B`");
  }
  if (!s.error.empty() || !follow_note_.empty()) {
    ImGui::SameLine(0, 20);
    ImGui::TextColored(palette::kDimText, "%s", !s.error.empty() ? s.error.c_str() : follow_note_.c_str());
  }
}


void App::Open(const std::string& path) {
  // The old loader (if any) stops and joins before the new one starts.
  loader_.reset();
  session_.reset();
  views_ = MakeViews();  // view state (sort, selection) belongs to one capture
  selection_.Clear();
  error_.clear();
  loader_ = std::make_unique<SessionLoader>(path, options_.threads, options_.first_picture);
  status_ = Status::kLoading;
  std::snprintf(open_path_, sizeof open_path_, "%s", path.c_str());
}

void App::Poll() {
  if (session_ && session_->PollThreads()) {
    for (auto& view : views_) view->OnSessionChanged();
  }
  if (follower_) {
    PollFollow();
    return;
  }
  // A preview on screen is replaced by the whole session when it is done.
  const bool previewing = status_ == Status::kReady && session_ && session_->preview() && loader_;
  if (status_ != Status::kLoading && !previewing) return;
  switch (loader_->state()) {
    case SessionLoader::State::kLoading:
      if (!previewing) {
        if (std::unique_ptr<Session> preview = loader_->TakePreview()) Show(std::move(preview));
      }
      return;
    case SessionLoader::State::kReady:
      if (std::unique_ptr<Session> whole = loader_->Take()) Show(std::move(whole));
      return;
    case SessionLoader::State::kFailed:
      error_ = loader_->error();
      status_ = Status::kFailed;
      session_.reset();
      ErrorLine(std::cerr, "memframe-viewer") << error_ << '\n';
      return;
  }
}

void App::Show(std::unique_ptr<Session> session) {
  const bool first = !session_;
  // The preview stays alive until every view has let go of it.
  std::unique_ptr<Session> old = std::move(session_);
  session_ = std::move(session);
  ApplyClassOptions(*session_, options_.module_class_rules, options_.classes);
  session_->SetJudgeAllFrames(old ? old->judge_all_frames() : options_.all_frames);
  status_ = Status::kReady;
  if (!first) {
    for (auto& view : views_) view->OnSessionChanged();
    return;  // the picks on screen stay: the frames are the same
  }
  error_ = FramePicksProblem(options_, session_->frames());
  if (!error_.empty()) {
    status_ = Status::kFailed;
    ErrorLine(std::cerr, "memframe-viewer") << error_ << '\n';
    return;
  }
  ApplyInitialSelection();
  if (!session_->capture().damage.empty())
    std::fprintf(stderr, "memframe-viewer: warning: %s\n", session_->capture().damage.c_str());
}

bool App::loading() const {
  return status_ == Status::kLoading ||
         (session_ && session_->preview() && loader_ && loader_->state() == SessionLoader::State::kLoading);
}

std::string App::LoadingText() const {
  if (!loader_) return "waiting for the program";
  return "loading: " + std::to_string(SessionLoader::Percent(loader_->progress())) + "%";
}

void App::ApplyInitialSelection() {
  selection_.Apply(options_, session_->frames());
}

void App::Draw() {
  Poll();
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  // No background: Backend::Render clears to the same colour, and filling
  // the whole window once more costs a software renderer a full-screen pass.
  ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                           ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground;
  ImGui::Begin("memframe", nullptr, flags);
  DrawHeader();
  switch (status_) {
    case Status::kEmpty: DrawMessage(false); break;
    case Status::kLoading: DrawLoading(); break;
    case Status::kFailed: DrawMessage(true); break;
    case Status::kReady: DrawViews(); break;
  }
  ImGui::End();
}

void App::DrawHeader() {
  ImGui::TextColored(ImVec4(0.55f, 0.75f, 1.0f, 1), "memframe");
  ImGui::SameLine();
  if (status_ != Status::kReady) {
    bool none = options_.capture_path.empty() && options_.follow_socket.empty();
    ImGui::TextColored(palette::kDimText, "%s", none ? "no capture" : open_path_);
    if (follower_) DrawFollowBar();
    ImGui::Separator();
    return;
  }
  const analysis::Capture& capture = session_->capture();
  const analysis::HeapAnalysis& heap = session_->heap();
  const std::string& exe = capture.main.process.executable;
  ImGui::TextUnformatted(Basename(exe).c_str());
  ImGui::SameLine();
  ImGui::TextColored(palette::kDimText, "pid %u  \xE2\x80\x94  %s", capture.main.process.pid, capture.path.c_str());
  auto figure = [](const char* label, const std::string& value) {
    ImGui::SameLine(0, 20);
    ImGui::TextColored(palette::kDimText, "%s", label);
    ImGui::SameLine();
    ImGui::TextUnformatted(value.c_str());
  };
  // Frames rendered, as the CLI says it (the frame table also holds the
  // partial frame after the last present).
  figure("frames", FormatCount(heap.frames.frames_rendered));
  figure("allocations", FormatCount(heap.allocations) + " (" + FormatBytes(heap.bytes_allocated) + ")");
  figure("peak live", FormatBytes(heap.peak_live_bytes) + " in frame " + std::to_string(heap.peak_live_frame));
  // While the game runs, what is not freed yet is not a leak, nor after a
  // kill or a detach: only an exit says nothing would have freed it.
  const analysis::ProgramEnd end = analysis::HowProgramEnded(capture);
  figure(follower_ && !follow_final_ ? "live now" : analysis::LiveAtEndWord(end), FormatBytes(heap.leaks.total_bytes));
  if (!follower_ || follow_final_) {
    ImGui::SameLine();
    ImGui::TextColored(palette::kDimText, "(%s)", analysis::DescribeProgramEnd(end).c_str());
  }
  if (follower_) {
    DrawFollowBar();
  } else if (!capture.damage.empty()) {
    ImGui::TextColored(palette::kWarning, "Damaged capture, showing everything before the damage: %s",
                       capture.damage.c_str());
  } else if (!capture.complete()) {
    ImGui::TextColored(palette::kWarning, "The program did not end cleanly: the capture stops at its last event.");
  }
  // As `memframe report` says them.
  if (const std::string attach = analysis::DescribeAttach(capture); !attach.empty())
    ImGui::TextColored(palette::kDimText, "%s", attach.c_str());
  for (const std::string& note : analysis::CaptureNotes(capture, heap))
    ImGui::TextColored(palette::kWarning, "note: %s", note.c_str());
  // A preview's class toggles come from its index (they name every site);
  // one without them waits for the whole load.
  if (session_->HasClassSeries()) class_bar_.Draw(*session_, &options_.module_class_rules, &options_.classes);
  if (session_->preview() && loading())
    ImGui::TextColored(palette::kWarning, "%s (the timeline is from %s; the tabs wait for the events)",
                       LoadingText().c_str(), analysis::SummaryIndexPath(capture.path).c_str());
  if (!session_->pending_threads().empty()) {
    ImGui::SameLine(0, 24);
    ImGui::TextColored(palette::kWarning, "Threads: %s only%s",
                       analysis::DescribeThreads(capture.main, session_->pending_threads()).c_str(),
                       session_->threads_rebuilding() ? " (applyingâ¦)" : "");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Every view shows these threads' allocations; change it in the Threads tab");
  }
  ImGui::Separator();
}

void App::DrawLoading() {
  if (!loader_) {  // following a run whose program has sent nothing yet
    ImGui::Spacing();
    ImGui::TextUnformatted("Waiting for the program's first events\xE2\x80\xA6");
    return;
  }
  SessionLoader::Progress p = loader_->progress();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float width = std::min(520.0f, avail.x - 40);
  ImGui::SetCursorPos(ImVec2((ImGui::GetWindowWidth() - width) / 2, ImGui::GetCursorPosY() + avail.y * 0.35f));
  ImGui::BeginGroup();
  ImGui::Text("%s\xE2\x80\xA6", PhaseName(p.phase));
  float fraction = 0;
  std::string overlay;
  if (p.phase == SessionLoader::Phase::kSymbolizing && p.total) {
    fraction = static_cast<float>(p.done) / p.total;
    overlay = FormatCount(p.done) + " / " + FormatCount(p.total) + " call sites";
  } else {
    // The file is compressed, so how much of it is read is unknown: an
    // indeterminate bar (a moving band) with what was decoded so far.
    fraction = -1.0f * static_cast<float>(ImGui::GetTime());
    overlay = FormatCount(p.records) + " records, " + FormatBytes(p.record_bytes) + " decoded from a " +
              FormatBytes(p.file_bytes) + " file";
  }
  if (fraction < 0) {
    ImVec2 pos = ImGui::GetCursorScreenPos();
    ImVec2 size(width, ImGui::GetFrameHeight());
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(pos, ImVec2(pos.x + size.x, pos.y + size.y), ImGui::GetColorU32(ImGuiCol_FrameBg), 3);
    float t = std::fmod(static_cast<float>(ImGui::GetTime()) * 0.6f, 1.3f) - 0.3f;
    float x0 = pos.x + size.x * std::max(0.0f, t), x1 = pos.x + size.x * std::min(1.0f, t + 0.3f);
    draw->AddRectFilled(ImVec2(x0, pos.y), ImVec2(x1, pos.y + size.y), ImGui::GetColorU32(ImGuiCol_PlotHistogram), 3);
    ImGui::Dummy(size);
  } else {
    ImGui::ProgressBar(fraction, ImVec2(width, 0), "");
  }
  ImGui::TextColored(palette::kDimText, "%s", overlay.c_str());
  ImGui::EndGroup();
}

void App::DrawMessage(bool failed) {
  ImGui::Spacing();
  if (failed) {
    ImGui::TextColored(palette::kError, "Cannot open the capture");
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(error_.c_str());
    ImGui::PopTextWrapPos();
  } else {
    ImGui::TextUnformatted("Open a capture recorded with `memframe run -o FILE -- GAME`.");
  }
  ImGui::Spacing();
  ImGui::SetNextItemWidth(480);
  bool enter = ImGui::InputText("##path", open_path_, sizeof open_path_, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("Open") || enter) && open_path_[0]) {
    options_.capture_path = open_path_;
    Open(open_path_);
  }
}

int App::TabShortcut() const {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.KeyCtrl || tab_count_ == 0) return -1;
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key, false); };
  const bool next = pressed(ImGui::GetKeyIndex(ImGuiKey_Tab)) ? !io.KeyShift : false;
  const bool previous = pressed(ImGui::GetKeyIndex(ImGuiKey_Tab)) ? io.KeyShift : false;
  if (next || pressed(ImGui::GetKeyIndex(ImGuiKey_PageDown))) return (current_tab_ + 1) % tab_count_;
  if (previous || pressed(ImGui::GetKeyIndex(ImGuiKey_PageUp))) return (current_tab_ + tab_count_ - 1) % tab_count_;
  // Ctrl+1 .. Ctrl+9: GLFW key codes are ASCII for digits.
  for (int n = 1; n <= 9 && n <= tab_count_; ++n)
    if (pressed('0' + n)) return n - 1;
  return -1;
}

void App::DrawViews() {
  ViewContext ctx{*session_, selection_, fonts_};
  View* timeline = views_.front().get();
  if (focus_view_ == timeline->name()) {
    timeline->Draw(ctx);
    return;
  }
  // The timeline (its bars and the live-memory graph) keeps about half the
  // window: enough to aim a click at one frame and read the memory held,
  // and the views below get the rest.
  const float height = std::clamp(ImGui::GetContentRegionAvail().y * 0.48f, 260.0f, 540.0f);
  ImGui::BeginChild("timeline", ImVec2(0, height), false);
  timeline->Draw(ctx);
  ImGui::EndChild();
  if (!ImGui::BeginTabBar("views")) return;
  const int wanted = TabShortcut();
  int tab = 0;
  for (auto& view : views_) {
    if (!view->is_tab()) continue;
    ImGuiTabItemFlags tab_flags = focus_view_ == view->name() || wanted == tab ? ImGuiTabItemFlags_SetSelected : 0;
    if (ImGui::BeginTabItem(view->title(), nullptr, tab_flags)) {
      current_tab_ = tab;
      ImGui::BeginChild(view->name(), ImVec2(0, 0), false);
      const char* refusal = analysis::ThreadFilterRefusal(view->name());
      if (session_->preview()) {
        ImGui::TextColored(palette::kDimText, "%s", loading() ? LoadingText().c_str() : "first picture only");
        if (loading()) ImGui::ProgressBar(SessionLoader::Percent(loader_->progress()) / 100.0f, ImVec2(320, 0), "");
      } else if (refusal && !session_->thread_selection().empty()) {
        ImGui::TextColored(palette::kWarning, "%s cannot show a thread selection: %s. Show every thread in the "
                           "Threads tab.", view->title(), refusal);
      } else {
        view->Draw(ctx);
      }
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    ++tab;
  }
  tab_count_ = tab;
  ImGui::EndTabBar();
}

}  // namespace memframe::viewer
