// The GL calls that create, resize and delete buffers, textures and
// renderbuffers, and the binds that say which object such a call acts on.
// Interposed as symbols (a game linked to libGL) and handed out by the
// lookups the agent wraps (glXGetProcAddress(ARB), eglGetProcAddress,
// SDL_GL_GetProcAddress, dlsym: present_hooks.h), like the presents.
//
// These run on the render thread, the binds thousands of times a frame: a
// bind is a store into the current context's slot (gpu/gl_context_state.h)
// and the real call; a storage call is the real call, then one record
// (gpu/gl_records.h). Nothing here allocates or takes a lock. The real call
// comes first: what the driver allocates inside it is the game's heap, made
// at the game's call, and recorded by the heap hooks as such.
#include <atomic>
#include <cstdint>

#include "gpu/gl_context_state.h"
#include "gpu/gl_records.h"
#include "gpu/gpu_queue.h"
#include "hooks/gl_hooks.h"
#include "hooks/tracked_call.h"

using namespace memframe::agent;

using GLenum = uint32_t;
using GLuint = uint32_t;
using GLint = int32_t;
using GLsizei = int32_t;
using GLboolean = uint8_t;
using GLbitfield = uint32_t;
using GLsizeiptr = intptr_t;
using GLintptr = intptr_t;

namespace {

std::atomic<void*> g_glBindBuffer, g_glBindBufferARB, g_glBindBufferBase, g_glBindBufferRange, g_glBindTexture,
    g_glBindTextureEXT, g_glActiveTexture, g_glActiveTextureARB, g_glBindRenderbuffer, g_glBindRenderbufferEXT,
    g_glBindVertexArray, g_glDeleteVertexArrays, g_glBufferData, g_glBufferDataARB, g_glBufferStorage,
    g_glBufferStorageEXT, g_glNamedBufferData, g_glNamedBufferDataEXT, g_glNamedBufferStorage,
    g_glNamedBufferStorageEXT, g_glTexImage1D, g_glTexImage2D, g_glTexImage3D, g_glCopyTexImage1D, g_glCopyTexImage2D,
    g_glCompressedTexImage1D, g_glCompressedTexImage2D, g_glCompressedTexImage3D, g_glCompressedTexImage1DARB,
    g_glCompressedTexImage2DARB, g_glCompressedTexImage3DARB, g_glTexImage2DMultisample, g_glTexImage3DMultisample,
    g_glTexStorage1D, g_glTexStorage2D, g_glTexStorage3D, g_glTexStorage2DMultisample, g_glTexStorage3DMultisample,
    g_glTextureStorage1D, g_glTextureStorage2D, g_glTextureStorage3D, g_glTextureStorage2DMultisample,
    g_glTextureStorage3DMultisample, g_glGenerateMipmap, g_glGenerateMipmapEXT, g_glGenerateTextureMipmap,
    g_glCreateTextures, g_glRenderbufferStorage, g_glRenderbufferStorageEXT, g_glRenderbufferStorageMultisample,
    g_glRenderbufferStorageMultisampleEXT, g_glNamedRenderbufferStorage, g_glNamedRenderbufferStorageMultisample,
    g_glDeleteBuffers, g_glDeleteBuffersARB, g_glDeleteTextures, g_glDeleteRenderbuffers, g_glDeleteRenderbuffersEXT;

GlImage Image(GLenum target, GLenum internal_format, GLsizei width, GLsizei height, GLsizei depth, GLsizei levels = 1,
              GLsizei samples = 0) {
  auto count = [](GLsizei v) { return v > 0 ? static_cast<uint32_t>(v) : 0u; };
  return {target, internal_format, count(width), count(height), count(depth), count(levels), count(samples)};
}

}  // namespace

