// How many bytes an OpenGL image takes, from its internal format: the one
// table the agent (sizes at the call) and the readers (mip levels made by
// glGenerateMipmap) share. Header-only and allocation-free for the agent.
//
// A sized format's bytes are its own bits per texel, rounded up to whole
// bytes per texel as every driver stores them (GL_DEPTH_COMPONENT24: 4
// bytes, GL_DEPTH32F_STENCIL8: 8, GL_RGB5: 2); a compressed one's are its
// blocks. An unsized format (GL_RGBA, GL_RGB, the legacy 1..4) leaves the
// storage to the driver: the size is then that of the pixels as uploaded
// (format and type), said so in the event (GPU_SIZE_AS_UPLOADED). Any other
// format is unknown, recorded as such, never guessed.
#pragma once

#include <cstdint>

namespace memframe::wire {

struct GlFormatInfo {
  uint8_t bits = 0;         // bits per texel of an uncompressed format
  uint8_t block_width = 0;  // compressed: block size in texels and bytes
  uint8_t block_height = 0;
  uint8_t block_bytes = 0;
  constexpr bool known() const { return bits || block_bytes; }
};

constexpr GlFormatInfo Texel(uint8_t bits) { return {bits, 0, 0, 0}; }
constexpr GlFormatInfo Block(uint8_t w, uint8_t h, uint8_t bytes) { return {0, w, h, bytes}; }

constexpr GlFormatInfo GlSizedFormat(uint32_t internal_format) {
  switch (internal_format) {
    // 8 bits
    case 0x8229: case 0x8F94: case 0x8231: case 0x8232:  // R8, R8_SNORM, R8I, R8UI
    case 0x803C: case 0x8040: case 0x804B:               // ALPHA8, LUMINANCE8, INTENSITY8
    case 0x8D48: case 0x2A10: case 0x8055:               // STENCIL_INDEX8, R3_G3_B2, RGBA2
    case 0x8043: case 0x8FBD:                            // LUMINANCE4_ALPHA4, SR8_EXT
    case 0x803B: case 0x803F: case 0x804A:               // ALPHA4, LUMINANCE4, INTENSITY4 (a byte each)
      return Texel(8);
    // 16 bits
    case 0x822A: case 0x8F98: case 0x822D: case 0x8233: case 0x8234:  // R16, R16_SNORM, R16F, R16I, R16UI
    case 0x822B: case 0x8F95: case 0x8237: case 0x8238:               // RG8, RG8_SNORM, RG8I, RG8UI
    case 0x8D62: case 0x8057: case 0x8056: case 0x8050: case 0x804F:  // RGB565, RGB5_A1, RGBA4, RGB5, RGB4
    case 0x81A5: case 0x8D49:                                         // DEPTH_COMPONENT16, STENCIL_INDEX16
    case 0x8042: case 0x803E: case 0x8045: case 0x804D: case 0x8FBE:  // L16, A16, L8A8, I16, SRG8_EXT
      return Texel(16);
    // 24 bits
    case 0x8051: case 0x8F96: case 0x8D8F: case 0x8D7D: case 0x8C41:  // RGB8, RGB8_SNORM, RGB8I, RGB8UI, SRGB8
      return Texel(24);
    // 32 bits
    case 0x8058: case 0x8F97: case 0x8D8E: case 0x8D7C: case 0x8C43:  // RGBA8, _SNORM, I, UI, SRGB8_ALPHA8
    case 0x8059: case 0x906F: case 0x8C3A: case 0x8C3D: case 0x8052:  // RGB10_A2, RGB10_A2UI, R11F_G11F_B10F, RGB9_E5, RGB10
    case 0x822E: case 0x8235: case 0x8236:                            // R32F, R32I, R32UI
    case 0x822C: case 0x8F99: case 0x822F: case 0x8239: case 0x823A:  // RG16, _SNORM, F, I, UI
    case 0x81A6: case 0x81A7: case 0x8CAC: case 0x88F0:               // DEPTH24, DEPTH32, DEPTH32F, DEPTH24_STENCIL8
    case 0x93A1: case 0x8048:                                         // BGRA8_EXT, LUMINANCE16_ALPHA16
      return Texel(32);
    case 0x8054: case 0x8F9A: case 0x881B: case 0x8D89: case 0x8D77: case 0x8053:  // RGB16, _SNORM, F, I, UI; RGB12
      return Texel(48);
    case 0x805B: case 0x8F9B: case 0x881A: case 0x8D88: case 0x8D76:  // RGBA16, _SNORM, F, I, UI
    case 0x8230: case 0x823B: case 0x823C: case 0x8CAD: case 0x805A:  // RG32F, RG32I, RG32UI, DEPTH32F_STENCIL8, RGBA12
      return Texel(64);
    case 0x8815: case 0x8D83: case 0x8D71:  // RGB32F, RGB32I, RGB32UI
      return Texel(96);
    case 0x8814: case 0x8D82: case 0x8D70:  // RGBA32F, RGBA32I, RGBA32UI
      return Texel(128);

    // S3TC (EXT_texture_compression_s3tc, _sRGB)
    case 0x83F0: case 0x83F1: case 0x8C4C: case 0x8C4D: return Block(4, 4, 8);
    case 0x83F2: case 0x83F3: case 0x8C4E: case 0x8C4F: return Block(4, 4, 16);
    // RGTC (core 3.0), LATC (EXT)
    case 0x8DBB: case 0x8DBC: case 0x8C70: case 0x8C71: return Block(4, 4, 8);
    case 0x8DBD: case 0x8DBE: case 0x8C72: case 0x8C73: return Block(4, 4, 16);
    // BPTC (core 4.2)
    case 0x8E8C: case 0x8E8D: case 0x8E8E: case 0x8E8F: return Block(4, 4, 16);
    // ETC2 / EAC (core 4.3), ETC1 (OES)
    case 0x9270: case 0x9271: case 0x9274: case 0x9275: case 0x9276: case 0x9277: case 0x8D64:
      return Block(4, 4, 8);
    case 0x9272: case 0x9273: case 0x9278: case 0x9279: return Block(4, 4, 16);
    // FXT1 (3DFX)
    case 0x86B0: case 0x86B1: return Block(8, 4, 16);
    default: break;
  }
  // ASTC (KHR_texture_compression_astc_ldr): RGBA 0x93B0.., sRGB 0x93D0..,
  // fourteen block sizes in the same order, 16 bytes each.
  constexpr uint8_t kAstc[14][2] = {{4, 4},  {5, 4},  {5, 5},  {6, 5},   {6, 6},   {8, 5},   {8, 6},
                                    {8, 8},  {10, 5}, {10, 6}, {10, 8},  {10, 10}, {12, 10}, {12, 12}};
  for (uint32_t base : {0x93B0u, 0x93D0u})
    if (internal_format >= base && internal_format < base + 14)
      return Block(kAstc[internal_format - base][0], kAstc[internal_format - base][1], 16);
  return {};
}

// Bytes of one image of `internal_format`; false (and 0) when the format is
// not in the table.
constexpr bool GlImageBytes(uint32_t internal_format, uint32_t width, uint32_t height, uint32_t depth,
                            uint64_t* bytes) {
  const GlFormatInfo f = GlSizedFormat(internal_format);
  *bytes = 0;
  if (!f.known()) return false;
  const uint64_t w = width, h = height ? height : 1, d = depth ? depth : 1;
  if (f.bits) {
    *bytes = w * h * d * ((f.bits + 7u) / 8u);
  } else {
    *bytes = (w + f.block_width - 1) / f.block_width * ((h + f.block_height - 1) / f.block_height) * d * f.block_bytes;
  }
  return true;
}

// The unsized internal formats, whose storage the driver picks.
constexpr bool GlUnsizedFormat(uint32_t internal_format) {
  switch (internal_format) {
    case 1: case 2: case 3: case 4:                       // legacy component counts
    case 0x1903: case 0x8227: case 0x1907: case 0x1908:  // RED, RG, RGB, RGBA
    case 0x1906: case 0x1909: case 0x190A: case 0x8049:  // ALPHA, LUMINANCE, LUMINANCE_ALPHA, INTENSITY
    case 0x80E0: case 0x80E1:                             // BGR, BGRA
    case 0x1902: case 0x84F9: case 0x1901:                // DEPTH_COMPONENT, DEPTH_STENCIL, STENCIL_INDEX
    case 0x8C40: case 0x8C42:                             // SRGB, SRGB_ALPHA
      return true;
    default: return false;
  }
}

// Bytes of one pixel as the client hands it over (glTexImage's format and
// type), or 0 when either is not known.
constexpr uint32_t GlPixelBytes(uint32_t format, uint32_t type) {
  uint32_t components = 0;
  switch (format) {
    case 0x1903: case 0x1904: case 0x1905: case 0x1906: case 0x1909:  // RED, GREEN, BLUE, ALPHA, LUMINANCE
    case 0x8D94: case 0x8D95: case 0x8D96: case 0x8D97:               // *_INTEGER
    case 0x1902: case 0x1901:                                         // DEPTH_COMPONENT, STENCIL_INDEX
      components = 1; break;
    case 0x190A: case 0x8227: case 0x8228: case 0x84F9:  // LUMINANCE_ALPHA, RG, RG_INTEGER, DEPTH_STENCIL
      components = 2; break;
    case 0x1907: case 0x80E0: case 0x8D98: case 0x8D9A:  // RGB, BGR, RGB_INTEGER, BGR_INTEGER
      components = 3; break;
    case 0x1908: case 0x80E1: case 0x8D99: case 0x8D9B:  // RGBA, BGRA, RGBA_INTEGER, BGRA_INTEGER
      components = 4; break;
    default: return 0;
  }
  switch (type) {
    case 0x1400: case 0x1401: return components;      // BYTE, UNSIGNED_BYTE
    case 0x1402: case 0x1403: case 0x140B: return components * 2;  // SHORT, UNSIGNED_SHORT, HALF_FLOAT
    case 0x1404: case 0x1405: case 0x1406: return components * 4;  // INT, UNSIGNED_INT, FLOAT
    // Packed types: one pixel in one value.
    case 0x8032: case 0x8362: return 1;                            // UNSIGNED_BYTE_3_3_2, _2_3_3_REV
    case 0x8363: case 0x8364: case 0x8033: case 0x8365: case 0x8034: case 0x8366:  // 5_6_5, 4_4_4_4, 5_5_5_1 and REVs
      return 2;
    case 0x8035: case 0x8367: case 0x8036: case 0x8368:  // UNSIGNED_INT_8_8_8_8(_REV), 10_10_10_2, 2_10_10_10_REV
    case 0x84FA: case 0x8C3B: case 0x8C3E:               // UNSIGNED_INT_24_8, 10F_11F_11F_REV, 5_9_9_9_REV
      return 4;
    case 0x8DAD: return 8;  // FLOAT_32_UNSIGNED_INT_24_8_REV
    default: return 0;
  }
}

// Texture targets, as a reader needs them.
constexpr bool GlCubeFaceTarget(uint32_t target) { return target >= 0x8515 && target <= 0x851A; }
constexpr bool GlCubeMapTarget(uint32_t target) { return target == 0x8513; }  // GL_TEXTURE_CUBE_MAP
// Targets whose depth is a count of layers (kept at every mip level).
constexpr bool GlLayeredTarget(uint32_t target) {
  return target == 0x8C18 || target == 0x8C1A || target == 0x9009 || target == 0x9102;  // 1D/2D/cube arrays, 2D MS array
}
constexpr bool Gl1DArrayTarget(uint32_t target) { return target == 0x8C18; }  // its height is the layers

// Bytes of a whole mip chain of `levels` levels (glTexStorage), per face.
// A 1D array's height and the other arrays' depth are layers: they do not
// shrink with the level.
constexpr bool GlChainBytes(uint32_t internal_format, uint32_t target, uint32_t levels, uint32_t width,
                            uint32_t height, uint32_t depth, uint64_t* bytes) {
  *bytes = 0;
  if (!GlSizedFormat(internal_format).known()) return false;
  const bool height_layers = Gl1DArrayTarget(target), depth_layers = GlLayeredTarget(target) && !height_layers;
  for (uint32_t level = 0; level < levels; ++level) {
    auto shrink = [level](uint32_t v) { return (v >> level) ? (v >> level) : 1u; };
    uint64_t image = 0;
    GlImageBytes(internal_format, shrink(width), height_layers ? height : shrink(height ? height : 1),
                 depth_layers ? depth : shrink(depth ? depth : 1), &image);
    *bytes += image;
  }
  return true;
}

}  // namespace memframe::wire
