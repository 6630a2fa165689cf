// What the GL hooks must know of each context to name the object a call
// acts on: glBufferData(GL_ARRAY_BUFFER, ...) changes whichever buffer the
// current context has bound there. The hooks of the binds keep it (a store
// into the current context's slot: the binds run thousands of times a
// frame), the hooks of MakeCurrent say which slot is current on a thread,
// and the hooks of context creation say which contexts share their names.
//
// Slots are static (no allocation in a hook) and claimed with a
// compare-and-swap; a context is current on one thread at a time, so its
// slot is written by that thread only. A thread that made no context
// current through a hooked call (the context was made before an attach, or
// by a call the agent does not see) uses slot 0, "unknown context".
#pragma once

#include <cstdint>

namespace memframe::agent {

// Buffer binding points (glBindBuffer targets) and texture targets the
// state keeps, by index.
int GlBufferTargetIndex(uint32_t target);   // -1 for a target not kept
int GlTextureTargetIndex(uint32_t target);  // cube faces give the cube map's; -1 for proxies
constexpr int kGlBufferTargets = 14;
constexpr int kGlTextureTargets = 11;
constexpr int kGlTextureUnits = 96;      // GL 4.x drivers offer 96..192; higher units are not kept
constexpr uint32_t kGlVertexArrays = 1024;  // VAO names whose element buffer is kept
constexpr int kGlMaxContexts = 64;

struct GlContextState {
  uint64_t handle;       // the GLXContext / EGLContext; 0 for slot 0
  uint32_t share_group;  // names are shared within one (1 and up; 0: unknown)
  uint32_t active_unit;
  uint32_t vertex_array;
  uint32_t renderbuffer;
  uint32_t buffers[kGlBufferTargets];
  // GL_ELEMENT_ARRAY_BUFFER is the bound vertex array's state, not the
  // context's: kept per VAO (names below kGlVertexArrays).
  uint32_t element_buffers[kGlVertexArrays];
  uint32_t textures[kGlTextureUnits][kGlTextureTargets];
};

// The calling thread's current context (slot 0 if none was seen).
GlContextState& CurrentGlContext();

// A context made: it shares names with `share` (null: a group of its own).
void GlContextCreated(const void* context, const void* share);
// MakeCurrent succeeded on this thread with `context` (null: none current).
void GlMakeCurrent(const void* context);

// The name bound to a buffer target / a texture target of the active unit;
// 0 when not kept.
uint32_t GlBoundBuffer(const GlContextState& c, uint32_t target);
uint32_t GlBoundTexture(const GlContextState& c, uint32_t target);
void GlBindBuffer(GlContextState& c, uint32_t target, uint32_t buffer);
void GlBindTexture(GlContextState& c, uint32_t target, uint32_t texture);
void GlBindVertexArray(GlContextState& c, uint32_t vertex_array);
// A deleted VAO's name may come back for a new one, with no element buffer.
void GlDeleteVertexArrays(GlContextState& c, int32_t count, const uint32_t* names);

}  // namespace memframe::agent
