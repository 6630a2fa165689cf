// A private heap (Windows' HeapCreate, declared by the agent as an
// ALLOCATOR_HEAP allocator): from the wire (its AllocatorDef, the heap
// column of EventBatch) through the loader to AnalyzeAllocators, which
// counts the heap blocks that name it, and its destruction.
#include <gtest/gtest.h>

#include "memframe/analysis/allocators.h"
#include "memframe/analysis/capture_loader.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::Free;
using testing::TempPath;
using testing::TestCapture;
using testing::TestEvent;

TestEvent HeapAlloc(uint64_t ticks, uint64_t frame, uint64_t address, uint64_t size, uint32_t heap) {
  TestEvent e = Alloc(ticks, frame, address, size, 1);
  e.heap = heap;
  return e;
}

void DeclareHeap(TestCapture& tc, uint32_t id, uint64_t handle, uint32_t stack, uint64_t ticks, uint32_t tid) {
  wire::Packet p;
  wire::AllocatorDef* d = p.mutable_allocators()->add_allocators();
  d->set_id(id);
  d->set_name("heap 0x" + std::to_string(handle));
  d->set_kind(wire::ALLOCATOR_HEAP);
  d->set_base(handle);
  d->set_stack_id(stack);
  d->set_ticks(ticks);
  d->set_thread_id(tid);
  tc.Add(p);
}

TEST(PrivateHeaps, BlocksThatNameTheirHeapAreItsOwnAndItsDestructionIsKept) {
  TestCapture tc;
  // Made at ticks 9 (before the first event, in frame 1) and 12 (the
  // third event's, in frame 2).
  DeclareHeap(tc, 1, 0x40000, 9, 9, 77);
  DeclareHeap(tc, 2, 0x80000, 10, 12, 78);
  const uint32_t release = wire::PackKind(wire::EVENT_ALLOCATOR_RELEASE, 0, 0);
  tc.Batch(1, {HeapAlloc(10, 1, 0x41000, 100, 1), HeapAlloc(11, 1, 0x42000, 200, 1),
               HeapAlloc(12, 2, 0x81000, 300, 2), Alloc(13, 2, 0x90000, 400, 1),  // the process heap's
               Free(14, 3, 0x42000), HeapAlloc(15, 3, 0x82000, 500, 2),
               // Heap 1 destroyed whole: its last block's FREE, then its release.
               Free(16, 4, 0x41000), TestEvent{release, 0, 1, 0, 17, 4, 0}});
  tc.End();
  TempPath path("heaps");
  ASSERT_TRUE(tc.Write(path.path()));
  Capture c;
  std::string error;
  ASSERT_TRUE(LoadCapture(path.path(), &c, &error)) << error;
  ASSERT_EQ(c.main.allocators.size(), 2u);
  EXPECT_EQ(c.main.allocators[0].kind, AllocatorKind::kHeap);
  EXPECT_EQ(c.main.allocators[0].stack_id, 9u);
  EXPECT_EQ(c.main.allocators[0].ticks, 9u);
  EXPECT_EQ(c.main.allocators[0].thread_id, 77u);
  EXPECT_FALSE(c.main.allocators[0].Holds(0x40000)) << "a heap holds no custom block";

  const std::vector<AllocatorUsage> usage = AnalyzeAllocators(c.main);
  ASSERT_EQ(usage.size(), 2u);
  const AllocatorUsage& destroyed = usage[0];
  EXPECT_EQ(destroyed.blocks, 2u);
  EXPECT_EQ(destroyed.bytes, 300u);
  EXPECT_EQ(destroyed.live_blocks_end, 0u);
  EXPECT_EQ(destroyed.live_bytes_end, 0u);
  EXPECT_EQ(destroyed.high_water, 300u);
  EXPECT_TRUE(destroyed.destroyed);
  EXPECT_EQ(destroyed.destroyed_frame, 4u);
  EXPECT_EQ(destroyed.releases, 1u);
  EXPECT_EQ(destroyed.created_frame, 1u);
  ASSERT_FALSE(destroyed.frames.empty());
  EXPECT_EQ(destroyed.frames.front().frame, 1u);
  EXPECT_EQ(destroyed.frames.back().frame, 4u);

  const AllocatorUsage& kept = usage[1];
  EXPECT_EQ(kept.blocks, 2u);
  EXPECT_EQ(kept.bytes, 800u);
  EXPECT_EQ(kept.live_blocks_end, 2u);
  EXPECT_EQ(kept.live_bytes_end, 800u);
  EXPECT_FALSE(kept.destroyed);
  EXPECT_EQ(kept.created_frame, 2u);
  EXPECT_EQ(kept.backing_block, 0u);
}

TEST(PrivateHeaps, TitleNamesWhereAHeapWasMade) {
  AllocatorInfo heap;
  heap.name = "heap 0x4a0000";
  heap.kind = AllocatorKind::kHeap;
  EXPECT_EQ(AllocatorTitle(heap, "LoadLevel"), "heap 0x4a0000 created at LoadLevel");
  EXPECT_EQ(AllocatorTitle(heap, ""), "heap 0x4a0000");
  AllocatorInfo arena;
  arena.name = "frame arena";
  arena.kind = AllocatorKind::kFrameArena;
  EXPECT_EQ(AllocatorTitle(arena, "Main"), "frame arena");
}

}  // namespace
}  // namespace memframe::analysis
