// The GPU game: see gpu_truth.h for what it makes in which frame. GL 1.x
// entry points are called as linked (libGL), the rest through
// glfwGetProcAddress, as games load them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define GL_GLEXT_PROTOTYPES  // the GL 1.x calls, linked from libGL
#define GLFW_INCLUDE_GLCOREARB
#include <GLFW/glfw3.h>

#include "gpu_truth.h"

namespace {

using namespace memframe::gpu_game;

// The post-1.1 functions, fetched by name.
struct Gl {
  PFNGLACTIVETEXTUREPROC ActiveTexture;
  PFNGLTEXSTORAGE2DPROC TexStorage2D;
  PFNGLCOMPRESSEDTEXIMAGE2DPROC CompressedTexImage2D;
  PFNGLGENERATEMIPMAPPROC GenerateMipmap;
  PFNGLTEXIMAGE3DPROC TexImage3D;
  PFNGLGENVERTEXARRAYSPROC GenVertexArrays;
  PFNGLBINDVERTEXARRAYPROC BindVertexArray;
  PFNGLDELETEVERTEXARRAYSPROC DeleteVertexArrays;
  PFNGLGENBUFFERSPROC GenBuffers;
  PFNGLBINDBUFFERPROC BindBuffer;
  PFNGLBUFFERDATAPROC BufferData;
  PFNGLBUFFERSUBDATAPROC BufferSubData;
  PFNGLDELETEBUFFERSPROC DeleteBuffers;
  PFNGLCREATEBUFFERSPROC CreateBuffers;
  PFNGLNAMEDBUFFERSTORAGEPROC NamedBufferStorage;
  PFNGLGENRENDERBUFFERSPROC GenRenderbuffers;
  PFNGLBINDRENDERBUFFERPROC BindRenderbuffer;
  PFNGLRENDERBUFFERSTORAGEPROC RenderbufferStorage;
  PFNGLRENDERBUFFERSTORAGEMULTISAMPLEPROC RenderbufferStorageMultisample;
  PFNGLDELETERENDERBUFFERSPROC DeleteRenderbuffers;
  PFNGLCREATETEXTURESPROC CreateTextures;
  PFNGLTEXTURESTORAGE2DPROC TextureStorage2D;
};

template <typename Fn>
void Load(Fn* fn, const char* name) {
  *fn = reinterpret_cast<Fn>(glfwGetProcAddress(name));
  if (!*fn) {
    fprintf(stderr, "gpu_game: no %s\n", name);
    exit(2);
  }
}

Gl LoadGl() {
  Gl gl{};
#define LOAD(name) Load(&gl.name, "gl" #name)
  LOAD(ActiveTexture); LOAD(TexStorage2D); LOAD(CompressedTexImage2D); LOAD(GenerateMipmap); LOAD(TexImage3D);
  LOAD(GenVertexArrays); LOAD(BindVertexArray); LOAD(DeleteVertexArrays); LOAD(GenBuffers); LOAD(BindBuffer);
  LOAD(BufferData); LOAD(BufferSubData); LOAD(DeleteBuffers); LOAD(CreateBuffers); LOAD(NamedBufferStorage);
  LOAD(GenRenderbuffers); LOAD(BindRenderbuffer); LOAD(RenderbufferStorage); LOAD(RenderbufferStorageMultisample);
  LOAD(DeleteRenderbuffers); LOAD(CreateTextures); LOAD(TextureStorage2D);
#undef LOAD
  return gl;
}

struct Level1 {
  GLuint textures[5];  // backdrop, atlas, sky, detail, forgotten
  GLuint vao, buffers[3], renderbuffers[2];
  void* data;
};

struct Level2 {
  GLuint textures[3];  // portrait, probe, layers
  GLuint growing;
  void* data;
};

__attribute__((noinline)) Level1 LoadLevel1(const Gl& gl) {
  Level1 l{};
  l.data = malloc(kLevelHeapBytes);
  memset(l.data, 1, kLevelHeapBytes);
  glGenTextures(5, l.textures);
  glBindTexture(GL_TEXTURE_2D, l.textures[0]);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 256, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  gl.ActiveTexture(GL_TEXTURE1);  // the atlas on unit 1: the binding is per unit
  glBindTexture(GL_TEXTURE_2D, l.textures[1]);
  gl.TexStorage2D(GL_TEXTURE_2D, 8, GL_RGBA8, 128, 128);
  gl.ActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_CUBE_MAP, l.textures[2]);
  gl.TexStorage2D(GL_TEXTURE_CUBE_MAP, 1, GL_RGBA8, 64, 64);
  glBindTexture(GL_TEXTURE_2D, l.textures[3]);
  static unsigned char blocks[kDetailBytes];
  gl.CompressedTexImage2D(GL_TEXTURE_2D, 0, GL_COMPRESSED_RED_RGTC1, 64, 64, 0, sizeof(blocks), blocks);
  glBindTexture(GL_TEXTURE_2D, l.textures[4]);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  gl.GenerateMipmap(GL_TEXTURE_2D);

