// Ground truth of the demo game: every figure a memframe capture of
// `memframe_demo_game --frames N` must reproduce. The game includes this
// header (and static_asserts its own types against it), the integration
// tests include it to know what to expect, so the two cannot drift.
//
// Frame numbering follows memframe (proto/FORMAT.md): frames count from 0,
// and everything that happens before the first glfwSwapBuffers returns
// belongs to frame 0. Each frame of the game calls glfwSwapBuffers exactly
// once, at its end. With N gameplay frames the game renders:
//
//   frames 0 .. kTitleFrames-1          title screen; the game's own code allocates nothing
//   frame  kTitleFrames                 LoadLevel(): kLevelBlocks blocks, kLevelBytes bytes
//   frames kTitleFrames+1 .. +N         gameplay (see the per-frame figures below)
//   frame  kTitleFrames+N+1             the entities still alive are destroyed, then
//                                       UnloadLevel() frees the level except the nav mesh
//
// then destroys its window and exits with status 0 (that teardown runs after
// the last swap, in a frame that never ends, so it adds no frame).
//
// Only allocations made by the functions named here are counted: GLFW,
// Mesa and libc allocate too, so tests select call sites by function name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace memframe::demo {

// ---- Frames ---------------------------------------------------------------

inline constexpr int kDefaultGameplayFrames = 300;
inline constexpr int kTitleFrames = 30;

inline constexpr int LoadFrame() { return kTitleFrames; }
inline constexpr int FirstGameplayFrame() { return kTitleFrames + 1; }
inline constexpr int LastGameplayFrame(int gameplay_frames) { return kTitleFrames + gameplay_frames; }
inline constexpr int UnloadFrame(int gameplay_frames) { return kTitleFrames + gameplay_frames + 1; }
// Number of glfwSwapBuffers calls, i.e. the frames memframe must count.
inline constexpr int TotalFrames(int gameplay_frames) { return kTitleFrames + gameplay_frames + 2; }
// The load phase memframe finds is LoadFrame() and the first gameplay frame,
// in which Mesa builds what the level's first draw needs (megabytes); the
// reports that judge steady play alone (hidden, lifetimes) so judge the
// gameplay frames after it: one fewer than were played.
inline constexpr int SteadyGameplayFrames(int gameplay_frames) { return gameplay_frames - 1; }

// ---- Damage labels: `new DamageLabel` in SpawnDamageLabel -----------------

// Every gameplay frame the player lands this many hits; each hit spawns one
// label. A label is deleted exactly kLabelLifetimeFrames frames after the
// frame that spawned it; labels still alive when gameplay ends are deleted
// in the unload frame.
inline constexpr int kHitsPerFrame = 2;
inline constexpr int kLabelLifetimeFrames = 45;
inline constexpr std::size_t kDamageLabelBytes = 48;  // sizeof(DamageLabel)

inline constexpr int DamageLabelCount(int gameplay_frames) { return gameplay_frames * kHitsPerFrame; }

// ---- HUD text: one std::string per gameplay frame in BuildHudText --------

// The HUD line always has exactly this many characters (fixed-width
// fields), more than std::string's 15-character small-string buffer, and is
// constructed in one go from a char buffer: libstdc++ makes exactly one
// allocation of length + 1 bytes (the terminating NUL) per gameplay frame.
inline constexpr std::size_t kHudTextLength = 40;
inline constexpr std::size_t kHudTextAllocationBytes = kHudTextLength + 1;
static_assert(kHudTextLength > 15, "the HUD string must not fit in the SSO buffer");

// ---- Projectiles: `new Projectile` in FireProjectile ---------------------

// A projectile is fired on gameplay frames 0, kProjectileInterval,
// 2 * kProjectileInterval, ... (counted from the first gameplay frame) and
// deleted exactly kProjectileLifetimeFrames frames later, or in the unload
// frame if gameplay ends first.
inline constexpr int kProjectileInterval = 5;
inline constexpr int kProjectileLifetimeFrames = 12;
inline constexpr std::size_t kProjectileBytes = 32;  // sizeof(Projectile)

inline constexpr int ProjectileCount(int gameplay_frames) {
  return (gameplay_frames + kProjectileInterval - 1) / kProjectileInterval;
}

// ---- Level data: allocated by LoadLevel in frame kTitleFrames -------------

// Element counts of the level's arrays. Their element types are trivially
// destructible, so `new T[n]` requests exactly n * sizeof(T) bytes (no array
// cookie).
inline constexpr std::size_t kTerrainCells = 64 * 64;       // float heights, new float[]
inline constexpr std::size_t kTileMapBytes = 64 * 64;       // one byte per tile, malloc
inline constexpr std::size_t kSpawnPointCount = 24;         // SpawnPoint, new SpawnPoint[]
inline constexpr std::size_t kSpawnPointBytes = 16;         // sizeof(SpawnPoint)
inline constexpr std::size_t kNavMeshBytes = 12288;         // one malloc in LoadNavMesh

