// The GL format table (gl_formats.h): every format it sizes has its GL name,
// names and sizes come from the one list, and a format outside it is shown
// by number, never sized.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "memframe/analysis/gpu_objects.h"
#include "memframe/gl_formats.h"

namespace memframe::analysis {
namespace {

TEST(GlFormats, EveryFormatTheTableSizesIsNamed) {
  std::set<uint32_t> seen;
  for (const wire::GlFormat& f : wire::kGlFormats) {
    EXPECT_TRUE(seen.insert(f.format).second) << "listed twice: " << f.name;
    EXPECT_TRUE(f.info.known()) << f.name;
    EXPECT_EQ(GlFormatName(f.format).rfind("GL_", 0), 0u) << f.format;
  }
  EXPECT_EQ(seen.size(), 148u) << "sized and compressed formats (the unsized ones are listed apart)";
  EXPECT_EQ(GlFormatName(0x803C), "GL_ALPHA8");
  EXPECT_EQ(GlFormatName(0x93BD), "GL_COMPRESSED_RGBA_ASTC_12x12_KHR");
  EXPECT_EQ(GlFormatName(0x8C4F), "GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT");
  EXPECT_EQ(GlFormatName(0x1908), "GL_RGBA");
  EXPECT_EQ(GlFormatName(3), "3 components");
  EXPECT_EQ(GlFormatName(0x1234), "0x1234");
  EXPECT_EQ(GlFormatName(0), "");
  uint64_t bytes = 1;
  EXPECT_FALSE(wire::GlImageBytes(0x1234, 4, 4, 1, &bytes));
  EXPECT_EQ(bytes, 0u);
  EXPECT_TRUE(wire::GlImageBytes(0x803C, 64, 64, 1, &bytes));  // GL_ALPHA8: a byte a texel
  EXPECT_EQ(bytes, 4096u);
  EXPECT_TRUE(wire::GlImageBytes(0x93BD, 24, 24, 1, &bytes));  // ASTC 12x12: 2x2 blocks of 16 bytes
  EXPECT_EQ(bytes, 64u);
}

}  // namespace
}  // namespace memframe::analysis
