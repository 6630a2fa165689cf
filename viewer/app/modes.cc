#include "modes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include <imgui.h>

#include "app.h"
#include "memframe/analysis/live_set_at.h"
#include "memframe/report/report.h"
#include "backend.h"
#include "png_writer.h"
#include "session_loader.h"
#include "view_json.h"
#include "view_registry.h"

namespace memframe::viewer {

namespace {

bool CheckView(const std::string& name) {
  if (IsViewName(name)) return true;
  ErrorLine(std::cerr, "memframe-viewer") << "unknown view '" << name << "' (views: " << ViewNameList() << ")\n";
  return false;
}

// Tables size their columns from the previous frames' contents, and a tab
// selected this frame is drawn from the next one: a few frames settle the
// layout before the picture is taken.
constexpr int kSettleFrames = 4;

// An offscreen framebuffer of the asked size (--screenshot, --measure-fps);
// false after saying why.
bool InitOffscreen(const ViewerOptions& options, Backend& backend) {
  BackendConfig config;
  config.width = options.width;
  config.height = options.height;
  config.offscreen = true;
  std::string error;
  if (backend.Init(config, &error)) return true;
  ErrorLine(std::cerr, "memframe-viewer") << error << '\n';
  return false;
}

// Draws until the capture is loaded, the views' work off the UI thread is
// done (the lifetime advice) and the layout has settled; false if
// loading failed (App already said why on stderr). `preview_will_do`: a
// preview is enough (--measure-loading measures what comes after it).
bool LoadAndSettle(App& app, Backend& backend, bool preview_will_do = false) {
  for (int settled = 0; settled < kSettleFrames;) {
    // While work goes on behind the window, the window idles as the
    // interactive one does (drawn flat out, a software renderer took the
    // cores from it: 3 minutes for a 2.5 s replay).
    backend.NewFrame(app.loading() ? 0.01 : app.working() ? 0.1 : 0);
    app.Draw();
    backend.Render();
    if (app.status() == App::Status::kFailed) return false;
    // A preview is the picture only with --first-picture (the loader then stops at it).
    if (app.status() == App::Status::kReady && (preview_will_do || (!app.loading() && !app.working()))) settled++;
  }
  return true;
}

// The shared start of --screenshot and --measure-fps: the view asked for,
// in an offscreen framebuffer, with its capture loaded and its layout
// settled; then `body(app, backend)` gives the exit status.
template <typename Body>
int WithSettledView(const ViewerOptions& options, Body body) {
  if (!CheckView(options.view)) return kExitMemframeError;
  Backend backend;
  if (!InitOffscreen(options, backend)) return 1;
  Fonts fonts = SetUpStyle();
  App app(options, fonts);
  app.FocusView(options.view);
  if (!LoadAndSettle(app, backend, options.measure_loading)) return 1;
  return body(app, backend);
}

}  // namespace

int RunInteractive(const ViewerOptions& options) {
  Backend backend;
  std::string error;
  BackendConfig config;
  config.width = options.width;
  config.height = options.height;
  config.title = options.capture_path.empty() ? "memframe" : "memframe \xE2\x80\x94 " + options.capture_path;
  if (!backend.Init(config, &error)) {
    ErrorLine(std::cerr, "memframe-viewer") << error << '\n';
    return 1;
  }
  Fonts fonts = SetUpStyle();
  App app(options, fonts);
  while (!backend.ShouldClose()) {
    // Sleep until input arrives, but wake often enough to animate loading.
    backend.NewFrame(app.loading() ? 1.0 / 30 : 0.25);
    app.Draw();
    backend.Render();
  }
  return 0;
}

int RunScreenshot(const ViewerOptions& options) {
  return WithSettledView(options, [&](App& app, Backend& backend) {
    std::string error;
    std::vector<uint8_t> pixels;
    int width = 0, height = 0;
    if (!backend.ReadPixels(&pixels, &width, &height)) {
      ErrorLine(std::cerr, "memframe-viewer") << "cannot read back the rendered image\n";
      return 1;
    }
    if (!WritePng(options.screenshot_path, {options.capture_path}, pixels, width, height, &error)) {
      ErrorLine(std::cerr, "memframe-viewer") << error << '\n';
      return 1;
    }
    // The picture of a damaged capture is drawn (the loader warned), but
    // exits 1 as `memframe report` does: a script must not take it as whole.
    return app.damaged() ? 1 : 0;
  });
}

namespace {
// CPU time of the whole process (every thread: a software renderer's too),
// which a busy machine disturbs less than the wall clock.
double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}
}  // namespace

namespace {
struct FrameTimes {
  std::vector<double> ms;
  double seconds = 0;
  void Print(const std::string& what) const {
    if (ms.empty()) return;
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    auto percentile = [&](double p) { return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()))]; };
    std::printf("%s: %zu frames in %.1f s, %.1f fps, frame time p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", what.c_str(),
                ms.size(), seconds, ms.size() / seconds, percentile(0.50), percentile(0.99), sorted.back());
  }
};
}  // namespace

