#include "backend.h"

#include <GL/gl.h>
#include <GL/glext.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <cstring>

namespace memframe::viewer {

namespace {

// Framebuffer objects are GL 3.0 entry points: fetched at run time, like the
// ImGui OpenGL3 backend does for its own.
struct FboApi {
  PFNGLGENFRAMEBUFFERSPROC GenFramebuffers = nullptr;
  PFNGLBINDFRAMEBUFFERPROC BindFramebuffer = nullptr;
  PFNGLFRAMEBUFFERRENDERBUFFERPROC FramebufferRenderbuffer = nullptr;
  PFNGLCHECKFRAMEBUFFERSTATUSPROC CheckFramebufferStatus = nullptr;
  PFNGLDELETEFRAMEBUFFERSPROC DeleteFramebuffers = nullptr;
  PFNGLGENRENDERBUFFERSPROC GenRenderbuffers = nullptr;
  PFNGLBINDRENDERBUFFERPROC BindRenderbuffer = nullptr;
  PFNGLRENDERBUFFERSTORAGEPROC RenderbufferStorage = nullptr;
  PFNGLDELETERENDERBUFFERSPROC DeleteRenderbuffers = nullptr;

  bool Load() {
    auto get = [](const char* name) { return glfwGetProcAddress(name); };
    GenFramebuffers = reinterpret_cast<PFNGLGENFRAMEBUFFERSPROC>(get("glGenFramebuffers"));
    BindFramebuffer = reinterpret_cast<PFNGLBINDFRAMEBUFFERPROC>(get("glBindFramebuffer"));
    FramebufferRenderbuffer = reinterpret_cast<PFNGLFRAMEBUFFERRENDERBUFFERPROC>(get("glFramebufferRenderbuffer"));
    CheckFramebufferStatus = reinterpret_cast<PFNGLCHECKFRAMEBUFFERSTATUSPROC>(get("glCheckFramebufferStatus"));
    DeleteFramebuffers = reinterpret_cast<PFNGLDELETEFRAMEBUFFERSPROC>(get("glDeleteFramebuffers"));
    GenRenderbuffers = reinterpret_cast<PFNGLGENRENDERBUFFERSPROC>(get("glGenRenderbuffers"));
    BindRenderbuffer = reinterpret_cast<PFNGLBINDRENDERBUFFERPROC>(get("glBindRenderbuffer"));
    RenderbufferStorage = reinterpret_cast<PFNGLRENDERBUFFERSTORAGEPROC>(get("glRenderbufferStorage"));
    DeleteRenderbuffers = reinterpret_cast<PFNGLDELETERENDERBUFFERSPROC>(get("glDeleteRenderbuffers"));
    return GenFramebuffers && BindFramebuffer && FramebufferRenderbuffer && CheckFramebufferStatus &&
           DeleteFramebuffers && GenRenderbuffers && BindRenderbuffer && RenderbufferStorage && DeleteRenderbuffers;
  }
};

FboApi g_fbo;
std::string g_glfw_error;

}  // namespace

Backend::~Backend() { Shutdown(); }

bool Backend::Init(const BackendConfig& config, std::string* error) {
  config_ = config;
  glfwSetErrorCallback([](int, const char* description) { g_glfw_error = description; });
  if (!glfwInit()) {
    *error = "cannot open a window: " + (g_glfw_error.empty() ? std::string("glfwInit failed") : g_glfw_error) +
             " (is DISPLAY set? headless runs need xvfb-run)";
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  if (config.offscreen) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  window_ = glfwCreateWindow(config.width, config.height, config.title.c_str(), nullptr, nullptr);
  if (!window_) {
    *error = "cannot create an OpenGL 3.0 window: " + g_glfw_error;
    return false;
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(config.offscreen ? 0 : 1);

  if (config.offscreen) {
    if (!g_fbo.Load()) {
      *error = "the OpenGL driver has no framebuffer objects";
      return false;
    }
    g_fbo.GenFramebuffers(1, &fbo_);
    g_fbo.GenRenderbuffers(1, &color_);
    g_fbo.BindRenderbuffer(GL_RENDERBUFFER, color_);
    g_fbo.RenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, config.width, config.height);
    g_fbo.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
    g_fbo.FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
    if (g_fbo.CheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      *error = "cannot create an offscreen framebuffer";
      return false;
    }
  }

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; no imgui.ini next to the capture
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 130");
  imgui_ready_ = true;
  return true;
}

void Backend::Shutdown() {
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    imgui_ready_ = false;
  }
  if (window_) {
    if (fbo_) g_fbo.DeleteFramebuffers(1, &fbo_);
    if (color_) g_fbo.DeleteRenderbuffers(1, &color_);
    glfwDestroyWindow(window_);
    window_ = nullptr;
  }
  glfwTerminate();
}

bool Backend::ShouldClose() const { return glfwWindowShouldClose(window_); }

void Backend::NewFrame(double idle_wait_seconds) {
  if (idle_wait_seconds > 0)
    glfwWaitEventsTimeout(idle_wait_seconds);
  else
    glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  if (config_.offscreen) {
    // A hidden window may report another size than asked for (some window
    // managers clamp it); the framebuffer object is what we render to.
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(config_.width), static_cast<float>(config_.height));
    io.DisplayFramebufferScale = ImVec2(1, 1);
  }
  ImGui::NewFrame();
}

void Backend::Render() {
  ImGui::Render();
  int w = config_.width, h = config_.height;
  if (fbo_) {
    g_fbo.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
  } else {
    glfwGetFramebufferSize(window_, &w, &h);
  }
  glViewport(0, 0, w, h);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(bg.x, bg.y, bg.z, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (!fbo_) glfwSwapBuffers(window_);
}

void Backend::Finish() const { glFinish(); }

bool Backend::ReadPixels(std::vector<uint8_t>* rgba, int* width, int* height) const {
  if (!fbo_) return false;
  const int w = config_.width, h = config_.height;
  std::vector<uint8_t> bottom_up(static_cast<size_t>(w) * h * 4);
  g_fbo.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  if (glGetError() != GL_NO_ERROR) return false;
  // GL's first row is the bottom one; PNG's is the top.
  rgba->resize(bottom_up.size());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y) std::memcpy(rgba->data() + y * row, bottom_up.data() + (h - 1 - y) * row, row);
  *width = w;
  *height = h;
  return true;
}

}  // namespace memframe::viewer
