// Constants shared by the agent, the recorder and the readers. The layouts
// they name are described in proto/FORMAT.md.
#pragma once

#include <cstdint>

namespace memframe::wire {

// Version of the agent -> recorder stream (Hello.protocol_version). A
// recorder refuses a peer with another version; readers also read streams
// of every version from kOldestReadableProtocol (FORMAT.md, "Version rule").
// 2: EventBatch names addresses by reference and time stamps by gap.
// 3: time stamps in units of 2^tick_shift ticks; a FREE's size and stack in
//    columns of their own.
// 4: an allocator time (duration_ticks) as a log-scale code (event_refs.h
//    DurationCode).
// 5: allocator times in a unit of their own (EventBatch.duration_shift),
//    finer than the time stamps' (tick_shift).
constexpr uint32_t kProtocolVersion = 5;
constexpr uint32_t kOldestReadableProtocol = 1;
// The largest EventBatch.tick_shift (and duration_shift) a reader accepts
// (units of 64 Ki ticks).
constexpr uint32_t kMaxTickShift = 16;

// A capture file starts with these 8 bytes, then a little-endian uint32
// version, then one zstd stream of records (see FORMAT.md).
constexpr char kCaptureMagic[8] = {'M', 'E', 'M', 'F', 'R', 'A', 'M', 'E'};
constexpr uint32_t kCaptureVersion = 1;

// Largest packet a reader accepts; anything bigger is corruption.
constexpr uint64_t kMaxPacketBytes = 64u << 20;

// Most frames a stack holds: the agent captures at most this many
// (MEMFRAME_STACK_DEPTH is clamped to it); a reader takes a deeper stack as
// damage rather than keeping and symbolizing it.
constexpr uint32_t kMaxStackDepth = 64;

// Most events a reader takes in one EventBatch: the agent sends at most
// 2^16 (agent/writer/packet_encoder.cc); a batch's events cost a reader
// ~100 bytes each, whatever few bytes they were coded in.
constexpr uint32_t kMaxBatchEvents = 1u << 20;

// Longest snapshot name the recorder takes from a viewer (FORMAT.md, "Live
// socket"); a reader takes a longer one as damage.
constexpr uint32_t kMaxSnapshotNameBytes = 200;

// The agent's writer thread names itself so before it records anything (it
// ends the time-slice frames, so it has events and a ThreadInfo); readers
// leave it out of every figure of the game's threads.
constexpr const char* kWriterThreadName = "memframe-writer";

// EventBatch.kind packs the EventKind, the Family and two flags.
constexpr uint32_t kKindMask = 0x7;
constexpr uint32_t kFamilyShift = 3;
constexpr uint32_t kFamilyMask = 0x3;
constexpr uint32_t kFlagRealloc = 1u << 5;
constexpr uint32_t kFlagCalloc = 1u << 6;
constexpr uint32_t kFlagCustom = 1u << 7;  // a block of the game's own allocator (annotate.h)
// Never on the wire: on a custom FREE, one the reader made to carry out an
// EVENT_ALLOCATOR_RELEASE (a custom block has no calloc of its own).
constexpr uint32_t kFlagReleased = kFlagCalloc;

constexpr uint32_t PackKind(uint32_t kind, uint32_t family, uint32_t flags) {
  return kind | (family << kFamilyShift) | flags;
}
constexpr uint32_t KindOf(uint32_t packed) { return packed & kKindMask; }
constexpr uint32_t FamilyOf(uint32_t packed) { return (packed >> kFamilyShift) & kFamilyMask; }

// GpuEvent.memory_heap of a VkDeviceMemory whose device's memory types the
// agent never saw (FORMAT.md, "GPU objects").
constexpr uint32_t kVkHeapUnknown = 0xFFFFFFFFu;

// Environment the recorder hands to the agent.
constexpr const char* kEnvSocket = "MEMFRAME_SOCKET";            // Unix socket path to connect to
constexpr const char* kEnvTcp = "MEMFRAME_TCP";                  // Windows agent: loopback HOST:PORT of the recorder (memframe run --tcp)
constexpr const char* kEnvStackDepth = "MEMFRAME_STACK_DEPTH";   // frames per stack (default 32, max 64)
constexpr const char* kEnvStacks = "MEMFRAME_STACKS";            // "0" turns stack capture off
constexpr const char* kEnvDebug = "MEMFRAME_DEBUG";              // "1": agent diagnostics on stderr
constexpr const char* kEnvTimeSliceMs = "MEMFRAME_TIME_SLICE_MS";  // fallback frame length until a present (default 16, 0 = off)
constexpr const char* kEnvDropWhenFull = "MEMFRAME_DROP";        // "1": drop (and count) events instead of waiting
constexpr const char* kEnvFollowFork = "MEMFRAME_FOLLOW_FORK";   // "1": a forked child records its own stream
constexpr const char* kEnvFollowExec = "MEMFRAME_FOLLOW_EXEC";   // "0": exec'd programs run without the agent
constexpr const char* kEnvFreeStacks = "MEMFRAME_FREE_STACKS";   // "1": capture the stack of every free too
constexpr const char* kEnvGpu = "MEMFRAME_GPU";                 // "0": no GPU object events (the GL / Vulkan calls pass straight through)
constexpr const char* kEnvFrameSource = "MEMFRAME_FRAME_SOURCE"; // "auto" (default), "slices", or a present's name
// memframe attach only, in the settings file it writes (never the
// environment): a file the agent creates once its hooks are in place.
constexpr const char* kSettingAttachReady = "MEMFRAME_ATTACH_READY";
// A file through which the agent hands memframe the function entries to
// patch while the game is stopped (agent/attach/entry_trampolines.h).
constexpr const char* kSettingAttachEntries = "MEMFRAME_ATTACH_ENTRIES";

}  // namespace memframe::wire