  gl.GenVertexArrays(1, &l.vao);
  gl.BindVertexArray(l.vao);
  gl.GenBuffers(2, l.buffers);
  gl.BindBuffer(GL_ARRAY_BUFFER, l.buffers[0]);
  gl.BufferData(GL_ARRAY_BUFFER, kVerticesBytes, nullptr, GL_STATIC_DRAW);
  gl.BindBuffer(GL_ELEMENT_ARRAY_BUFFER, l.buffers[1]);
  gl.BufferData(GL_ELEMENT_ARRAY_BUFFER, kIndicesBytes, nullptr, GL_STATIC_DRAW);
  gl.CreateBuffers(1, &l.buffers[2]);
  gl.NamedBufferStorage(l.buffers[2], kUniformsBytes, nullptr, GL_DYNAMIC_STORAGE_BIT);

  gl.GenRenderbuffers(2, l.renderbuffers);
  gl.BindRenderbuffer(GL_RENDERBUFFER, l.renderbuffers[0]);
  gl.RenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, 640, 480);
  gl.BindRenderbuffer(GL_RENDERBUFFER, l.renderbuffers[1]);
  gl.RenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_RGBA8, 256, 240);
  return l;
}

__attribute__((noinline)) void UnloadLevel1(const Gl& gl, Level1& l) {
  glDeleteTextures(4, l.textures);  // not the fifth: the forgotten one
  gl.DeleteBuffers(3, l.buffers);
  gl.DeleteRenderbuffers(2, l.renderbuffers);
  gl.DeleteVertexArrays(1, &l.vao);
  free(l.data);
}

__attribute__((noinline)) Level2 LoadLevel2(const Gl& gl) {
  Level2 l{};
  l.data = malloc(kLevelHeapBytes);
  memset(l.data, 2, kLevelHeapBytes);
  glGenTextures(1, &l.textures[0]);
  glBindTexture(GL_TEXTURE_2D, l.textures[0]);
  static unsigned char portrait[kPortraitBytes];
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 100, 100, 0, GL_RGB, GL_UNSIGNED_BYTE, portrait);
  gl.CreateTextures(GL_TEXTURE_CUBE_MAP, 1, &l.textures[1]);
  gl.TextureStorage2D(l.textures[1], 1, GL_RGBA16F, 32, 32);
  glGenTextures(1, &l.textures[2]);
  glBindTexture(GL_TEXTURE_2D_ARRAY, l.textures[2]);
  gl.TexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_R8, 64, 64, 4, 0, GL_RED, GL_UNSIGNED_BYTE, nullptr);
  gl.GenBuffers(1, &l.growing);
  gl.BindBuffer(GL_COPY_WRITE_BUFFER, l.growing);
  gl.BufferData(GL_COPY_WRITE_BUFFER, kGrowingFirstBytes, nullptr, GL_DYNAMIC_DRAW);
  gl.BufferData(GL_COPY_WRITE_BUFFER, kGrowingBytes, nullptr, GL_DYNAMIC_DRAW);
  return l;
}

__attribute__((noinline)) void UnloadLevel2(const Gl& gl, Level2& l) {
  glDeleteTextures(3, l.textures);
  gl.DeleteBuffers(1, &l.growing);
  free(l.data);
}

}  // namespace

// `--wait-before-frame N`: before frame N, say so on stdout and wait for a
// line on stdin (a test attaches meanwhile).
int main(int argc, char** argv) {
  int wait_before = -1;
  if (argc == 3 && strcmp(argv[1], "--wait-before-frame") == 0) wait_before = atoi(argv[2]);
  if (!glfwInit()) return 1;
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow* window = glfwCreateWindow(320, 240, "memframe gpu game", nullptr, nullptr);
  if (!window) {
    fprintf(stderr, "gpu_game: no GL 4.5 core context\n");
    return 1;
  }
  glfwMakeContextCurrent(window);
  const Gl gl = LoadGl();
  Level1 level1{};
  Level2 level2{};
  static unsigned char stream[4096];
  for (int frame = 0;; ++frame) {
    if (frame == wait_before) {
      printf("memframe_gpu_game: waiting before frame %d\n", frame);
      fflush(stdout);
      char line[64];
      if (!fgets(line, sizeof(line), stdin)) return 3;
    }
    if (frame == kLevel1Frame) level1 = LoadLevel1(gl);
    if (frame == kLevel2Frame) {
      UnloadLevel1(gl, level1);
      level2 = LoadLevel2(gl);
    }
    if (frame == kEndFrame) {
      UnloadLevel2(gl, level2);
      break;
    }
    if (frame > kLevel1Frame && frame < kLevel2Frame) {
      // Streaming into a live buffer is an update, not an allocation.
      gl.BindBuffer(GL_ARRAY_BUFFER, level1.buffers[0]);
      gl.BufferSubData(GL_ARRAY_BUFFER, 0, sizeof(stream), stream);
    }
    glClear(GL_COLOR_BUFFER_BIT);
    glfwSwapBuffers(window);
    glfwPollEvents();
  }
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
