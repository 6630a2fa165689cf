// Frees that do not match their allocation: the wrong deallocation family
// (new/free, new[]/delete, malloc/delete, ...), a second free of a block,
// and frees of pointers the capture never saw allocated. Each is undefined
// behaviour that happens to work with glibc until it does not.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/event_pass.h"

namespace memframe::analysis {

struct Mismatch {
  // kFreedAfterRelease: a custom block (annotate.h) the game freed after its
  // allocator's release (an arena reset, a pool cleared) had freed it.
  enum class Kind { kFamily, kDoubleFree, kFreedAfterRelease, kUnknownPointer };
  Kind kind = Kind::kFamily;
  Family alloc_family = Family::kMalloc;  // all but kUnknownPointer: how the block was allocated
  Family free_family = Family::kMalloc;   // how it was freed
  uint32_t alloc_stack = 0;  // 0 for kUnknownPointer
  // The FREE event's stack: 0 unless the agent recorded free stacks
  // (FORMAT.md); kDoubleFree and kFreedAfterRelease: the second free's.
  uint32_t free_stack = 0;
  uint64_t count = 0;
  uint64_t bytes = 0;  // size of the blocks concerned (0 for kUnknownPointer)
  uint64_t first_frame = 0;
  uint64_t first_address = 0;
};

struct MismatchReport {
  // Grouped by kind, families and both stacks; by kind, then count
  // (descending), then the stacks.
  std::vector<Mismatch> mismatches;
  uint64_t frees = 0;                // every FREE event seen
  uint64_t frees_with_stack = 0;     // FREE events that carried a stack
  // memframe attach: frees of blocks allocated before the attach, which
  // are expected and not reported as unknown pointers.
  uint64_t freed_before_attach = 0;
};

// `realloc`'s FREE half is family malloc and so checks like free(). A
// double free is a FREE of an address whose block was freed and not
// allocated again since (a free after release when a release freed it and
// the second is a custom free); any other FREE of an address with no live block is
// an unknown pointer, except in a capture made by memframe attach (the
// stream's process.attached), where it is a block from before the attach.
// `beside`: passes fed the same events in the same replay (one decoding of
// the events for all).
MismatchReport FindMismatches(const Stream& stream, const std::vector<EventPass*>& beside = {});

// "family", "double_free", "freed_after_release", "unknown_pointer"
const char* MismatchKindName(Mismatch::Kind kind);
// How a block of the family is allocated / freed: "malloc", "new", "new[]", "mmap";
// "free", "delete", "delete[]", "munmap".
const char* AllocName(Family family);
const char* FreeName(Family family);

}  // namespace memframe::analysis
