#include "game_loop.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "entities.h"
#include "hud.h"
#include "level.h"
#include "particles.h"
#include "render.h"

namespace memframe::demo {
namespace {

constexpr long kMaxGameplayFrames = 1'000'000;

// Gameplay frame times for --frame-times, in microseconds. A static array,
// not a vector: measuring must not add an allocation to the figures in
// demo_truth.h (the benchmark compares frame times with and without memframe).
uint32_t g_frame_us[kMaxGameplayFrames];
// And when each ended, on the steady clock (CLOCK_MONOTONIC), for
// --frame-log: the attach benchmark finds the frames around an attach.
int64_t g_frame_end_us[kMaxGameplayFrames];

// One line per gameplay frame: "END_US LENGTH_US" (tests/bench/attach_pause.py).
// Before PrintFrameTimes, which reorders g_frame_us.
bool WriteFrameLog(const char* path, int count) {
  std::FILE* out = std::fopen(path, "w");
  if (!out) {
    std::fprintf(stderr, "memframe_demo_game: cannot write %s: %s\n", path, std::strerror(errno));
    return false;
  }
  for (int i = 0; i < count; ++i) std::fprintf(out, "%" PRId64 " %" PRIu32 "\n", g_frame_end_us[i], g_frame_us[i]);
  return std::fclose(out) == 0;
}

uint32_t Percentile(uint32_t* values, int count, double fraction) {
  if (count == 0) return 0;
  const int rank = std::min(count - 1, static_cast<int>(fraction * count));
  std::nth_element(values, values + rank, values + count);
  return values[rank];
}

// One line the benchmark parses (tests/bench/compare.py).
void PrintFrameTimes(int count) {
  const long max_at = std::max_element(g_frame_us, g_frame_us + count) - g_frame_us;
  const uint32_t max = count == 0 ? 0 : g_frame_us[max_at];
  const uint32_t p50 = Percentile(g_frame_us, count, 0.50);
  const uint32_t p99 = Percentile(g_frame_us, count, 0.99);
  std::printf("frame_time_us frames=%d p50=%" PRIu32 " p99=%" PRIu32 " max=%" PRIu32 " max_at_gameplay_frame=%ld\n",
              count, p50, p99, max, max_at);
}

void PrintUsage(std::FILE* stream) {
  std::fprintf(stream,
               "usage: memframe_demo_game [--frames N] [--quiet] [--frame-times] [--particle-trail]\n"
               "  --frames N     gameplay frames, 0..%ld (default %d)\n"
               "  --quiet        print nothing on success\n"
               "  --frame-times  print gameplay frame-time percentiles (us) at exit\n"
               "  --particle-trail  one more allocation per gameplay frame (EmitParticleTrail)\n"
               "  --wait-before-gameplay-frame K  before gameplay frame K, say so on stdout and wait\n"
               "                 for a line on stdin (memframe attach starts recording at a known frame);\n"
               "                 up to %d times, in ascending order\n"
               "  --frame-log FILE  at exit, write each gameplay frame's end (steady clock) and length (us)\n",
               kMaxGameplayFrames, kDefaultGameplayFrames, Options::kMaxWaits);
}

// Parses a frame number of an option; false (after saying why) if it is not one.
bool ParseFrameCount(const char* option, const char* text, int& out) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0 || value > kMaxGameplayFrames) {
    std::fprintf(stderr, "memframe_demo_game: %s needs a number in 0..%ld, got '%s'\n", option, kMaxGameplayFrames,
                 text);
    return false;
  }
  out = static_cast<int>(value);
  return true;
}

}  // namespace

