// The one hex formatter (memframe/hex.h) and the one integer parser
// (memframe/parse_number.h) that the CLI, the reports and the agent share.
#include <gtest/gtest.h>
#include <sys/types.h>

#include <climits>

#include "memframe/command_line.h"
#include "memframe/hex.h"
#include "memframe/parse_number.h"

namespace memframe {
namespace {

TEST(Hex, AddressesAndBytes) {
  EXPECT_EQ(Hex(0), "0x0");
  EXPECT_EQ(Hex(0x7f3a12c0), "0x7f3a12c0");
  EXPECT_EQ(Hex(UINT64_MAX), "0xffffffffffffffff");
  EXPECT_EQ(HexBytes(std::string("\x9f\x00\x3c", 3)), "9f003c");
  EXPECT_EQ(HexBytes(""), "");
}

TEST(ParseInteger, TheWholeTextWithinTheRange) {
  int value = -1;
  EXPECT_TRUE(ParseInteger<int>("12", &value, 1, 64));
  EXPECT_EQ(value, 12);
  for (const char* bad : {"", "12x", " 12", "+12", "65", "0", "1e3", "0x10"})
    EXPECT_FALSE(ParseInteger<int>(bad, &value, 1, 64)) << bad;
  EXPECT_EQ(value, 12);  // untouched by a failure
  long parsed = 0;
  EXPECT_TRUE(ParseLong("-7", &parsed));
  EXPECT_EQ(parsed, -7);
  EXPECT_FALSE(ParseLong("99999999999999999999", &parsed));
  uint64_t big = 0;
  EXPECT_TRUE(ParseInteger<uint64_t>("18446744073709551615", &big, 0, UINT64_MAX));
  EXPECT_EQ(big, UINT64_MAX);
}

}  // namespace
}  // namespace memframe
