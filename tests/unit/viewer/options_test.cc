#include "options.h"

#include "selection.h"

#include <gtest/gtest.h>

#include <vector>

namespace memframe::viewer {
namespace {

bool Parse(std::vector<const char*> args, ViewerOptions* o, std::string* error) {
  args.insert(args.begin(), "memframe-viewer");
  return ParseViewerOptions(static_cast<int>(args.size()), args.data(), o, error);
}

TEST(ViewerOptions, Screenshot) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"c.mfc", "--screenshot", "x.png", "--view", "hidden", "--range", "10:20", "--size", "800x600"}, &o,
                    &error))
      << error;
  EXPECT_EQ(o.capture_path, "c.mfc");
  EXPECT_EQ(o.screenshot_path, "x.png");
  EXPECT_EQ(o.view, "hidden");
  ASSERT_TRUE(o.range);
  EXPECT_EQ(o.range->from, 10u);
  EXPECT_EQ(o.range->to, 20u);
  EXPECT_EQ(o.width, 800);
  EXPECT_EQ(o.height, 600);
}

// `--opt=value` is `--opt value`; a flag takes no value; --version parses.
TEST(ViewerOptions, ValuesAfterAnEqualsSignAndVersion) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"c.mfc", "--screenshot=x.png", "--view=hidden", "--range=10:20", "--search=a=b"}, &o, &error))
      << error;
  EXPECT_EQ(o.screenshot_path, "x.png");
  EXPECT_EQ(o.view, "hidden");
  ASSERT_TRUE(o.range);
  EXPECT_EQ(o.range->to, 20u);
  EXPECT_EQ(o.search, "a=b");
  ViewerOptions flag;
  EXPECT_FALSE(Parse({"c.mfc", "--all-frames=yes"}, &flag, &error));
  EXPECT_EQ(error, "--all-frames takes no value");
  ViewerOptions version;
  ASSERT_TRUE(Parse({"--version"}, &version, &error)) << error;
  EXPECT_TRUE(version.version);
}

// --first-picture stops a screenshot or the timeline's data at the first
// picture; only the timeline has one without the events.
TEST(ViewerOptions, FirstPicture) {
  std::string error;
  ViewerOptions dump, shot, other;
  ASSERT_TRUE(Parse({"c.mfc", "--dump-view-data", "timeline", "--first-picture"}, &dump, &error)) << error;
  EXPECT_TRUE(dump.first_picture);
  ASSERT_TRUE(Parse({"c.mfc", "--screenshot", "x.png", "--view", "leaks", "--first-picture"}, &shot, &error)) << error;
  EXPECT_TRUE(shot.first_picture);
  EXPECT_FALSE(Parse({"c.mfc", "--dump-view-data", "hidden", "--first-picture"}, &other, &error));
  EXPECT_EQ(error, "--first-picture goes with --screenshot or --dump-view-data timeline");
}

TEST(ViewerOptions, MeasureLoadingGoesWithMeasureFps) {
  ViewerOptions o, alone, first;
  std::string error;
  ASSERT_TRUE(Parse({"c.mfc", "--measure-fps", "5", "--view", "hidden", "--measure-loading"}, &o, &error)) << error;
  EXPECT_TRUE(o.measure_loading);
  EXPECT_EQ(o.measure_fps_seconds, 5);
  EXPECT_FALSE(Parse({"c.mfc", "--dump-view-data", "timeline", "--measure-loading"}, &alone, &error));
  EXPECT_EQ(error, "--measure-loading goes with --measure-fps, without --first-picture");
  EXPECT_FALSE(Parse({"c.mfc", "--measure-fps", "5", "--view", "timeline", "--measure-loading", "--first-picture"},
                     &first, &error));
  EXPECT_EQ(error, "--measure-loading goes with --measure-fps, without --first-picture");
}

TEST(ViewerOptions, FiltersAndFlame) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"c.mfc", "--dump-view-data", "flame", "--search", "Spawn", "--size-bin", "6", "--group-functions",
                     "--flame-metric", "live", "--flame-function", "LoadLevel"},
                    &o, &error))
      << error;
  EXPECT_EQ(o.search, "Spawn");
  EXPECT_EQ(o.size_bin, 6);
  EXPECT_TRUE(o.group_by_function);
  EXPECT_EQ(o.flame_metric, FlameMetric::kLiveBytes);
  EXPECT_EQ(o.flame_function, "LoadLevel");
  Selection selection;
  selection.Apply(o, analysis::FrameTable{});
  EXPECT_EQ(selection.search, "Spawn");
  EXPECT_EQ(selection.size_bin, 6);
  EXPECT_TRUE(selection.group_by_function);
  EXPECT_EQ(selection.flame_metric, FlameMetric::kLiveBytes);
  EXPECT_EQ(selection.flame_function, "LoadLevel");
  // Clearing the timeline's picks keeps the tables' filters.
  selection.SelectFrame(4);
  selection.Clear();
  EXPECT_FALSE(selection.frame);
  EXPECT_EQ(selection.search, "Spawn");
  EXPECT_EQ(selection.size_bin, 6);

  ViewerOptions bad1, bad2;
  EXPECT_FALSE(Parse({"c.mfc", "--size-bin", "65"}, &bad1, &error));
  EXPECT_NE(error.find("--size-bin"), std::string::npos);
  EXPECT_FALSE(Parse({"c.mfc", "--flame-metric", "heap"}, &bad2, &error));
  EXPECT_NE(error.find("--flame-metric"), std::string::npos);
}