inline constexpr std::size_t kTerrainBytes = kTerrainCells * sizeof(float);
inline constexpr std::size_t kSpawnTableBytes = kSpawnPointCount * kSpawnPointBytes;

// Every block whose stack contains LoadLevel (LoadNavMesh is called from it).
inline constexpr int kLevelBlocks = 4;
inline constexpr std::size_t kLevelBytes = kTerrainBytes + kTileMapBytes + kSpawnTableBytes + kNavMeshBytes;

// ---- The deliberate leak ---------------------------------------------------

// UnloadLevel frees every level block except the nav mesh, which is never
// freed: one block of kNavMeshBytes allocated in LoadNavMesh.
inline constexpr int kLeakedBlocks = 1;
inline constexpr std::size_t kLeakedBytes = kNavMeshBytes;

// ---- The particle trail: `--particle-trail` only -------------------------

// Off by default. With --particle-trail every gameplay frame makes one more
// allocation, `new ParticleTrail` in EmitParticleTrail, freed in the same
// frame: the known change `memframe compare` must find between a run with
// it and one without.
inline constexpr std::size_t kParticleTrailBytes = 72;  // sizeof(ParticleTrail)
inline constexpr std::string_view kParticleTrailOption = "--particle-trail";

// ---- The game's own heap, frame by frame (module class "game") -----------

// What the game's own code (the main executable) allocates and frees in
// gameplay frame g (counted from the first gameplay frame), and its live
// bytes at the frame's end beyond what it held after the load frame: the
// figures of `memframe report frames` and the timeline's live graph for the
// game class. The HUD string is freed in the frame that built it.
// The frees and live bytes count only blocks allocated in gameplay frame
// `first` or later: a capture that starts with `memframe attach` before
// gameplay frame `first` cannot know the older ones (their frees are
// counted apart), and a whole run is first = 0.
inline constexpr int LabelsAlive(int g, int first = 0) {
  const int oldest = g - kLabelLifetimeFrames + 1 > first ? g - kLabelLifetimeFrames + 1 : first;
  return g < oldest ? 0 : kHitsPerFrame * (g - oldest + 1);
}
inline constexpr int ProjectilesAlive(int g, int first = 0) {
  int alive = 0;
  for (int fired = 0; fired <= g; fired += kProjectileInterval) alive += fired >= first && g - fired < kProjectileLifetimeFrames;
  return alive;
}
inline constexpr bool FiresProjectile(int g) { return g % kProjectileInterval == 0; }
inline constexpr int GameAllocations(int g) { return kHitsPerFrame + 1 + (FiresProjectile(g) ? 1 : 0); }
inline constexpr std::size_t GameBytesAllocated(int g) {
  return kHitsPerFrame * kDamageLabelBytes + kHudTextAllocationBytes + (FiresProjectile(g) ? kProjectileBytes : 0);
}
inline constexpr bool ExpiresProjectile(int g, int first = 0) {
  return g - kProjectileLifetimeFrames >= first && FiresProjectile(g - kProjectileLifetimeFrames);
}
inline constexpr int GameFrees(int g, int first = 0) {
  return 1 + (g - kLabelLifetimeFrames >= first ? kHitsPerFrame : 0) + (ExpiresProjectile(g, first) ? 1 : 0);
}
inline constexpr std::size_t GameplayLiveBytes(int g, int first = 0) {
  return LabelsAlive(g, first) * kDamageLabelBytes + ProjectilesAlive(g, first) * kProjectileBytes;
}
static_assert(GameplayLiveBytes(0) == 2 * 48 + 32 && GameplayLiveBytes(100) == 90 * 48 + 3 * 32);
static_assert(GameFrees(72, 60) == 2 && GameFrees(71, 60) == 1 && GameFrees(105, 60) == 3 && GameFrees(45) == 3);
static_assert(GameplayLiveBytes(61, 60) == 4 * 48 + 32 && GameplayLiveBytes(119, 60) == 90 * 48 + 2 * 32);

// ---- Function names, as they appear (demangled) in stacks -------------------

// Match these as substrings: demangled names carry namespaces and
// parameter lists ("memframe::demo::SpawnDamageLabel(memframe::demo::...)").
inline constexpr std::string_view kSpawnDamageLabelFunction = "SpawnDamageLabel";
inline constexpr std::string_view kBuildHudTextFunction = "BuildHudText";
inline constexpr std::string_view kFireProjectileFunction = "FireProjectile";
inline constexpr std::string_view kLoadLevelFunction = "LoadLevel";
inline constexpr std::string_view kUnloadLevelFunction = "UnloadLevel";
inline constexpr std::string_view kLeakingFunction = "LoadNavMesh";
inline constexpr std::string_view kParticleTrailFunction = "EmitParticleTrail";

}  // namespace memframe::demo
