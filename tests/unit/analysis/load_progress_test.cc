#include "memframe/analysis/load_progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace memframe::analysis {
namespace {

using Phase = LoadProgress::Phase;

TEST(ProgressBar, RedrawsOnlyWhenThePercentOrPhaseChanges) {
  std::ostringstream out;
  {
    ProgressBar bar(out);
    for (uint64_t done = 0; done <= 1000; ++done) bar.Update({Phase::kReading, done << 20, 1000ull << 20});
    bar.Update({Phase::kOrdering, 5'000'000, 10'000'000});
  }
  std::string s = out.str();
  // 101 percent steps of reading, one of ordering, one erase.
  EXPECT_EQ(std::count(s.begin(), s.end(), '\r'), 101 + 1 + 2);
  EXPECT_NE(s.find("\rmemframe: reading capture   0% (0 MiB of 1000 MiB)"), std::string::npos);
  EXPECT_NE(s.find("\rmemframe: reading capture 100% (1000 MiB of 1000 MiB)"), std::string::npos);
  EXPECT_NE(s.find("\rmemframe: ordering events  50% (5.0 M events of 10.0 M events)"), std::string::npos);
  // The last thing written leaves the line blank for whatever comes next.
  EXPECT_EQ(s.substr(s.size() - 1), "\r");
}

TEST(ProgressBar, NothingDrawnNothingErased) {
  std::ostringstream out;
  { ProgressBar bar(out); }
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace memframe::analysis
