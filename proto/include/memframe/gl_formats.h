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

// One sized or compressed internal format: its GL name and its storage.
struct GlFormat {
  uint32_t format;
  const char* name;
  GlFormatInfo info;
};

// Every sized and compressed format of core GL and the common extensions:
// the one list the sizes and the names come from.
inline constexpr GlFormat kGlFormats[] = {
    // 8 bits
    {0x8229, "GL_R8", Texel(8)},
    {0x8F94, "GL_R8_SNORM", Texel(8)},
    {0x8231, "GL_R8I", Texel(8)},
    {0x8232, "GL_R8UI", Texel(8)},
    {0x803C, "GL_ALPHA8", Texel(8)},
    {0x8040, "GL_LUMINANCE8", Texel(8)},
    {0x804B, "GL_INTENSITY8", Texel(8)},
    {0x8D48, "GL_STENCIL_INDEX8", Texel(8)},
    {0x2A10, "GL_R3_G3_B2", Texel(8)},
    {0x8055, "GL_RGBA2", Texel(8)},
    {0x8043, "GL_LUMINANCE4_ALPHA4", Texel(8)},
    {0x8FBD, "GL_SR8_EXT", Texel(8)},
    {0x803B, "GL_ALPHA4", Texel(8)},
    {0x803F, "GL_LUMINANCE4", Texel(8)},
    {0x804A, "GL_INTENSITY4", Texel(8)},
    // 16 bits
    {0x822A, "GL_R16", Texel(16)},
    {0x8F98, "GL_R16_SNORM", Texel(16)},
    {0x822D, "GL_R16F", Texel(16)},
    {0x8233, "GL_R16I", Texel(16)},
    {0x8234, "GL_R16UI", Texel(16)},
    {0x822B, "GL_RG8", Texel(16)},
    {0x8F95, "GL_RG8_SNORM", Texel(16)},
    {0x8237, "GL_RG8I", Texel(16)},
    {0x8238, "GL_RG8UI", Texel(16)},
    {0x8D62, "GL_RGB565", Texel(16)},
    {0x8057, "GL_RGB5_A1", Texel(16)},
    {0x8056, "GL_RGBA4", Texel(16)},
    {0x8050, "GL_RGB5", Texel(16)},
    {0x804F, "GL_RGB4", Texel(16)},
    {0x81A5, "GL_DEPTH_COMPONENT16", Texel(16)},
    {0x8D49, "GL_STENCIL_INDEX16", Texel(16)},
    {0x8042, "GL_LUMINANCE16", Texel(16)},
    {0x803E, "GL_ALPHA16", Texel(16)},
    {0x8045, "GL_LUMINANCE8_ALPHA8", Texel(16)},
    {0x804D, "GL_INTENSITY16", Texel(16)},
    {0x8FBE, "GL_SRG8_EXT", Texel(16)},
    // 24 bits
    {0x8051, "GL_RGB8", Texel(24)},
    {0x8F96, "GL_RGB8_SNORM", Texel(24)},
    {0x8D8F, "GL_RGB8I", Texel(24)},
    {0x8D7D, "GL_RGB8UI", Texel(24)},
    {0x8C41, "GL_SRGB8", Texel(24)},
    // 32 bits (GL_RGB10's 30 and GL_DEPTH_COMPONENT24's 24 padded)
    {0x8058, "GL_RGBA8", Texel(32)},
    {0x8F97, "GL_RGBA8_SNORM", Texel(32)},
    {0x8D8E, "GL_RGBA8I", Texel(32)},
    {0x8D7C, "GL_RGBA8UI", Texel(32)},
    {0x8C43, "GL_SRGB8_ALPHA8", Texel(32)},
    {0x8059, "GL_RGB10_A2", Texel(32)},
    {0x906F, "GL_RGB10_A2UI", Texel(32)},
    {0x8C3A, "GL_R11F_G11F_B10F", Texel(32)},
    {0x8C3D, "GL_RGB9_E5", Texel(32)},
    {0x8052, "GL_RGB10", Texel(32)},
    {0x822E, "GL_R32F", Texel(32)},
    {0x8235, "GL_R32I", Texel(32)},
    {0x8236, "GL_R32UI", Texel(32)},
    {0x822C, "GL_RG16", Texel(32)},
    {0x8F99, "GL_RG16_SNORM", Texel(32)},
    {0x822F, "GL_RG16F", Texel(32)},
    {0x8239, "GL_RG16I", Texel(32)},
    {0x823A, "GL_RG16UI", Texel(32)},
    {0x81A6, "GL_DEPTH_COMPONENT24", Texel(32)},
    {0x81A7, "GL_DEPTH_COMPONENT32", Texel(32)},
    {0x8CAC, "GL_DEPTH_COMPONENT32F", Texel(32)},
    {0x88F0, "GL_DEPTH24_STENCIL8", Texel(32)},
    {0x93A1, "GL_BGRA8_EXT", Texel(32)},
    {0x8048, "GL_LUMINANCE16_ALPHA16", Texel(32)},
    // 48 bits (GL_RGB12's 36 padded)
    {0x8054, "GL_RGB16", Texel(48)},
    {0x8F9A, "GL_RGB16_SNORM", Texel(48)},
    {0x881B, "GL_RGB16F", Texel(48)},
    {0x8D89, "GL_RGB16I", Texel(48)},
    {0x8D77, "GL_RGB16UI", Texel(48)},
    {0x8053, "GL_RGB12", Texel(48)},
    // 64 bits (GL_DEPTH32F_STENCIL8's 40 padded)
    {0x805B, "GL_RGBA16", Texel(64)},
    {0x8F9B, "GL_RGBA16_SNORM", Texel(64)},
    {0x881A, "GL_RGBA16F", Texel(64)},
    {0x8D88, "GL_RGBA16I", Texel(64)},
    {0x8D76, "GL_RGBA16UI", Texel(64)},
    {0x8230, "GL_RG32F", Texel(64)},
    {0x823B, "GL_RG32I", Texel(64)},
    {0x823C, "GL_RG32UI", Texel(64)},
    {0x8CAD, "GL_DEPTH32F_STENCIL8", Texel(64)},
    {0x805A, "GL_RGBA12", Texel(64)},
    // 96 bits
    {0x8815, "GL_RGB32F", Texel(96)},
    {0x8D83, "GL_RGB32I", Texel(96)},
    {0x8D71, "GL_RGB32UI", Texel(96)},
    // 128 bits
    {0x8814, "GL_RGBA32F", Texel(128)},
    {0x8D82, "GL_RGBA32I", Texel(128)},
    {0x8D70, "GL_RGBA32UI", Texel(128)},
    // S3TC (EXT_texture_compression_s3tc, EXT_texture_sRGB)
    {0x83F0, "GL_COMPRESSED_RGB_S3TC_DXT1_EXT", Block(4, 4, 8)},
    {0x83F1, "GL_COMPRESSED_RGBA_S3TC_DXT1_EXT", Block(4, 4, 8)},
    {0x8C4C, "GL_COMPRESSED_SRGB_S3TC_DXT1_EXT", Block(4, 4, 8)},
    {0x8C4D, "GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT1_EXT", Block(4, 4, 8)},
    {0x83F2, "GL_COMPRESSED_RGBA_S3TC_DXT3_EXT", Block(4, 4, 16)},
    {0x83F3, "GL_COMPRESSED_RGBA_S3TC_DXT5_EXT", Block(4, 4, 16)},
    {0x8C4E, "GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT3_EXT", Block(4, 4, 16)},
    {0x8C4F, "GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT", Block(4, 4, 16)},
    // RGTC (core 3.0), LATC (EXT)
    {0x8DBB, "GL_COMPRESSED_RED_RGTC1", Block(4, 4, 8)},
    {0x8DBC, "GL_COMPRESSED_SIGNED_RED_RGTC1", Block(4, 4, 8)},
    {0x8C70, "GL_COMPRESSED_LUMINANCE_LATC1_EXT", Block(4, 4, 8)},
    {0x8C71, "GL_COMPRESSED_SIGNED_LUMINANCE_LATC1_EXT", Block(4, 4, 8)},
    {0x8DBD, "GL_COMPRESSED_RG_RGTC2", Block(4, 4, 16)},
    {0x8DBE, "GL_COMPRESSED_SIGNED_RG_RGTC2", Block(4, 4, 16)},
    {0x8C72, "GL_COMPRESSED_LUMINANCE_ALPHA_LATC2_EXT", Block(4, 4, 16)},
    {0x8C73, "GL_COMPRESSED_SIGNED_LUMINANCE_ALPHA_LATC2_EXT", Block(4, 4, 16)},
    // BPTC (core 4.2)
    {0x8E8C, "GL_COMPRESSED_RGBA_BPTC_UNORM", Block(4, 4, 16)},
    {0x8E8D, "GL_COMPRESSED_SRGB_ALPHA_BPTC_UNORM", Block(4, 4, 16)},
    {0x8E8E, "GL_COMPRESSED_RGB_BPTC_SIGNED_FLOAT", Block(4, 4, 16)},
    {0x8E8F, "GL_COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT", Block(4, 4, 16)},
    // ETC2 / EAC (core 4.3), ETC1 (OES)
    {0x9270, "GL_COMPRESSED_R11_EAC", Block(4, 4, 8)},
    {0x9271, "GL_COMPRESSED_SIGNED_R11_EAC", Block(4, 4, 8)},
    {0x9274, "GL_COMPRESSED_RGB8_ETC2", Block(4, 4, 8)},
    {0x9275, "GL_COMPRESSED_SRGB8_ETC2", Block(4, 4, 8)},
    {0x9276, "GL_COMPRESSED_RGB8_PUNCHTHROUGH_ALPHA1_ETC2", Block(4, 4, 8)},
    {0x9277, "GL_COMPRESSED_SRGB8_PUNCHTHROUGH_ALPHA1_ETC2", Block(4, 4, 8)},
    {0x8D64, "GL_ETC1_RGB8_OES", Block(4, 4, 8)},
    {0x9272, "GL_COMPRESSED_RG11_EAC", Block(4, 4, 16)},
    {0x9273, "GL_COMPRESSED_SIGNED_RG11_EAC", Block(4, 4, 16)},
    {0x9278, "GL_COMPRESSED_RGBA8_ETC2_EAC", Block(4, 4, 16)},
    {0x9279, "GL_COMPRESSED_SRGB8_ALPHA8_ETC2_EAC", Block(4, 4, 16)},
    // FXT1 (3DFX)
    {0x86B0, "GL_COMPRESSED_RGB_FXT1_3DFX", Block(8, 4, 16)},
    {0x86B1, "GL_COMPRESSED_RGBA_FXT1_3DFX", Block(8, 4, 16)},
    // ASTC (KHR_texture_compression_astc_ldr): 16 bytes a block
    {0x93B0, "GL_COMPRESSED_RGBA_ASTC_4x4_KHR", Block(4, 4, 16)},
    {0x93B1, "GL_COMPRESSED_RGBA_ASTC_5x4_KHR", Block(5, 4, 16)},
    {0x93B2, "GL_COMPRESSED_RGBA_ASTC_5x5_KHR", Block(5, 5, 16)},
    {0x93B3, "GL_COMPRESSED_RGBA_ASTC_6x5_KHR", Block(6, 5, 16)},
    {0x93B4, "GL_COMPRESSED_RGBA_ASTC_6x6_KHR", Block(6, 6, 16)},
    {0x93B5, "GL_COMPRESSED_RGBA_ASTC_8x5_KHR", Block(8, 5, 16)},
    {0x93B6, "GL_COMPRESSED_RGBA_ASTC_8x6_KHR", Block(8, 6, 16)},
    {0x93B7, "GL_COMPRESSED_RGBA_ASTC_8x8_KHR", Block(8, 8, 16)},
    {0x93B8, "GL_COMPRESSED_RGBA_ASTC_10x5_KHR", Block(10, 5, 16)},
    {0x93B9, "GL_COMPRESSED_RGBA_ASTC_10x6_KHR", Block(10, 6, 16)},
    {0x93BA, "GL_COMPRESSED_RGBA_ASTC_10x8_KHR", Block(10, 8, 16)},
    {0x93BB, "GL_COMPRESSED_RGBA_ASTC_10x10_KHR", Block(10, 10, 16)},
    {0x93BC, "GL_COMPRESSED_RGBA_ASTC_12x10_KHR", Block(12, 10, 16)},
    {0x93BD, "GL_COMPRESSED_RGBA_ASTC_12x12_KHR", Block(12, 12, 16)},
    {0x93D0, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_4x4_KHR", Block(4, 4, 16)},
    {0x93D1, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_5x4_KHR", Block(5, 4, 16)},
    {0x93D2, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_5x5_KHR", Block(5, 5, 16)},
    {0x93D3, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_6x5_KHR", Block(6, 5, 16)},
    {0x93D4, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_6x6_KHR", Block(6, 6, 16)},
    {0x93D5, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_8x5_KHR", Block(8, 5, 16)},
    {0x93D6, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_8x6_KHR", Block(8, 6, 16)},
    {0x93D7, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_8x8_KHR", Block(8, 8, 16)},
    {0x93D8, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x5_KHR", Block(10, 5, 16)},
    {0x93D9, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x6_KHR", Block(10, 6, 16)},
    {0x93DA, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x8_KHR", Block(10, 8, 16)},
    {0x93DB, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x10_KHR", Block(10, 10, 16)},
    {0x93DC, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_12x10_KHR", Block(12, 10, 16)},
    {0x93DD, "GL_COMPRESSED_SRGB8_ALPHA8_ASTC_12x12_KHR", Block(12, 12, 16)},
};

constexpr const GlFormat* FindGlFormat(uint32_t internal_format) {
  for (const GlFormat& f : kGlFormats)
    if (f.format == internal_format) return &f;
  return nullptr;
}

constexpr GlFormatInfo GlSizedFormat(uint32_t internal_format) {
  const GlFormat* f = FindGlFormat(internal_format);
  return f ? f->info : GlFormatInfo{};
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

// The unsized internal formats, whose storage the driver picks, with their
// names (the legacy component counts have none in GL: "1 component"...).
inline constexpr struct {
  uint32_t format;
  const char* name;
} kGlUnsizedFormats[] = {
    {1, "1 component"}, {2, "2 components"}, {3, "3 components"}, {4, "4 components"},
    {0x1903, "GL_RED"}, {0x8227, "GL_RG"}, {0x1907, "GL_RGB"}, {0x1908, "GL_RGBA"},
    {0x1906, "GL_ALPHA"}, {0x1909, "GL_LUMINANCE"}, {0x190A, "GL_LUMINANCE_ALPHA"}, {0x8049, "GL_INTENSITY"},
    {0x80E0, "GL_BGR"}, {0x80E1, "GL_BGRA"}, {0x1902, "GL_DEPTH_COMPONENT"}, {0x84F9, "GL_DEPTH_STENCIL"},
    {0x1901, "GL_STENCIL_INDEX"}, {0x8C40, "GL_SRGB"}, {0x8C42, "GL_SRGB_ALPHA"},
};

constexpr bool GlUnsizedFormat(uint32_t internal_format) {
  for (const auto& f : kGlUnsizedFormats)
    if (f.format == internal_format) return true;
  return false;
}

// The name of any format above ("GL_ALPHA8", "GL_RGBA"); null for another.
constexpr const char* GlFormatName(uint32_t internal_format) {
  if (const GlFormat* f = FindGlFormat(internal_format)) return f->name;
  for (const auto& f : kGlUnsizedFormats)
    if (f.format == internal_format) return f.name;
  return nullptr;
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
