// Expected figures of the agent target programs, shared with the tests.
#pragma once

#include <cstddef>

namespace memframe::targets {

// threads_churn: kThreads threads, each makes kBlocksPerThread blocks of
// kChurnBlockSize bytes; half are freed by the thread that made them, half
// handed to the next thread and freed there.
constexpr int kThreads = 8;
constexpr int kBlocksPerThread = 20000;
constexpr size_t kChurnBlockSize = 777;

// exit_paths: kExitBlocks blocks of kExitBlockSize bytes kept live, then
// the program exits the way its argument says.
constexpr int kExitBlocks = 1000;
constexpr size_t kExitBlockSize = 1234;

// fork_child: the parent makes kParentBlocks before and after the fork, the
// child kChildBlocks, all of kForkBlockSize bytes.
constexpr int kParentBlocks = 300;
constexpr int kChildBlocks = 200;
constexpr size_t kForkBlockSize = 4321;

}  // namespace memframe::targets
