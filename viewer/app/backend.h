// The window, the GL context and the ImGui platform/renderer backends, so
// that nothing else in the viewer knows about GLFW.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct GLFWwindow;  // GLFW stays out of every other file

namespace memframe::viewer {

struct BackendConfig {
  int width = 1280;
  int height = 800;
  std::string title = "memframe";
  // Hidden window drawing into its own framebuffer object: a screenshot must
  // not depend on the window being mapped or fitting on the screen.
  bool offscreen = false;
};

class Backend {
 public:
  Backend() = default;
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // Creates the window and the ImGui context. False with *error otherwise
  // (no display, no GL 3).
  bool Init(const BackendConfig& config, std::string* error);

  bool ShouldClose() const;
  // Polls input (waiting up to `idle_wait_seconds` for an event, 0 = don't
  // wait) and starts an ImGui frame.
  void NewFrame(double idle_wait_seconds);
  // Renders the ImGui frame and presents it.
  void Render();
  // Waits until the GL has drawn everything submitted (frame-time
  // measurements: a software renderer may otherwise defer the work).
  void Finish() const;
  // The last rendered frame, RGBA, top row first.
  bool ReadPixels(std::vector<uint8_t>* rgba, int* width, int* height) const;

 private:
  void Shutdown();

  GLFWwindow* window_ = nullptr;
  bool imgui_ready_ = false;
  BackendConfig config_;
  uint32_t fbo_ = 0, color_ = 0;
};

}  // namespace memframe::viewer
