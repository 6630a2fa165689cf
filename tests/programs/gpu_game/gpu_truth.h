// Ground truth of the GPU game (memframe_gpu_game): two levels of known
// textures, buffers and renderbuffers, made through every path the agent
// hooks (linked GL 1.x calls, glfwGetProcAddress lookups, DSA, bound and
// multisample storage), and one texture it forgets to delete. The game
// includes this header and the integration test includes it to know what
// `memframe report gpu` must say.
//
// Frames follow memframe (proto/FORMAT.md): frame N is the N-th frame of
// the game's loop, each ended by its glfwSwapBuffers.
//   frames 0..kLevel1Frame-1   menu: no GPU object
//   frame kLevel1Frame         level 1 loads: kLevel1Objects
//   ...                        play; each frame glBufferSubData streams into a
//                              buffer (an update, not an allocation)
//   frame kLevel2Frame         level 1 unloads (all but the forgotten
//                              texture), level 2 loads: kLevel2Objects
//   frame kEndFrame            level 2 unloads; the game exits without
//                              deleting the forgotten texture
#pragma once

#include <cstdint>

namespace memframe::gpu_game {

// Attached before this frame (`--wait-before-frame`, between the loads),
// memframe sees every GL call the game makes from then on: the linked ones
// at their import slots, those through pointers it fetched at the start
// (glfwGetProcAddress) at the entries those pointers lead to. So level 2 is
// seen exactly (kLevel2Objects, each made and deleted), and level 1's
// deletes are of objects made before the attach: its four textures, three
// buffers and two renderbuffers (the forgotten texture is never seen).
inline constexpr int kAttachBeforeFrame = 20;
inline constexpr int kUnknownDeletesAfterAttach = 4 + 3 + 2;

inline constexpr int kLevel1Frame = 10;
inline constexpr int kLevel2Frame = 40;
inline constexpr int kEndFrame = 70;

enum class Kind { kBuffer, kTexture, kRenderbuffer };

struct Object {
  const char* what;  // how the game makes it
  Kind kind;
  uint64_t bytes;
  bool exact;        // false: an unsized format, sized as uploaded
};

// RGBA8 256x256, glTexImage2D (linked), level 0 only.
inline constexpr uint64_t kBackdropBytes = 256u * 256 * 4;
// RGBA8 128x128, glTexStorage2D of 8 levels on texture unit 1.
inline constexpr uint64_t kAtlasBytes = 4u * (16384 + 4096 + 1024 + 256 + 64 + 16 + 4 + 1);
// Cube map RGBA8 64x64, glTexStorage2D of 1 level: six faces.
inline constexpr uint64_t kSkyBytes = 6u * 64 * 64 * 4;
// GL_COMPRESSED_RED_RGTC1 64x64, glCompressedTexImage2D: 16x16 blocks of 8 bytes.
inline constexpr uint64_t kDetailBytes = 16u * 16 * 8;
// RGBA8 64x64, glTexImage2D then glGenerateMipmap: 7 levels. Never deleted.
inline constexpr uint64_t kForgottenBytes = 4u * (4096 + 1024 + 256 + 64 + 16 + 4 + 1);
inline constexpr uint64_t kVerticesBytes = 1u << 20;   // glBufferData(GL_ARRAY_BUFFER)
inline constexpr uint64_t kIndicesBytes = 256u << 10;  // glBufferData(GL_ELEMENT_ARRAY_BUFFER), a VAO bound
inline constexpr uint64_t kUniformsBytes = 64u << 10;  // glCreateBuffers + glNamedBufferStorage
inline constexpr uint64_t kDepthBytes = 640u * 480 * 4;         // renderbuffer DEPTH24_STENCIL8
inline constexpr uint64_t kMsaaBytes = 256u * 240 * 4 * 4;      // renderbuffer RGBA8 256x240, 4 samples

inline constexpr Object kLevel1Objects[] = {
    {"backdrop", Kind::kTexture, kBackdropBytes, true},   {"atlas", Kind::kTexture, kAtlasBytes, true},
    {"sky", Kind::kTexture, kSkyBytes, true},             {"detail", Kind::kTexture, kDetailBytes, true},
    {"forgotten", Kind::kTexture, kForgottenBytes, true}, {"vertices", Kind::kBuffer, kVerticesBytes, true},
    {"indices", Kind::kBuffer, kIndicesBytes, true},      {"uniforms", Kind::kBuffer, kUniformsBytes, true},
    {"depth", Kind::kRenderbuffer, kDepthBytes, true},    {"msaa", Kind::kRenderbuffer, kMsaaBytes, true},
};

// GL_RGB (unsized) 100x100 of GL_UNSIGNED_BYTE: the driver picks the storage.
inline constexpr uint64_t kPortraitBytes = 100u * 100 * 3;
// glCreateTextures(GL_TEXTURE_CUBE_MAP) + glTextureStorage2D RGBA16F 32x32.
inline constexpr uint64_t kProbeBytes = 6u * 32 * 32 * 8;
// GL_TEXTURE_2D_ARRAY R8 64x64, 4 layers, glTexImage3D.
inline constexpr uint64_t kLayersBytes = 64u * 64 * 4;
// A buffer made at 4 KiB, then given 8 KiB (a resize of one object).
inline constexpr uint64_t kGrowingFirstBytes = 4096;
inline constexpr uint64_t kGrowingBytes = 8192;

inline constexpr Object kLevel2Objects[] = {
    {"portrait", Kind::kTexture, kPortraitBytes, false},
    {"probe", Kind::kTexture, kProbeBytes, true},
    {"layers", Kind::kTexture, kLayersBytes, true},
    {"growing", Kind::kBuffer, kGrowingBytes, true},
};

constexpr uint64_t Sum(const Object* objects, int count, Kind kind) {
  uint64_t sum = 0;
  for (int i = 0; i < count; ++i)
    if (objects[i].kind == kind) sum += objects[i].bytes;
  return sum;
}
inline constexpr int kLevel1Count = sizeof(kLevel1Objects) / sizeof(kLevel1Objects[0]);
inline constexpr int kLevel2Count = sizeof(kLevel2Objects) / sizeof(kLevel2Objects[0]);
inline constexpr uint64_t kLevel1Textures = Sum(kLevel1Objects, kLevel1Count, Kind::kTexture);
inline constexpr uint64_t kLevel1Buffers = Sum(kLevel1Objects, kLevel1Count, Kind::kBuffer);
inline constexpr uint64_t kLevel1Renderbuffers = Sum(kLevel1Objects, kLevel1Count, Kind::kRenderbuffer);
inline constexpr uint64_t kLevel1Bytes = kLevel1Textures + kLevel1Buffers + kLevel1Renderbuffers;
inline constexpr uint64_t kLevel2Bytes = kPortraitBytes + kProbeBytes + kLayersBytes + kGrowingBytes;

// The heap each level keeps while it is loaded (its level data), beside
// its GPU objects.
inline constexpr uint64_t kLevelHeapBytes = 2u << 20;

}  // namespace memframe::gpu_game