int RunMeasureFps(const ViewerOptions& options) {
  // Load (not measured; with --measure-loading, only up to the first
  // picture), then settle the layout, then draw continuously.
  return WithSettledView(options, [&](App& app, Backend& backend) {
    using Clock = std::chrono::steady_clock;
    const auto span = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options.measure_fps_seconds));
    FrameTimes loading, after, all;
    // The slowest frames, and when: a stall has a place in the load.
    struct Slow {
      double ms, draw_ms, at_s;
      std::string loading;  // "loading: N%", "" once loaded
    };
    std::vector<Slow> slow;
    double swap_ms = -1;  // the frame that replaced the preview by the whole session
    uint64_t vertices = 0;  // what a GPU would be sent
    const double cpu_start = ProcessCpuSeconds();
    const auto start = Clock::now();
    auto end = start + span;
    bool was_loading = options.measure_loading && app.loading();
    // --measure-loading paces the frames as the window does while it loads
    // (one every 1/30 s at most, RunInteractive), so that the load gets the
    // cores a window leaves it, and times each frame's drawing alone.
    const bool paced = options.measure_loading;
    for (auto last = start; was_loading || last < end;) {
      if (paced) {
        std::this_thread::sleep_for(std::chrono::microseconds(1000000 / 30));
        last = Clock::now();
      }
      const std::string phase = was_loading ? app.LoadingText() : "";
      backend.NewFrame(0);
      const auto drawing = Clock::now();
      app.Draw();
      const double draw_ms = std::chrono::duration<double, std::milli>(Clock::now() - drawing).count();
      backend.Render();
      backend.Finish();
      vertices += static_cast<uint64_t>(ImGui::GetDrawData()->TotalVtxCount);
      auto now = Clock::now();
      const double ms = std::chrono::duration<double, std::milli>(now - last).count();
      const bool still = was_loading && app.loading();
      (was_loading ? loading : after).ms.push_back(ms);
      all.ms.push_back(ms);
      slow.push_back({ms, draw_ms, std::chrono::duration<double>(now - start).count(), phase});
      if (was_loading && !still) {
        swap_ms = ms;
        end = now + span;
        loading.seconds = std::chrono::duration<double>(now - start).count();
      }
      was_loading = still;
      last = now;
    }
    all.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    after.seconds = all.seconds - loading.seconds;
    const double cpu_ms_per_frame = (ProcessCpuSeconds() - cpu_start) * 1000 / all.ms.size();
    all.Print("view " + options.view);
    std::printf("cpu %.2f ms/frame (all threads), %llu vertices/frame\n", cpu_ms_per_frame,
                static_cast<unsigned long long>(vertices / all.ms.size()));
    if (options.measure_loading) {
      loading.Print("while loading behind the first picture");
      after.Print("after the load");
      if (swap_ms >= 0) std::printf("the frame that showed the whole session: %.2f ms\n", swap_ms);
      std::sort(slow.begin(), slow.end(), [](const Slow& a, const Slow& b) { return a.ms > b.ms; });
      for (size_t i = 0; i < std::min<size_t>(5, slow.size()); ++i)
        std::printf("slow frame: %.2f ms (App::Draw %.2f ms) at %.2f s (%s)\n", slow[i].ms, slow[i].draw_ms,
                    slow[i].at_s, slow[i].loading.empty() ? "loaded" : slow[i].loading.c_str());
    }
    return 0;
  });
}

int RunDumpViewData(const ViewerOptions& options) {
  if (!CheckView(options.dump_view)) return kExitMemframeError;
  if (const char* refusal = analysis::ThreadFilterRefusal(options.dump_view); refusal && !options.threads.empty()) {
    ErrorLine(std::cerr, "memframe-viewer") << "view '" << options.dump_view << "' cannot honour --thread: " << refusal
                                            << '\n';
    return kExitMemframeError;
  }
  SessionLoader loader(options.capture_path, options.threads, options.first_picture);
  if (loader.Wait() != SessionLoader::State::kReady) {
    ErrorLine(std::cerr, "memframe-viewer") << loader.error() << '\n';
    return loader.bad_threads() ? kExitMemframeError : 1;
  }
  std::unique_ptr<Session> session = loader.Take();
  ApplyClassOptions(*session, options.module_class_rules, options.classes);
  session->SetJudgeAllFrames(options.all_frames);
  if (std::string problem = FramePicksProblem(options, session->frames()); !problem.empty()) {
    ErrorLine(std::cerr, "memframe-viewer") << problem << '\n';
    return kExitMemframeError;
  }
  Selection selection;
  selection.Apply(options, session->frames());
  // A marker that is not in the capture is a usage error, as in the CLI.
  for (const std::string* marker : {&options.diff_a, &options.diff_b}) {
    if (marker->empty()) continue;
    std::string error;
    if (!analysis::ResolveCut(session->capture().main, *marker, session->frames(), &error)) {
      ErrorLine(std::cerr, "memframe-viewer") << error << '\n';
      return kExitMemframeError;
    }
  }
  Fonts no_fonts;
  ViewContext ctx{*session, selection, no_fonts};
  for (auto& view : MakeViews()) {
    if (options.dump_view != view->name()) continue;
    nlohmann::json data = view->Data(ctx);
    data["header"] = HeaderJson(*session);
    data["preview"] = session->preview();  // drawn from the summary index (--first-picture)
    std::cout << data.dump(2) << "\n";
  }
  // A damaged capture is said and exits 1, as `memframe report` does.
  return analysis::FinishWithDamage(session->capture(), std::cerr, "memframe-viewer", &session->heap());
}

}  // namespace memframe::viewer
