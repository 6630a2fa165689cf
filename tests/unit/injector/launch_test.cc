// Where memframe looks for its agent (launch.h): beside an installed binary
// at any prefix, then in the build tree, then the configured path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "launch.h"

namespace memframe::injector {
namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(AgentCandidates, InstalledLayoutThenBuildTreeThenConfiguredPath) {
  const std::vector<std::string> candidates = AgentCandidates("/opt/scratch/usr/bin");
  ASSERT_EQ(candidates.size(), 3u);
  // lib/<multiarch>/memframe/ of the same prefix, whatever that prefix is.
  EXPECT_EQ(candidates[0].rfind("/opt/scratch/usr/bin/../lib/", 0), 0u) << candidates[0];
  EXPECT_TRUE(EndsWith(candidates[0], "/memframe/libmemframe_agent.so")) << candidates[0];
  EXPECT_EQ(candidates[1], "/opt/scratch/usr/bin/../lib/libmemframe_agent.so");
  EXPECT_EQ(candidates[2].front(), '/') << candidates[2];
  EXPECT_TRUE(EndsWith(candidates[2], "/memframe/libmemframe_agent.so")) << candidates[2];
}

}  // namespace
}  // namespace memframe::injector