TEST(ViewerOptions, Rejects) {
  std::string error;
  ViewerOptions o1, o2, o3, o4, o5;
  EXPECT_FALSE(Parse({"c.mfc", "--frame", "12x"}, &o1, &error));
  EXPECT_FALSE(Parse({"c.mfc", "--range", "20:10"}, &o2, &error));
  EXPECT_FALSE(Parse({"c.mfc", "--screenshot", "x.png"}, &o3, &error));  // no --view
  EXPECT_NE(error.find("--view"), std::string::npos);
  EXPECT_FALSE(Parse({"--dump-view-data", "leaks"}, &o4, &error));  // no capture
  EXPECT_FALSE(Parse({"c.mfc", "--size", "99999x2"}, &o5, &error));
}

// Bad values are refused with what was wrong; repeated options add up.
TEST(ViewerOptions, SaysWhatIsWrongWithAValue) {
  auto error_of = [](std::vector<const char*> args) {
    ViewerOptions o;
    std::string error;
    EXPECT_FALSE(Parse(args, &o, &error));
    return error;
  };
  EXPECT_EQ(error_of({"c.mfc", "--frame=12x"}), "--frame needs a frame number, got '12x'");
  EXPECT_EQ(error_of({"c.mfc", "--live-by", "site"}), "--live-by needs class or filter, got 'site'");
  EXPECT_EQ(error_of({"c.mfc", "--measure-fps=0", "--view", "timeline"}),
            "--measure-fps needs a number of seconds from 1 to 3600, got '0'");
  EXPECT_EQ(error_of({"c.mfc", "--zoom", "2"}), "unknown option '--zoom'");
  EXPECT_EQ(error_of({"c.mfc", "--view"}), "--view needs a value");
  EXPECT_EQ(error_of({"c.mfc", "--view", "hidden"}),
            "--view names the view --screenshot or --measure-fps renders; without them it would be ignored");
  EXPECT_EQ(error_of({"a.mfc", "b.mfc"}), "more than one capture given ('a.mfc' and 'b.mfc')");
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"--thread=main", "c.mfc", "--thread", "7"}, &o, &error)) << error;
  EXPECT_EQ(o.threads, (std::vector<std::string>{"main", "7"}));
  EXPECT_EQ(o.capture_path, "c.mfc");
  ViewerOptions help;
  ASSERT_TRUE(Parse({"c.mfc", "--help"}, &help, &error));
  EXPECT_TRUE(help.help);
}

// A frame or range past the capture's frames is an error, not an empty view.
TEST(ViewerOptions, PicksMustNameFramesOfTheCapture) {
  analysis::FrameTable frames;
  for (uint64_t f = 0; f < 10; ++f) frames.frames.push_back(analysis::FrameStats{.frame = f});
  ViewerOptions o;
  EXPECT_EQ(FramePicksProblem(o, frames), "");
  o.frame = 9;
  o.range = analysis::FrameRange{5, 50};
  EXPECT_EQ(FramePicksProblem(o, frames), "");
  o.frame = 10;
  EXPECT_EQ(FramePicksProblem(o, frames), "frame 10 is not in the capture (frames 0..9)");
  o.frame.reset();
  o.range_b = analysis::FrameRange{20, 30};
  EXPECT_EQ(FramePicksProblem(o, frames), "--range-b 20:30 holds no frame of the capture (frames 0..9)");
}

// --phase picks a phase as its timeline button does: B its frames, A the
// frame before; a phase the capture lacks, or --phase with --range, is an
// error.
TEST(ViewerOptions, PhaseSelectsItsFramesAndTheFrameBefore) {
  analysis::FrameTable frames;
  for (uint64_t f = 0; f < 10; ++f) frames.frames.push_back({.frame = f});
  analysis::Phase startup, load;
  startup.kind = analysis::PhaseKind::kStartup;
  startup.frames = {0, 3};
  load.kind = analysis::PhaseKind::kLoad;
  load.frames = {4, 9};
  load.frame_before = 3;
  frames.phases = {startup, load};
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"c.mfc", "--dump-view-data", "hidden", "--phase", "load 1"}, &o, &error)) << error;
  EXPECT_EQ(o.phase, "load 1");
  EXPECT_EQ(FramePicksProblem(o, frames), "");
  Selection selection;
  selection.Apply(o, frames);
  EXPECT_EQ(selection.range_b, (analysis::FrameRange{4, 9}));
  EXPECT_EQ(selection.range_a, (analysis::FrameRange{3, 3}));
  EXPECT_EQ(selection.PickedRange(frames.All()), (analysis::FrameRange{4, 9}));
  o.phase = "steady 1";
  EXPECT_EQ(FramePicksProblem(o, frames),
            "--phase: no phase \"steady 1\" in the capture (its phases: start-up, load 1; or a position 1..2)");
  o.phase = "2";
  o.range = analysis::FrameRange{0, 1};
  EXPECT_EQ(FramePicksProblem(o, frames), "--phase picks range A and B itself: drop --range and --range-b");
  ViewerOptions empty;
  EXPECT_FALSE(Parse({"c.mfc", "--phase="}, &empty, &error));
  EXPECT_EQ(error, "--phase needs a value");
}

}  // namespace
}  // namespace memframe::viewer
