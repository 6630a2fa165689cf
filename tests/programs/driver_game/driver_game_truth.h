// Ground truth of the driver game: a game whose "graphics driver"
// (libfake_dri.so, named like a Mesa driver so memframe's default rules
// class it as a driver) allocates on the game's behalf inside the game's
// present, as real drivers do in glXSwapBuffers; a named worker thread does
// a job every frame; and the run has the phases of a real game: start-up
// (frame 0), steady play, load 1, steady play, load 2, steady play and a
// clean teardown. The game, its driver and the tests include this header, so
// the figures cannot drift.
//
// Frames end at MemframeFrameMark, which the driver calls at the end of
// its present: frame f's driver, game and worker allocations belong to
// frame f (the game waits for the worker's job before presenting). Neither
// program prints nor touches stdio before the last frame, so every
// allocation the game's and the driver's code make is one counted here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memframe::driver_game {

inline constexpr int kFrames = 40;

// Inside the present, per frame: kCommandBlocks blocks from one place in
// the driver and kStagingBlocks from another (two driver paths under one
// game call: one site, as a developer sees it). Each frame frees the blocks
// of the frame before; the teardown frees the last frame's.
inline constexpr int kCommandBlocks = 2;
inline constexpr std::size_t kCommandBlockBytes = 256;
inline constexpr int kStagingBlocks = 1;
inline constexpr std::size_t kStagingBlockBytes = 1024;
inline constexpr int kDriverBlocksPerFrame = kCommandBlocks + kStagingBlocks;
inline constexpr std::size_t kDriverBytesPerFrame =
    kCommandBlocks * kCommandBlockBytes + kStagingBlocks * kStagingBlockBytes;

// The game's own code on the main thread, per frame: kGameBlocks blocks of
// kGameBlockBytes in UpdateGame, freed in the same frame.
inline constexpr int kGameBlocks = 5;
inline constexpr std::size_t kGameBlockBytes = 48;

// The worker thread (named kWorkerName), per frame: kWorkerBlocks blocks of
// kWorkerBlockBytes in WorkerJob, freed in the same frame. It allocates
// nothing else.
inline constexpr const char* kWorkerName = "asset-worker";
inline constexpr int kWorkerBlocks = 3;
inline constexpr std::size_t kWorkerBlockBytes = 512;

// Every frame of steady play allocates exactly this (all of it freed by the
// end of the next frame).
inline constexpr int kSteadyBlocksPerFrame = kDriverBlocksPerFrame + kGameBlocks + kWorkerBlocks;
inline constexpr std::size_t kSteadyBytesPerFrame =
    kDriverBytesPerFrame + kGameBlocks * kGameBlockBytes + kWorkerBlocks * kWorkerBlockBytes;

// Start-up (frame 0, before the first present): kStartupBlocks blocks the
// game keeps until its teardown (frame 0 also holds what the C++ runtime
// and the thread's creation allocate).
inline constexpr int kStartupBlocks = 4;
inline constexpr std::size_t kStartupBlockBytes = 64 << 10;

// Level loads, main thread, blocks of kLevelBlockBytes from one line of
// LoadLevel. Load 1 spans frames kLoad1First..kLoad1Last, each allocating
// kLevel1BlocksPerFrame; its blocks stay live until load 2 (frame
// kLoad2Frame) frees them all and allocates kLevel2Blocks, which stay live
// until the teardown. Load 2 is the largest load.
inline constexpr std::size_t kLevelBlockBytes = 16 << 10;
inline constexpr int kLoad1First = 12;
inline constexpr int kLoad1Last = 13;
inline constexpr int kLevel1BlocksPerFrame = 24;
inline constexpr int kLevel1Blocks = (kLoad1Last - kLoad1First + 1) * kLevel1BlocksPerFrame;
inline constexpr int kLoad2Frame = 26;
inline constexpr int kLevel2Blocks = 80;
inline constexpr std::size_t kLevel1Bytes = kLevel1Blocks * kLevelBlockBytes;
inline constexpr std::size_t kLevel2Bytes = kLevel2Blocks * kLevelBlockBytes;
static_assert(kLevel2Bytes > kLevel1Bytes, "load 2 is the largest");
// Each load frame allocates far above steady play (phases.h: over 256 KiB).
static_assert(kLevel1BlocksPerFrame * kLevelBlockBytes > (256 << 10));

// Steady play: every frame but start-up and the loads (the teardown comes
// after frame kFrames - 1). The hidden and lifetimes reports judge these.
inline constexpr int kSteadyFrames = kFrames - 1 - (kLoad1Last - kLoad1First + 1) - 1;

// The main thread's allocations in the game's code. On top come, in frame
// 0, the C++ runtime's (class system) and one block glibc's pthread_create
// allocates for the worker's thread-local storage (calloc in
// _dl_allocate_tls, its size glibc's own): memframe skips the C library and
// the loader, so that block's site is main at kThreadCreateLine, class game.
inline constexpr int kMainGameBlocks = kFrames * kGameBlocks + kStartupBlocks + kLevel1Blocks + kLevel2Blocks;
inline constexpr std::size_t kMainGameBytes = kFrames * kGameBlocks * kGameBlockBytes +
                                              kStartupBlocks * kStartupBlockBytes + kLevel1Bytes + kLevel2Bytes;

// Where the game calls into the driver and allocates (driver_game.cc;
// static_asserts there keep these right).
inline constexpr const char* kGameFile = "driver_game.cc";
inline constexpr int kUpdateAllocLine = 27;
inline constexpr int kPresentCallLine = 34;
inline constexpr int kStartupAllocLine = 41;
inline constexpr int kLevelAllocLine = 47;
inline constexpr int kWorkerAllocLine = 60;
inline constexpr int kThreadCreateLine = 81;
inline constexpr const char* kPresentFunction = "PresentFrame";
inline constexpr const char* kUpdateFunction = "UpdateGame";
inline constexpr const char* kLevelFunction = "LoadLevel";
inline constexpr const char* kDriverModule = "libfake_dri.so";

// The names every table gives the sites.
inline constexpr const char* kDriverSiteName = "libfake_dri.so (via PresentFrame driver_game.cc:34)";
inline constexpr const char* kGameSiteName = "UpdateGame(int)";
inline constexpr const char* kWorkerSiteName = "WorkerJob()";

}  // namespace memframe::driver_game