MEMFRAME_EXPORT void glBindBuffer(GLenum target, GLuint buffer) {
  GlBindBuffer(CurrentGlContext(), target, buffer);
  if (auto* real = MEMFRAME_REAL_GL(glBindBuffer)) real(target, buffer);
}
MEMFRAME_EXPORT void glBindBufferARB(GLenum target, GLuint buffer) {
  GlBindBuffer(CurrentGlContext(), target, buffer);
  if (auto* real = MEMFRAME_REAL_GL(glBindBufferARB)) real(target, buffer);
}
MEMFRAME_EXPORT void glBindBufferBase(GLenum target, GLuint index, GLuint buffer) {
  GlBindBuffer(CurrentGlContext(), target, buffer);
  if (auto* real = MEMFRAME_REAL_GL(glBindBufferBase)) real(target, index, buffer);
}
MEMFRAME_EXPORT void glBindBufferRange(GLenum target, GLuint index, GLuint buffer, GLintptr offset, GLsizeiptr size) {
  GlBindBuffer(CurrentGlContext(), target, buffer);
  if (auto* real = MEMFRAME_REAL_GL(glBindBufferRange)) real(target, index, buffer, offset, size);
}
MEMFRAME_EXPORT void glBindTexture(GLenum target, GLuint texture) {
  GlBindTexture(CurrentGlContext(), target, texture);
  if (auto* real = MEMFRAME_REAL_GL(glBindTexture)) real(target, texture);
}
MEMFRAME_EXPORT void glBindTextureEXT(GLenum target, GLuint texture) {
  GlBindTexture(CurrentGlContext(), target, texture);
  if (auto* real = MEMFRAME_REAL_GL(glBindTextureEXT)) real(target, texture);
}
MEMFRAME_EXPORT void glActiveTexture(GLenum texture) {
  CurrentGlContext().active_unit = texture - 0x84C0;
  if (auto* real = MEMFRAME_REAL_GL(glActiveTexture)) real(texture);
}
MEMFRAME_EXPORT void glActiveTextureARB(GLenum texture) {
  CurrentGlContext().active_unit = texture - 0x84C0;
  if (auto* real = MEMFRAME_REAL_GL(glActiveTextureARB)) real(texture);
}
MEMFRAME_EXPORT void glBindRenderbuffer(GLenum target, GLuint renderbuffer) {
  CurrentGlContext().renderbuffer = renderbuffer;
  if (auto* real = MEMFRAME_REAL_GL(glBindRenderbuffer)) real(target, renderbuffer);
}
MEMFRAME_EXPORT void glBindRenderbufferEXT(GLenum target, GLuint renderbuffer) {
  CurrentGlContext().renderbuffer = renderbuffer;
  if (auto* real = MEMFRAME_REAL_GL(glBindRenderbufferEXT)) real(target, renderbuffer);
}
MEMFRAME_EXPORT void glBindVertexArray(GLuint array) {
  GlBindVertexArray(CurrentGlContext(), array);
  if (auto* real = MEMFRAME_REAL_GL(glBindVertexArray)) real(array);
}
MEMFRAME_EXPORT void glDeleteVertexArrays(GLsizei n, const GLuint* arrays) {
  GlDeleteVertexArrays(CurrentGlContext(), n, arrays);
  if (auto* real = MEMFRAME_REAL_GL(glDeleteVertexArrays)) real(n, arrays);
}
MEMFRAME_EXPORT void glBufferData(GLenum target, GLsizeiptr size, const void* data, GLenum usage) {
  if (auto* real = MEMFRAME_REAL_GL(glBufferData)) real(target, size, data, usage);
  if (GpuTracking()) RecordGlBufferStore(GlBoundBuffer(CurrentGlContext(), target), target, size, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glBufferDataARB(GLenum target, GLsizeiptr size, const void* data, GLenum usage) {
  if (auto* real = MEMFRAME_REAL_GL(glBufferDataARB)) real(target, size, data, usage);
  if (GpuTracking()) RecordGlBufferStore(GlBoundBuffer(CurrentGlContext(), target), target, size, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glBufferStorage(GLenum target, GLsizeiptr size, const void* data, GLbitfield flags) {
  if (auto* real = MEMFRAME_REAL_GL(glBufferStorage)) real(target, size, data, flags);
  if (GpuTracking()) RecordGlBufferStore(GlBoundBuffer(CurrentGlContext(), target), target, size, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glBufferStorageEXT(GLenum target, GLsizeiptr size, const void* data, GLbitfield flags) {
  if (auto* real = MEMFRAME_REAL_GL(glBufferStorageEXT)) real(target, size, data, flags);
  if (GpuTracking()) RecordGlBufferStore(GlBoundBuffer(CurrentGlContext(), target), target, size, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glNamedBufferData(GLuint buffer, GLsizeiptr size, const void* data, GLenum usage) {
  if (auto* real = MEMFRAME_REAL_GL(glNamedBufferData)) real(buffer, size, data, usage);
  if (GpuTracking()) RecordGlBufferStore(buffer, 0, size, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glNamedBufferDataEXT(GLuint buffer, GLsizeiptr size, const void* data, GLenum usage) {
  if (auto* real = MEMFRAME_REAL_GL(glNamedBufferDataEXT)) real(buffer, size, data, usage);
  if (GpuTracking()) RecordGlBufferStore(buffer, 0, size, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glNamedBufferStorage(GLuint buffer, GLsizeiptr size, const void* data, GLbitfield flags) {
  if (auto* real = MEMFRAME_REAL_GL(glNamedBufferStorage)) real(buffer, size, data, flags);
  if (GpuTracking()) RecordGlBufferStore(buffer, 0, size, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glNamedBufferStorageEXT(GLuint buffer, GLsizeiptr size, const void* data, GLbitfield flags) {
  if (auto* real = MEMFRAME_REAL_GL(glNamedBufferStorageEXT)) real(buffer, size, data, flags);
  if (GpuTracking()) RecordGlBufferStore(buffer, 0, size, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexImage1D(GLenum target, GLint level, GLint internalformat, GLsizei width, GLint border, GLenum format, GLenum type, const void* pixels) {
  if (auto* real = MEMFRAME_REAL_GL(glTexImage1D)) real(target, level, internalformat, width, border, format, type, pixels);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, 1, 1), level, format, type, 0, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexImage2D(GLenum target, GLint level, GLint internalformat, GLsizei width, GLsizei height, GLint border, GLenum format, GLenum type, const void* pixels) {
  if (auto* real = MEMFRAME_REAL_GL(glTexImage2D)) real(target, level, internalformat, width, height, border, format, type, pixels);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, 1), level, format, type, 0, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexImage3D(GLenum target, GLint level, GLint internalformat, GLsizei width, GLsizei height, GLsizei depth, GLint border, GLenum format, GLenum type, const void* pixels) {
  if (auto* real = MEMFRAME_REAL_GL(glTexImage3D)) real(target, level, internalformat, width, height, depth, border, format, type, pixels);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, depth), level, format, type, 0, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCopyTexImage1D(GLenum target, GLint level, GLenum internalformat, GLint x, GLint y, GLsizei width, GLint border) {
  if (auto* real = MEMFRAME_REAL_GL(glCopyTexImage1D)) real(target, level, internalformat, x, y, width, border);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, 1, 1), level, 0, 0, 0, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCopyTexImage2D(GLenum target, GLint level, GLenum internalformat, GLint x, GLint y, GLsizei width, GLsizei height, GLint border) {
  if (auto* real = MEMFRAME_REAL_GL(glCopyTexImage2D)) real(target, level, internalformat, x, y, width, height, border);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, 1), level, 0, 0, 0, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCompressedTexImage1D(GLenum target, GLint level, GLenum internalformat, GLsizei width, GLint border, GLsizei imageSize, const void* data) {
  if (auto* real = MEMFRAME_REAL_GL(glCompressedTexImage1D)) real(target, level, internalformat, width, border, imageSize, data);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, 1, 1), level, 0, 0, imageSize, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCompressedTexImage2D(GLenum target, GLint level, GLenum internalformat, GLsizei width, GLsizei height, GLint border, GLsizei imageSize, const void* data) {
  if (auto* real = MEMFRAME_REAL_GL(glCompressedTexImage2D)) real(target, level, internalformat, width, height, border, imageSize, data);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, 1), level, 0, 0, imageSize, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCompressedTexImage3D(GLenum target, GLint level, GLenum internalformat, GLsizei width, GLsizei height, GLsizei depth, GLint border, GLsizei imageSize, const void* data) {
  if (auto* real = MEMFRAME_REAL_GL(glCompressedTexImage3D)) real(target, level, internalformat, width, height, depth, border, imageSize, data);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, depth), level, 0, 0, imageSize, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCompressedTexImage1DARB(GLenum target, GLint level, GLenum internalformat, GLsizei width, GLint border, GLsizei imageSize, const void* data) {
  if (auto* real = MEMFRAME_REAL_GL(glCompressedTexImage1DARB)) real(target, level, internalformat, width, border, imageSize, data);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, 1, 1), level, 0, 0, imageSize, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCompressedTexImage2DARB(GLenum target, GLint level, GLenum internalformat, GLsizei width, GLsizei height, GLint border, GLsizei imageSize, const void* data) {
  if (auto* real = MEMFRAME_REAL_GL(glCompressedTexImage2DARB)) real(target, level, internalformat, width, height, border, imageSize, data);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, 1), level, 0, 0, imageSize, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCompressedTexImage3DARB(GLenum target, GLint level, GLenum internalformat, GLsizei width, GLsizei height, GLsizei depth, GLint border, GLsizei imageSize, const void* data) {
  if (auto* real = MEMFRAME_REAL_GL(glCompressedTexImage3DARB)) real(target, level, internalformat, width, height, depth, border, imageSize, data);
  if (GpuTracking()) RecordGlTextureImage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, depth), level, 0, 0, imageSize, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexImage2DMultisample(GLenum target, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height, GLboolean fixedsamplelocations) {
  if (auto* real = MEMFRAME_REAL_GL(glTexImage2DMultisample)) real(target, samples, internalformat, width, height, fixedsamplelocations);
  if (GpuTracking()) RecordGlTextureStorage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, 1, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexImage3DMultisample(GLenum target, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height, GLsizei depth, GLboolean fixedsamplelocations) {
  if (auto* real = MEMFRAME_REAL_GL(glTexImage3DMultisample)) real(target, samples, internalformat, width, height, depth, fixedsamplelocations);
  if (GpuTracking()) RecordGlTextureStorage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, depth, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexStorage1D(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width) {
  if (auto* real = MEMFRAME_REAL_GL(glTexStorage1D)) real(target, levels, internalformat, width);
  if (GpuTracking()) RecordGlTextureStorage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, 1, 1, levels), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexStorage2D(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width, GLsizei height) {
  if (auto* real = MEMFRAME_REAL_GL(glTexStorage2D)) real(target, levels, internalformat, width, height);
  if (GpuTracking()) RecordGlTextureStorage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, 1, levels), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexStorage3D(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width, GLsizei height, GLsizei depth) {
  if (auto* real = MEMFRAME_REAL_GL(glTexStorage3D)) real(target, levels, internalformat, width, height, depth);
  if (GpuTracking()) RecordGlTextureStorage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, depth, levels), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexStorage2DMultisample(GLenum target, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height, GLboolean fixedsamplelocations) {
  if (auto* real = MEMFRAME_REAL_GL(glTexStorage2DMultisample)) real(target, samples, internalformat, width, height, fixedsamplelocations);
  if (GpuTracking()) RecordGlTextureStorage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, 1, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTexStorage3DMultisample(GLenum target, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height, GLsizei depth, GLboolean fixedsamplelocations) {
  if (auto* real = MEMFRAME_REAL_GL(glTexStorage3DMultisample)) real(target, samples, internalformat, width, height, depth, fixedsamplelocations);
  if (GpuTracking()) RecordGlTextureStorage(GlBoundTexture(CurrentGlContext(), target), Image(target, internalformat, width, height, depth, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTextureStorage1D(GLuint texture, GLsizei levels, GLenum internalformat, GLsizei width) {
  if (auto* real = MEMFRAME_REAL_GL(glTextureStorage1D)) real(texture, levels, internalformat, width);
  if (GpuTracking()) RecordGlTextureStorage(texture, Image(0, internalformat, width, 1, 1, levels), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTextureStorage2D(GLuint texture, GLsizei levels, GLenum internalformat, GLsizei width, GLsizei height) {
  if (auto* real = MEMFRAME_REAL_GL(glTextureStorage2D)) real(texture, levels, internalformat, width, height);
  if (GpuTracking()) RecordGlTextureStorage(texture, Image(0, internalformat, width, height, 1, levels), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTextureStorage3D(GLuint texture, GLsizei levels, GLenum internalformat, GLsizei width, GLsizei height, GLsizei depth) {
  if (auto* real = MEMFRAME_REAL_GL(glTextureStorage3D)) real(texture, levels, internalformat, width, height, depth);
  if (GpuTracking()) RecordGlTextureStorage(texture, Image(0, internalformat, width, height, depth, levels), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTextureStorage2DMultisample(GLuint texture, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height, GLboolean fixedsamplelocations) {
  if (auto* real = MEMFRAME_REAL_GL(glTextureStorage2DMultisample)) real(texture, samples, internalformat, width, height, fixedsamplelocations);
  if (GpuTracking()) RecordGlTextureStorage(texture, Image(0, internalformat, width, height, 1, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glTextureStorage3DMultisample(GLuint texture, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height, GLsizei depth, GLboolean fixedsamplelocations) {
  if (auto* real = MEMFRAME_REAL_GL(glTextureStorage3DMultisample)) real(texture, samples, internalformat, width, height, depth, fixedsamplelocations);
  if (GpuTracking()) RecordGlTextureStorage(texture, Image(0, internalformat, width, height, depth, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glGenerateMipmap(GLenum target) {
  if (auto* real = MEMFRAME_REAL_GL(glGenerateMipmap)) real(target);
  if (GpuTracking()) RecordGlMipmaps(GlBoundTexture(CurrentGlContext(), target), target, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glGenerateMipmapEXT(GLenum target) {
  if (auto* real = MEMFRAME_REAL_GL(glGenerateMipmapEXT)) real(target);
  if (GpuTracking()) RecordGlMipmaps(GlBoundTexture(CurrentGlContext(), target), target, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glGenerateTextureMipmap(GLuint texture) {
  if (auto* real = MEMFRAME_REAL_GL(glGenerateTextureMipmap)) real(texture);
  if (GpuTracking()) RecordGlMipmaps(texture, 0, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glCreateTextures(GLenum target, GLsizei n, GLuint* textures) {
  if (auto* real = MEMFRAME_REAL_GL(glCreateTextures)) real(target, n, textures);
  if (GpuTracking()) RecordGlTextureTargets(target, n, textures, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glRenderbufferStorage(GLenum target, GLenum internalformat, GLsizei width, GLsizei height) {
  if (auto* real = MEMFRAME_REAL_GL(glRenderbufferStorage)) real(target, internalformat, width, height);
  if (GpuTracking()) RecordGlRenderbufferStorage(CurrentGlContext().renderbuffer, Image(target, internalformat, width, height, 1), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glRenderbufferStorageEXT(GLenum target, GLenum internalformat, GLsizei width, GLsizei height) {
  if (auto* real = MEMFRAME_REAL_GL(glRenderbufferStorageEXT)) real(target, internalformat, width, height);
  if (GpuTracking()) RecordGlRenderbufferStorage(CurrentGlContext().renderbuffer, Image(target, internalformat, width, height, 1), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glRenderbufferStorageMultisample(GLenum target, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height) {
  if (auto* real = MEMFRAME_REAL_GL(glRenderbufferStorageMultisample)) real(target, samples, internalformat, width, height);
  if (GpuTracking()) RecordGlRenderbufferStorage(CurrentGlContext().renderbuffer, Image(target, internalformat, width, height, 1, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glRenderbufferStorageMultisampleEXT(GLenum target, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height) {
  if (auto* real = MEMFRAME_REAL_GL(glRenderbufferStorageMultisampleEXT)) real(target, samples, internalformat, width, height);
  if (GpuTracking()) RecordGlRenderbufferStorage(CurrentGlContext().renderbuffer, Image(target, internalformat, width, height, 1, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glNamedRenderbufferStorage(GLuint renderbuffer, GLenum internalformat, GLsizei width, GLsizei height) {
  if (auto* real = MEMFRAME_REAL_GL(glNamedRenderbufferStorage)) real(renderbuffer, internalformat, width, height);
  if (GpuTracking()) RecordGlRenderbufferStorage(renderbuffer, Image(0, internalformat, width, height, 1), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glNamedRenderbufferStorageMultisample(GLuint renderbuffer, GLsizei samples, GLenum internalformat, GLsizei width, GLsizei height) {
  if (auto* real = MEMFRAME_REAL_GL(glNamedRenderbufferStorageMultisample)) real(renderbuffer, samples, internalformat, width, height);
  if (GpuTracking()) RecordGlRenderbufferStorage(renderbuffer, Image(0, internalformat, width, height, 1, 1, samples), __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glDeleteBuffers(GLsizei n, const GLuint* buffers) {
  if (auto* real = MEMFRAME_REAL_GL(glDeleteBuffers)) real(n, buffers);
  if (GpuTracking()) RecordGlDeletes(GlKind::kBuffer, n, buffers, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glDeleteBuffersARB(GLsizei n, const GLuint* buffers) {
  if (auto* real = MEMFRAME_REAL_GL(glDeleteBuffersARB)) real(n, buffers);
  if (GpuTracking()) RecordGlDeletes(GlKind::kBuffer, n, buffers, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glDeleteTextures(GLsizei n, const GLuint* textures) {
  if (auto* real = MEMFRAME_REAL_GL(glDeleteTextures)) real(n, textures);
  if (GpuTracking()) RecordGlDeletes(GlKind::kTexture, n, textures, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glDeleteRenderbuffers(GLsizei n, const GLuint* renderbuffers) {
  if (auto* real = MEMFRAME_REAL_GL(glDeleteRenderbuffers)) real(n, renderbuffers);
  if (GpuTracking()) RecordGlDeletes(GlKind::kRenderbuffer, n, renderbuffers, __builtin_frame_address(0));
}
MEMFRAME_EXPORT void glDeleteRenderbuffersEXT(GLsizei n, const GLuint* renderbuffers) {
  if (auto* real = MEMFRAME_REAL_GL(glDeleteRenderbuffersEXT)) real(n, renderbuffers);
  if (GpuTracking()) RecordGlDeletes(GlKind::kRenderbuffer, n, renderbuffers, __builtin_frame_address(0));
}

namespace memframe::agent {

namespace {
#define MEMFRAME_GL(name) {#name, 0, reinterpret_cast<void*>(&::name), &g_##name}
const InterceptedFunction kGlIntercepted[] = {
    MEMFRAME_GL(glBindBuffer),
    MEMFRAME_GL(glBindBufferARB),
    MEMFRAME_GL(glBindBufferBase),
    MEMFRAME_GL(glBindBufferRange),
    MEMFRAME_GL(glBindTexture),
    MEMFRAME_GL(glBindTextureEXT),
    MEMFRAME_GL(glActiveTexture),
    MEMFRAME_GL(glActiveTextureARB),
    MEMFRAME_GL(glBindRenderbuffer),
    MEMFRAME_GL(glBindRenderbufferEXT),
    MEMFRAME_GL(glBindVertexArray),
    MEMFRAME_GL(glDeleteVertexArrays),
    MEMFRAME_GL(glBufferData),
    MEMFRAME_GL(glBufferDataARB),
    MEMFRAME_GL(glBufferStorage),
    MEMFRAME_GL(glBufferStorageEXT),
    MEMFRAME_GL(glNamedBufferData),
    MEMFRAME_GL(glNamedBufferDataEXT),
    MEMFRAME_GL(glNamedBufferStorage),
    MEMFRAME_GL(glNamedBufferStorageEXT),
    MEMFRAME_GL(glTexImage1D),
    MEMFRAME_GL(glTexImage2D),
    MEMFRAME_GL(glTexImage3D),
    MEMFRAME_GL(glCopyTexImage1D),
    MEMFRAME_GL(glCopyTexImage2D),
    MEMFRAME_GL(glCompressedTexImage1D),
    MEMFRAME_GL(glCompressedTexImage2D),
    MEMFRAME_GL(glCompressedTexImage3D),
    MEMFRAME_GL(glCompressedTexImage1DARB),
    MEMFRAME_GL(glCompressedTexImage2DARB),
    MEMFRAME_GL(glCompressedTexImage3DARB),
    MEMFRAME_GL(glTexImage2DMultisample),
    MEMFRAME_GL(glTexImage3DMultisample),
    MEMFRAME_GL(glTexStorage1D),
    MEMFRAME_GL(glTexStorage2D),
    MEMFRAME_GL(glTexStorage3D),
    MEMFRAME_GL(glTexStorage2DMultisample),
    MEMFRAME_GL(glTexStorage3DMultisample),
    MEMFRAME_GL(glTextureStorage1D),
    MEMFRAME_GL(glTextureStorage2D),
    MEMFRAME_GL(glTextureStorage3D),
    MEMFRAME_GL(glTextureStorage2DMultisample),
    MEMFRAME_GL(glTextureStorage3DMultisample),
    MEMFRAME_GL(glGenerateMipmap),
    MEMFRAME_GL(glGenerateMipmapEXT),
    MEMFRAME_GL(glGenerateTextureMipmap),
    MEMFRAME_GL(glCreateTextures),
    MEMFRAME_GL(glRenderbufferStorage),
    MEMFRAME_GL(glRenderbufferStorageEXT),
    MEMFRAME_GL(glRenderbufferStorageMultisample),
    MEMFRAME_GL(glRenderbufferStorageMultisampleEXT),
    MEMFRAME_GL(glNamedRenderbufferStorage),
    MEMFRAME_GL(glNamedRenderbufferStorageMultisample),
    MEMFRAME_GL(glDeleteBuffers),
    MEMFRAME_GL(glDeleteBuffersARB),
    MEMFRAME_GL(glDeleteTextures),
    MEMFRAME_GL(glDeleteRenderbuffers),
    MEMFRAME_GL(glDeleteRenderbuffersEXT)
};
#undef MEMFRAME_GL
}  // namespace

const InterceptedFunction* GlObjectFunctions(int* count) {
  *count = static_cast<int>(sizeof(kGlIntercepted) / sizeof(kGlIntercepted[0]));
  return kGlIntercepted;
}

}  // namespace memframe::agent
