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
    "steady_worst_frame": {"bytes": 4096, "module_classes": {"engine": {"allocations": 7}},
                           "sites": [{"pattern": "hud.cpp:*", "bytes": 64}]},
    "allocator_time_p99_ns": 50000, "load_live_bytes": 1048576, "loads": 3, "unloads": 0,
    "leaks": {"blocks": 1, "bytes": 12288, "module_classes": ["game", "engine"]}, "mismatches": 2})",
                          &b, &error))
      << error;
  EXPECT_EQ(b.steady_frame.all.allocations, 10u);
  EXPECT_EQ(b.steady_frame.all.bytes, 2048u);
  ASSERT_EQ(b.steady_frame.module_classes.size(), 2u);
  EXPECT_EQ(b.steady_frame.sites[0].pattern, "*Hud*");
  EXPECT_EQ(b.steady_frame.sites[0].limit.bytes, 41u);
  EXPECT_FALSE(b.steady_worst_frame.all.allocations.has_value());
  EXPECT_EQ(b.steady_worst_frame.all.bytes, 4096u);
  ASSERT_EQ(b.steady_worst_frame.module_classes.size(), 1u);
  EXPECT_EQ(b.steady_worst_frame.module_classes[0].first, ModuleClass::kEngine);
  EXPECT_EQ(b.steady_worst_frame.module_classes[0].second.allocations, 7u);
  ASSERT_EQ(b.steady_worst_frame.sites.size(), 1u);
  EXPECT_EQ(b.steady_worst_frame.sites[0].pattern, "hud.cpp:*");
  EXPECT_EQ(b.allocator_time_p99_ns, 50000u);
  EXPECT_EQ(b.load_live_bytes, 1048576u);
  EXPECT_EQ(b.loads, 3u);
  EXPECT_EQ(b.unloads, 0u);
  EXPECT_EQ(b.leak_blocks, 1u);
  EXPECT_TRUE(b.leak_classes.Keeps(ModuleClass::kEngine));
  EXPECT_FALSE(b.leak_classes.Keeps(ModuleClass::kDriver));
  EXPECT_EQ(b.mismatches, 2u);
}

// JSON keeps the last of two equal keys; a budget that says a limit twice
// is a mistake to point at, not one to check silently.
TEST(Budget, AKeyGivenTwiceIsAnError) {
  EXPECT_EQ(Refusal(R"({"loads": 3, "loads": 30})"), "loads: given twice");
  EXPECT_EQ(Refusal(R"({"steady_frame": {"bytes": 10, "allocations": 1, "bytes": 99}})"),
            "steady_frame.bytes: given twice");
  EXPECT_EQ(Refusal(R"({"steady_frame": {"sites": [{"pattern": "a"}, {"pattern": "b", "bytes": 1, "pattern": "c"}]}})"),
            "steady_frame.sites[1].pattern: given twice");
  // The same key in two objects is two keys.
  Budget b;
  std::string error;
  EXPECT_TRUE(ParseBudget(R"({"steady_frame": {"bytes": 1}, "steady_worst_frame": {"bytes": 2}})", &b, &error))
      << error;
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
  EXPECT_FALSE(b.steady_frame.all.allocations.has_value());
  EXPECT_FALSE(b.loads.has_value());
  EXPECT_FALSE(b.unloads.has_value());
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
  EXPECT_EQ(Refusal(R"({"steady_worst_frame": {"bytes": 1, "frames": 2}})"), "steady_worst_frame.frames: unknown key");
  EXPECT_EQ(Refusal(R"({"steady_worst_frame": {"sites": [{"pattern": ""}]}})"),
            "steady_worst_frame.sites[0].pattern: needs a glob naming a function or file:line");
  EXPECT_EQ(Refusal(R"({"loads": -1})"), "loads: must be a whole number of at least 0");
  EXPECT_EQ(Refusal(R"({"unloads": true})"), "unloads: must be a whole number of at least 0");
  EXPECT_EQ(Refusal(R"({"leaks": {"module_classes": []}})"), "leaks.module_classes: must be a non-empty array of classes");
  EXPECT_EQ(Refusal(R"({"mismatches": 1.5})"), "mismatches: must be a whole number of at least 0");
}

}  // namespace
}  // namespace memframe::analysis
