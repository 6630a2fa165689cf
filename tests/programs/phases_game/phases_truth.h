// Ground truth of the phases game: a game in several parts, each with its
// own allocation rate, and the phases, spikes and per-phase answers a
// capture of `memframe_phases_game` must give. The game includes this header
// and the integration test includes it to know what to expect.
//
// Frame numbering follows memframe (proto/FORMAT.md): frame 0 holds
// everything before the first present returns; each later frame ends at
// the game's one glfwSwapBuffers of the frame. The parts, in order:
//
//   start-up   frame 0                 LoadStartupAssets keeps kStartupBytes
//   menu       kMenuFrames frames      MenuTick: kMenuAllocations a frame, freed in the frame;
//                                      every kMenuFlashInterval-th frame FlashMenuBanner
//                                      mallocs and frees kTransientBytes (a spike)
//   load 1     one frame               LoadWorldMap keeps kWorldMapBytes
//   map        kMapFrames frames       MapTick: kMapAllocations a frame, freed in the frame
//   load 2     one frame               LoadLevel keeps kLevelBytes
//   intro      kIntroFrames frames     IntroTick: kIntroAllocations a frame (no load before
//                                      gameplay: the rate alone changes)
//   gameplay   kGameplayFrames frames  GameplayTick: kGameplayOwnAllocations a frame, and
//                                      engine_find_path (libphases_engine.so, a
//                                      library the game calls) kEngineAllocations on its
//                                      behalf; every kShadowInterval-th frame
//                                      BuildShadowMap mallocs and frees kTransientBytes
//   unload     one frame               UnloadLevel frees the level
//   map again  kMapAgainFrames frames  MapTick, as before
//
// then the game exits without another present (the exit's frees are the
// teardown, a frame that never ends). Every tick's blocks are freed in the
// frame that made them, so the live heap only moves in the loads and the
// unload. Only allocations made by the functions named here are counted:
// GLFW, Mesa and libc allocate too.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memframe::phases_game {

inline constexpr std::size_t kStartupBytes = 4u << 20;  // 64 blocks of 64 KiB
inline constexpr int kStartupBlocks = 64;
inline constexpr std::size_t kWorldMapBytes = 3u << 20;  // 48 blocks of 64 KiB
inline constexpr int kWorldMapBlocks = 48;
inline constexpr std::size_t kLevelBytes = 2u << 20;  // 32 blocks of 64 KiB
inline constexpr int kLevelBlocks = 32;
inline constexpr std::size_t kAssetBlockBytes = 64u << 10;

inline constexpr int kMenuFrames = 120;
inline constexpr int kMapFrames = 150;
inline constexpr int kIntroFrames = 60;
inline constexpr int kGameplayFrames = 180;
inline constexpr int kMapAgainFrames = 90;

inline constexpr int kMenuAllocations = 1000;
inline constexpr std::size_t kMenuBlockBytes = 48;
inline constexpr int kMapAllocations = 2000;
inline constexpr std::size_t kMapBlockBytes = 32;
inline constexpr int kIntroAllocations = 600;
inline constexpr std::size_t kIntroBlockBytes = 40;
inline constexpr int kGameplayOwnAllocations = 130;
inline constexpr std::size_t kGameplayBlockBytes = 24;
inline constexpr int kEngineAllocations = 20;  // by engine_find_path, called once a gameplay frame
inline constexpr std::size_t kEngineBlockBytes = 56;

inline constexpr std::size_t kTransientBytes = 256u << 10;
inline constexpr int kMenuFlashInterval = 35;  // menu frames 35, 70, 105 (counted from 1)
inline constexpr int kShadowInterval = 7;      // gameplay frames 7, 14, ... (counted from 1)

// First frame of each part.
inline constexpr int kFirstMenuFrame = 1;
inline constexpr int kWorldMapLoadFrame = kFirstMenuFrame + kMenuFrames;
inline constexpr int kFirstMapFrame = kWorldMapLoadFrame + 1;
inline constexpr int kLevelLoadFrame = kFirstMapFrame + kMapFrames;
inline constexpr int kFirstIntroFrame = kLevelLoadFrame + 1;
inline constexpr int kFirstGameplayFrame = kFirstIntroFrame + kIntroFrames;
inline constexpr int kUnloadFrame = kFirstGameplayFrame + kGameplayFrames;
inline constexpr int kFirstMapAgainFrame = kUnloadFrame + 1;
inline constexpr int kLastFrame = kFirstMapAgainFrame + kMapAgainFrames - 1;  // the last that ends
inline constexpr int kFramesRendered = kLastFrame + 1;                         // presents

// Menu frame m (1-based within the menu) flashes the banner; gameplay frame
// g (1-based within gameplay) builds the shadow map.
inline constexpr bool FlashesBanner(int m) { return m % kMenuFlashInterval == 0; }
inline constexpr bool BuildsShadowMap(int g) { return g % kShadowInterval == 0; }

// The phases memframe must find, as `report phases` names them, in order.
struct ExpectedPhase {
  const char* name;
  int from, to;
};
inline constexpr ExpectedPhase kPhases[] = {
    {"start-up", 0, 0},
    {"steady 1", kFirstMenuFrame, kWorldMapLoadFrame - 1},     // menu
    {"load 1", kWorldMapLoadFrame, kWorldMapLoadFrame},
    {"steady 2", kFirstMapFrame, kLevelLoadFrame - 1},         // world map
    {"load 2", kLevelLoadFrame, kLevelLoadFrame},
    {"steady 3", kFirstIntroFrame, kFirstGameplayFrame - 1},   // level intro
    {"steady 4", kFirstGameplayFrame, kUnloadFrame - 1},       // gameplay
    {"unload 1", kUnloadFrame, kUnloadFrame},
    {"steady 5", kFirstMapAgainFrame, kLastFrame},             // world map again
    {"teardown", kLastFrame + 1, kLastFrame + 1},
};

}  // namespace memframe::phases_game
