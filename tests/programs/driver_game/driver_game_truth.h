// Ground truth of the driver game: a game whose "graphics driver"
// (libfake_dri.so, named like a Mesa driver so memframe's default rules
// class it as a driver) allocates on the game's behalf inside the game's
// present, as real drivers do in glXSwapBuffers. The game, its driver and
// the tests include this header, so the figures cannot drift.
//
// Frames end at MemframeFrameMark, which the driver calls at the end of
// its present: frame f's driver and game allocations belong to frame f.
// Neither program prints nor touches stdio before the last frame, so every
// allocation the game's and the driver's code make is one counted here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memframe::driver_game {

inline constexpr int kFrames = 40;

// Inside the present, per frame: kCommandBlocks blocks from one place in
// the driver and kStagingBlocks from another (two driver paths under one
// game call: one site, as a developer sees it).
inline constexpr int kCommandBlocks = 2;
inline constexpr std::size_t kCommandBlockBytes = 256;
inline constexpr int kStagingBlocks = 1;
inline constexpr std::size_t kStagingBlockBytes = 1024;
inline constexpr int kDriverBlocksPerFrame = kCommandBlocks + kStagingBlocks;
inline constexpr std::size_t kDriverBytesPerFrame =
    kCommandBlocks * kCommandBlockBytes + kStagingBlocks * kStagingBlockBytes;

// The game's own code, per frame: kGameBlocks blocks of kGameBlockBytes in
// UpdateGame, freed in the same frame.
inline constexpr int kGameBlocks = 5;
inline constexpr std::size_t kGameBlockBytes = 48;

// Where the game calls into the driver and allocates (driver_game.cc;
// static_asserts there keep these right).
inline constexpr const char* kGameFile = "driver_game.cc";
inline constexpr int kPresentCallLine = 26;
inline constexpr int kUpdateAllocLine = 19;
inline constexpr const char* kPresentFunction = "PresentFrame";
inline constexpr const char* kUpdateFunction = "UpdateGame";
inline constexpr const char* kDriverModule = "libfake_dri.so";

// The names every table gives the two sites.
inline constexpr const char* kDriverSiteName = "libfake_dri.so (via PresentFrame driver_game.cc:26)";
inline constexpr const char* kGameSiteName = "UpdateGame(int)";

}  // namespace memframe::driver_game
