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

// raw_fork: the parent makes kRawParentBlocks of kRawParentSize before and
// after a fork or clone system call (no atfork handler runs); the child
// makes kRawChildManyBlocks (more than a thread's ring holds) or
// kRawChildFewBlocks of kRawChildSize and exits.
constexpr int kRawParentBlocks = 400;
constexpr size_t kRawParentSize = 5432;
constexpr int kRawChildManyBlocks = 300000;
constexpr int kRawChildFewBlocks = 100;
constexpr size_t kRawChildSize = 2345;

// closes_fds: closes every fd above stderr, opens its own socketpair and
// file, and writes kFdRounds chunks to each while it makes kFdBlocksPerRound
// blocks of kFdLateSize a round (more than a thread's ring holds in all).
// In "after-start" mode it first makes kFdEarlyBlocks of kFdEarlySize while
// the agent records, and then puts its socket at every number that was open.
constexpr int kFdRounds = 20;
constexpr int kFdBlocksPerRound = 5000;
constexpr size_t kFdLateSize = 3579;
constexpr int kFdEarlyBlocks = 500;
constexpr size_t kFdEarlySize = 2469;

// mmap_arena: kArenaCount anonymous regions of kArenaBytes; the first is
// unmapped, the second grown to kGrownArenaBytes with mremap.
constexpr int kArenaCount = 3;
constexpr size_t kArenaBytes = 3 << 20;
constexpr size_t kGrownArenaBytes = 5 << 20;

// exec_chain: blocks before a failed exec, after it, and after the exec
// of itself into stage 2.
constexpr int kExecStage1Blocks = 111;
constexpr size_t kExecStage1Size = 1111;
constexpr int kExecAfterFailureBlocks = 122;
constexpr size_t kExecAfterFailureSize = 2222;
constexpr int kExecStage2Blocks = 133;
constexpr size_t kExecStage2Size = 3333;

// plugin_host: blocks the plugin allocates (and the host frees).
constexpr int kPluginBlocks = 77;
constexpr size_t kPluginBlockSize = 7777;

// before_main: blocks made in a library constructor and in static
// initialisers, before main.
constexpr int kEarlyLibBlocks = 55;
constexpr size_t kEarlyLibSize = 5555;
constexpr int kStaticInitBlocks = 66;
constexpr size_t kStaticInitSize = 6666;

// annotated_game: frames it marks itself, the frame of its named marker,
// and the block it makes each frame.
constexpr int kAnnotatedFrames = 25;
constexpr int kAnnotatedMarkerFrame = 5;
constexpr size_t kAnnotatedBlockSize = 4444;
// ... and the blocks it carves from its own frame arena each frame.
constexpr int kArenaBlocksPerFrame = 3;
constexpr size_t kArenaBlockSize = 48 * 3;

// egl_game and sdl12_game: frames presented.
constexpr int kEglFrames = 30;
constexpr int kSdl12Frames = 35;
constexpr int kVulkanFrames = 20;

// sdl2_game: frames presented.
constexpr int kSdlFrames = 40;

// fibers: kFibers fibers (ucontext, stacks of their own) each make
// kFiberRounds blocks of kFiberBlockSize bytes in AllocateOnFiber, called
// by FiberJob; main frees them all.
constexpr int kFibers = 4;
constexpr int kFiberRounds = 500;
constexpr size_t kFiberBlockSize = 2468;

// static_jemalloc and reentry_allocator: programs whose executable brings its
// own malloc (which the loader binds before any preloaded library). Each
// thread (main and kOwnAllocatorThreads workers) maps kOwnRegions anonymous
// regions of kOwnRegionBytes itself; the allocator's own mappings come on top.
constexpr int kOwnAllocatorThreads = 3;
constexpr int kOwnRegions = 4;
constexpr size_t kOwnRegionBytes = 3 * 65536 + 4096;
// static_jemalloc --wait-for-attach: blocks made before the attach, freed
// after it (attach_test.py knows these numbers too).
constexpr int kOwnOldBlocks = 7;
constexpr size_t kOwnOldBlockBytes = 777;
// own_new: new char[100 + i] for i below this, each deleted at once.
constexpr int kOwnNewBlocks = 16;
// reentry_allocator maps its heap in chunks of this size (one MAP each).
constexpr size_t kOwnHeapChunkBytes = 1 << 20;

// mimalloc_api and jemalloc_api: kApiRounds rounds of calls to an
// allocator's own API in UseAllocatorApi (the programs list each call and
// its bytes); every block is freed in its round.
constexpr int kApiRounds = 5;
// Per round, mimalloc_api: mi_malloc 100, mi_calloc 4 x 25, mi_zalloc 50,
// mi_malloc_aligned 64, mi_new 80, mi_realloc to 200, and through the
// malloc family (mimalloc's own, which forwards to its mi_* exports)
// posix_memalign 96 and malloc 30.
constexpr int kMimallocApiBlocksPerRound = 8;
constexpr size_t kMimallocApiBytesPerRound = 100 + 100 + 50 + 64 + 80 + 200 + 96 + 30;
// Per round, jemalloc_api: mallocx 100, mallocx 64 zeroed, rallocx to 200,
// xallocx to 210 (in place: 200 bytes sit in the 224-byte size class),
// mallocx 48 aligned to 64.
constexpr int kJemallocApiBlocksPerRound = 5;
constexpr size_t kJemallocApiBytesPerRound = 100 + 64 + 200 + 210 + 48;
// late_mimalloc, mimalloc's API from a library dlopen'ed late. Per round,
// the plugin's UsePluginApi: mi_malloc 100, mi_calloc 4 x 25, mi_zalloc
// 40, mi_realloc to 300, mi_new 60 (attach_test.py knows these too).
constexpr int kPluginApiBlocksPerRound = 5;
constexpr size_t kPluginApiBytesPerRound = 100 + 100 + 40 + 300 + 60;
// Per round, UseDlsymApi: mi_malloc 100 and mi_calloc 3 x 30 through
// pointers from dlsym.
constexpr int kDlsymApiBlocksPerRound = 2;
constexpr size_t kDlsymApiBytesPerRound = 100 + 90;

// signal_alloc: a thread sends the main thread kSignals signals one at a
// time while it allocates in a loop; each handler run allocates one block of
// kSignalBlockSize bytes and frees it.
constexpr int kSignals = 1000;
constexpr size_t kSignalBlockSize = 200;

// rlimit_host: under an address-space limit of its argument (MiB), takes
// kLimitBlockBytes blocks until malloc fails and prints how many MiB it got.
constexpr size_t kLimitBlockBytes = 1 << 20;

// named_worker: a thread named kWorkerName makes kWorkerBlocks blocks of
// kWorkerBlockSize bytes and frees them; the main thread makes kMainBlocks of
// kMainBlockSize and frees them.
constexpr const char* kWorkerName = "asset-loader";
constexpr int kWorkerBlocks = 3210;
constexpr size_t kWorkerBlockSize = 1357;
constexpr int kMainBlocks = 456;
constexpr size_t kMainBlockSize = 2468 + 1;

// dlerror_state: glibc keeps a failed dlopen's error (a message and a result
// object, both from malloc) until the thread's next dl* call, and a dlsym
// that succeeds frees both. The program fails a dlopen twice, then lets a
// dlsym succeed, with a block of each sentinel size allocated and freed at
// once before the second failure, after it, and after the dlsym.
constexpr size_t kDlerrorBeforeSentinel = 7771;
constexpr size_t kDlerrorFailedSentinel = 7772;
constexpr size_t kDlerrorAfterSentinel = 7773;

}  // namespace memframe::targets