bool ParseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quiet") == 0) {
      options.quiet = true;
    } else if (std::strcmp(argv[i], "--frame-times") == 0) {
      options.frame_times = true;
    } else if (kParticleTrailOption == argv[i]) {
      options.particle_trail = true;
    } else if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      if (!ParseFrameCount(argv[i], argv[i + 1], options.gameplay_frames)) return false;
      ++i;
    } else if (std::strcmp(argv[i], "--frame-log") == 0 && i + 1 < argc) {
      options.frame_log = argv[++i];
    } else if (std::strcmp(argv[i], "--wait-before-gameplay-frame") == 0 && i + 1 < argc) {
      int frame = 0;
      if (!ParseFrameCount(argv[i], argv[i + 1], frame)) return false;
      if (options.waits == Options::kMaxWaits ||
          (options.waits > 0 && frame <= options.waits_before_gameplay_frame[options.waits - 1])) {
        std::fprintf(stderr, "memframe_demo_game: --wait-before-gameplay-frame: at most %d, in ascending order\n",
                     Options::kMaxWaits);
        return false;
      }
      options.waits_before_gameplay_frame[options.waits++] = frame;
      ++i;
    } else {
      std::fprintf(stderr, "memframe_demo_game: unexpected argument '%s'\n", argv[i]);
      PrintUsage(stderr);
      return false;
    }
  }
  return true;
}

int RunGame(GameWindow& window, const Options& options) {
  int frames_rendered = 0;
  SetUpProjection();

  for (int title_frame = 0; title_frame < kTitleFrames; ++title_frame) {
    DrawTitleScreen(title_frame);
    window.EndFrame();
    ++frames_rendered;
  }

  // Frame kTitleFrames: the whole level arrives in one frame.
  DrawLoadingScreen();
  Level level = LoadLevel();
  window.EndFrame();
  ++frames_rendered;

  // Closing the window is the one thing that can shorten a run (never in
  // tests); the level is still unloaded so the shutdown path stays the same.
  Entities entities;
  using Clock = std::chrono::steady_clock;
  Clock::time_point frame_start = Clock::now();
  int timed_frames = 0;
  int next_wait = 0;
  for (int gameplay_frame = 0; gameplay_frame < options.gameplay_frames && !window.ShouldClose(); ++gameplay_frame) {
    if (next_wait < options.waits && gameplay_frame == options.waits_before_gameplay_frame[next_wait]) {
      ++next_wait;
      // stdio makes its buffers here, before the game blocks in read: an
      // attach meanwhile sees none of them, and the frame starts clean.
      std::printf("memframe_demo_game: waiting before gameplay frame %d\n", gameplay_frame);
      std::fflush(stdout);
      char line[64];
      if (!std::fgets(line, sizeof(line), stdin)) break;
      frame_start = Clock::now();
    }
    UpdateGameplay(entities, gameplay_frame);
    if (options.particle_trail) (void)EmitParticleTrail(gameplay_frame);
    {
      // Scoped so the string is freed before the swap, in the frame that built it.
      const std::string hud_text = BuildHudText(entities, gameplay_frame);
      DrawGameplay(entities, hud_text);
    }
    window.EndFrame();
    ++frames_rendered;
    // Swap to swap: the whole frame as the player sees it.
    const Clock::time_point frame_end = Clock::now();
    g_frame_end_us[timed_frames] =
        std::chrono::duration_cast<std::chrono::microseconds>(frame_end.time_since_epoch()).count();
    g_frame_us[timed_frames++] =
        static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(frame_end - frame_start).count());
    frame_start = frame_end;
  }
  if (options.frame_log) (void)WriteFrameLog(options.frame_log, timed_frames);
  if (options.frame_times) PrintFrameTimes(timed_frames);

  DestroyAllEntities(entities);
  UnloadLevel(level);
  DrawUnloadScreen();
  window.EndFrame();
  ++frames_rendered;
  return frames_rendered;
}

void PrintFramesRendered(int frames_rendered) {
  std::printf("memframe_demo_game: rendered %d frames (%d title, 1 load, %d gameplay, 1 unload)\n", frames_rendered,
              kTitleFrames, frames_rendered - TotalFrames(0));
}

}  // namespace memframe::demo
