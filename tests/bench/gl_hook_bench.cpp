// What the agent's GL hooks cost the render thread (issue 31, "Cost"): run
// natively, under `memframe run --no-gpu` and under `memframe run`, by
// tests/bench/gl_cost.py. Links nothing of memframe: the hooks are reached as
// in a game, by the linked GL calls the agent interposes.
//
//   gl_hook_bench --calls           ns per call of glBindTexture, glBufferData
//                                   (a 64-byte store redefined on one live
//                                   buffer: a reallocation each) and
//                                   glTexImage2D (a 4x4 RGBA8 image redefined),
//                                   the best of 15 runs of 20,000 / 2,000 calls
//   gl_hook_bench --frames N        a streaming game's frames: each makes
//                                   kBindsPerFrame binds, kStoresPerFrame
//                                   glBufferData on live buffers and
//                                   kImagesPerFrame texture images; prints
//                                   frame_time_us p50/p99 as the demo game does
//
// Timings are printed for people; nothing asserts one.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#define GL_GLEXT_PROTOTYPES  // glBufferData and glBindBuffer linked from libGL, as glBindTexture
#include <GLFW/glfw3.h>
#include <GL/glext.h>

namespace {

constexpr int kBindsPerFrame = 2000;
constexpr int kStoresPerFrame = 200;
constexpr int kImagesPerFrame = 8;
constexpr int kMaxFrames = 100000;

uint32_t g_frame_us[kMaxFrames];  // static: measuring adds no allocation
// The render thread's own CPU time in each frame: what the hooks add to it,
// apart from the time the writer and the recorder take from it on a busy
// machine (wall frame time counts both).
uint32_t g_frame_cpu_us[kMaxFrames];

int64_t ThreadCpuUs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

using Clock = std::chrono::steady_clock;

double NsPerCall(Clock::time_point start, int calls) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / calls;
}

// The best of `repeats` runs of `calls` calls: the cost without the noise
// of a busy machine's preemptions. A pause before each run lets memframe's
// writer drain what the last one queued: the GPU queue holds 4,096 events
// (agent/gpu/gpu_queue.h), and a hook that finds it full waits for the
// writer, which a burst of more than that between two writer passes (2 ms)
// would measure instead of the hook.
template <typename Body>
double BestNsPerCall(int repeats, int calls, Body body) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    glFinish();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto start = Clock::now();
    for (int i = 0; i < calls; ++i) body(i);
    best = std::min(best, NsPerCall(start, calls));
  }
  return best;
}

void MeasureCalls() {
  GLuint textures[2], buffer;
  glGenTextures(2, textures);
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  const double bind = BestNsPerCall(15, 20000, [&](int i) { glBindTexture(GL_TEXTURE_2D, textures[i & 1]); });
  const double store =
      BestNsPerCall(15, 2000, [&](int) { glBufferData(GL_ARRAY_BUFFER, 64, nullptr, GL_STREAM_DRAW); });
  glBindTexture(GL_TEXTURE_2D, textures[0]);
  const double image = BestNsPerCall(15, 2000, [&](int) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  });
  glDeleteTextures(2, textures);
  glDeleteBuffers(1, &buffer);
  std::printf("gl_call_ns bind_texture=%.1f buffer_data=%.1f tex_image_2d=%.1f\n", bind, store, image);
}

uint32_t Percentile(uint32_t* values, int count, double fraction) {
  const int rank = std::min(count - 1, static_cast<int>(fraction * count));
  std::nth_element(values, values + rank, values + count);
  return values[rank];
}

void PlayFrames(GLFWwindow* window, int frames) {
  GLuint textures[4], buffers[kStoresPerFrame];
  glGenTextures(4, textures);
  glGenBuffers(kStoresPerFrame, buffers);
  static unsigned char pixels[64 * 64 * 4];
  for (int frame = 0; frame < frames; ++frame) {
    const auto start = Clock::now();
    const int64_t cpu_start = ThreadCpuUs();
    for (int i = 0; i < kBindsPerFrame; ++i) glBindTexture(GL_TEXTURE_2D, textures[i & 3]);
    // Orphaning: each streamed buffer gets a fresh store every frame.
    for (int i = 0; i < kStoresPerFrame; ++i) {
      glBindBuffer(GL_ARRAY_BUFFER, buffers[i]);
      glBufferData(GL_ARRAY_BUFFER, 4096, nullptr, GL_STREAM_DRAW);
    }
    for (int i = 0; i < kImagesPerFrame; ++i) {
      glBindTexture(GL_TEXTURE_2D, textures[i & 3]);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    }
    glClear(GL_COLOR_BUFFER_BIT);
    glfwSwapBuffers(window);
    g_frame_us[frame] = static_cast<uint32_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
    g_frame_cpu_us[frame] = static_cast<uint32_t>(ThreadCpuUs() - cpu_start);
  }
  glDeleteBuffers(kStoresPerFrame, buffers);
  glDeleteTextures(4, textures);
  const int skip = std::min(frames / 10, 20);  // the first frames warm the driver's caches
  std::printf("frame_time_us frames=%d p50=%" PRIu32 " p99=%" PRIu32 " cpu_p50=%" PRIu32 " cpu_p99=%" PRIu32 "\n",
              frames - skip, Percentile(g_frame_us + skip, frames - skip, 0.50),
              Percentile(g_frame_us + skip, frames - skip, 0.99), Percentile(g_frame_cpu_us + skip, frames - skip, 0.50),
              Percentile(g_frame_cpu_us + skip, frames - skip, 0.99));
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 0;
  bool calls = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--calls") == 0) {
      calls = true;
    } else if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      frames = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: gl_hook_bench --calls | --frames N (N up to %d)\n", kMaxFrames);
      return 2;
    }
  }
  if ((!calls && frames <= 0) || frames > kMaxFrames) {
    std::fprintf(stderr, "usage: gl_hook_bench --calls | --frames N (N up to %d)\n", kMaxFrames);
    return 2;
  }
  if (!glfwInit()) return 1;
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow* window = glfwCreateWindow(320, 240, "memframe gl hook bench", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "gl_hook_bench: no GL 3.3 core context\n");
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(0);
  if (calls) MeasureCalls();
  if (frames > 0) PlayFrames(window, frames);
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
