// Context creation and MakeCurrent, for the GL hooks' binding state
// (gpu/gl_context_state.h): which contexts share their object names, and
// which context is current on each thread. Nothing is recorded here.
#include <atomic>
#include <cstdint>

#include "gpu/gl_context_state.h"
#include "hooks/gl_hooks.h"
#include "hooks/tracked_call.h"

using namespace memframe::agent;

namespace {

std::atomic<void*> g_glXCreateContext, g_glXCreateNewContext, g_glXCreateContextAttribsARB, g_eglCreateContext,
    g_glXMakeCurrent, g_glXMakeContextCurrent, g_eglMakeCurrent;

}  // namespace

MEMFRAME_EXPORT void* glXCreateContext(void* display, void* visual, void* share, int direct) {
  auto* real = MEMFRAME_REAL_GL(glXCreateContext);
  void* context = real ? real(display, visual, share, direct) : nullptr;
  GlContextCreated(context, share);
  return context;
}

MEMFRAME_EXPORT void* glXCreateNewContext(void* display, void* config, int render_type, void* share, int direct) {
  auto* real = MEMFRAME_REAL_GL(glXCreateNewContext);
  void* context = real ? real(display, config, render_type, share, direct) : nullptr;
  GlContextCreated(context, share);
  return context;
}

MEMFRAME_EXPORT void* glXCreateContextAttribsARB(void* display, void* config, void* share, int direct,
                                                 const int* attributes) {
  auto* real = MEMFRAME_REAL_GL(glXCreateContextAttribsARB);
  void* context = real ? real(display, config, share, direct, attributes) : nullptr;
  GlContextCreated(context, share);
  return context;
}

MEMFRAME_EXPORT void* eglCreateContext(void* display, void* config, void* share, const int32_t* attributes) {
  auto* real = MEMFRAME_REAL_GL(eglCreateContext);
  void* context = real ? real(display, config, share, attributes) : nullptr;
  GlContextCreated(context, share);
  return context;
}

MEMFRAME_EXPORT int glXMakeCurrent(void* display, unsigned long drawable, void* context) {
  auto* real = MEMFRAME_REAL_GL(glXMakeCurrent);
  int made = real ? real(display, drawable, context) : 0;
  if (made) GlMakeCurrent(context);
  return made;
}

MEMFRAME_EXPORT int glXMakeContextCurrent(void* display, unsigned long draw, unsigned long read, void* context) {
  auto* real = MEMFRAME_REAL_GL(glXMakeContextCurrent);
  int made = real ? real(display, draw, read, context) : 0;
  if (made) GlMakeCurrent(context);
  return made;
}

MEMFRAME_EXPORT unsigned eglMakeCurrent(void* display, void* draw, void* read, void* context) {
  auto* real = MEMFRAME_REAL_GL(eglMakeCurrent);
  unsigned made = real ? real(display, draw, read, context) : 0;
  if (made) GlMakeCurrent(context);
  return made;
}

namespace memframe::agent {

namespace {
#define MEMFRAME_GL(name) {#name, 0, reinterpret_cast<void*>(&::name), &g_##name}
const InterceptedFunction kGlContextIntercepted[] = {
    MEMFRAME_GL(glXCreateContext),  MEMFRAME_GL(glXCreateNewContext),   MEMFRAME_GL(glXCreateContextAttribsARB),
    MEMFRAME_GL(eglCreateContext),  MEMFRAME_GL(glXMakeCurrent),        MEMFRAME_GL(glXMakeContextCurrent),
    MEMFRAME_GL(eglMakeCurrent),
};
#undef MEMFRAME_GL
}  // namespace

const InterceptedFunction* GlContextFunctions(int* count) {
  *count = static_cast<int>(sizeof(kGlContextIntercepted) / sizeof(kGlContextIntercepted[0]));
  return kGlContextIntercepted;
}

}  // namespace memframe::agent
