// Budget files: what ParseBudget accepts, and the key it names when it
// refuses one.
#include <gtest/gtest.h>

#include "memframe/analysis/budget.h"

namespace memframe::analysis {
namespace {

std::string Refusal(const std::string& text) {
  Budget budget;
  std::string error;
  EXPECT_FALSE(ParseBudget(text, &budget, &error)) << text;
  return error;
}

TEST(Budget, ParsesEveryKey) {
  Budget b;
  std::string error;
  ASSERT_TRUE(ParseBudget(R"({
    // comments are allowed
    "steady_frame": {"allocations": 10, "bytes": 2048,
                     "module_classes": {"game": {"allocations": 4}, "driver": {"bytes": 100}},
                     "sites": [{"pattern": "*Hud*", "allocations": 1, "bytes": 41}]},
    "allocator_time_p99_ns": 50000, "load_live_bytes": 1048576,
    "leaks": {"blocks": 1, "bytes": 12288, "module_classes": ["game", "engine"]}, "mismatches": 2})",
                          &b, &error))
      << error;
  EXPECT_EQ(b.steady_frame.allocations, 10u);
  EXPECT_EQ(b.steady_frame.bytes, 2048u);
  ASSERT_EQ(b.module_classes.size(), 2u);
  EXPECT_EQ(b.sites[0].pattern, "*Hud*");
  EXPECT_EQ(b.sites[0].limit.bytes, 41u);
  EXPECT_EQ(b.allocator_time_p99_ns, 50000u);
  EXPECT_EQ(b.load_live_bytes, 1048576u);
  EXPECT_EQ(b.leak_blocks, 1u);
  EXPECT_TRUE(b.leak_classes.Keeps(ModuleClass::kEngine));
  EXPECT_FALSE(b.leak_classes.Keeps(ModuleClass::kDriver));
  EXPECT_EQ(b.mismatches, 2u);
}

TEST(Budget, DefaultsAllowNoLeakOfTheGamesOwnAndNoMismatch) {
  Budget b;
  std::string error;
  ASSERT_TRUE(ParseBudget("{}", &b, &error));
  EXPECT_EQ(b.leak_blocks, 0u);
  EXPECT_EQ(b.leak_bytes, 0u);
  EXPECT_TRUE(b.leak_classes.Keeps(ModuleClass::kGame));
  EXPECT_FALSE(b.leak_classes.Keeps(ModuleClass::kSystem));
  EXPECT_EQ(b.mismatches, 0u);
  EXPECT_FALSE(b.steady_frame.allocations.has_value());
}

TEST(Budget, RefusalsNameTheBadKey) {
  EXPECT_EQ(Refusal("{"), "not valid JSON");
  EXPECT_EQ(Refusal("[]"), "budget: must be an object");
  EXPECT_EQ(Refusal(R"({"steady": {}})"), "steady: unknown key");
  EXPECT_EQ(Refusal(R"({"steady_frame": {"alocations": 3}})"), "steady_frame.alocations: unknown key");
  EXPECT_EQ(Refusal(R"({"steady_frame": {"bytes": -1}})"), "steady_frame.bytes: must be a whole number of at least 0");
  EXPECT_EQ(Refusal(R"({"steady_frame": {"bytes": "1 MiB"}})"),
            "steady_frame.bytes: must be a whole number of at least 0");
  EXPECT_EQ(Refusal(R"({"steady_frame": {"module_classes": {"gpu": {}}}})"),
            "steady_frame.module_classes.gpu: not a module class (game, engine, driver, system)");
  EXPECT_EQ(Refusal(R"({"steady_frame": {"sites": [{"bytes": 1}]}})"),
            "steady_frame.sites[0].pattern: needs a glob naming a function or file:line");
  EXPECT_EQ(Refusal(R"({"leaks": {"module_classes": []}})"), "leaks.module_classes: must be a non-empty array of classes");
  EXPECT_EQ(Refusal(R"({"mismatches": 1.5})"), "mismatches: must be a whole number of at least 0");
}

}  // namespace
}  // namespace memframe::analysis
