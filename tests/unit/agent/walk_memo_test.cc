// The walk memo (fast_unwinder.h WalkTrace, stack_capture.h StackMemo): a
// walk is repeated only when a fresh walk would give exactly its frames.
// Every word between the start and the top of what the walk read is changed
// in turn: whenever the memo still says "repeated", a fresh walk must give
// the traced frames (so no word the frames depend on is left unchecked), and
// a change to a word the trace holds must end the repeat.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "capture/fast_unwinder.h"
#include "capture/recent_stacks.h"
#include "capture/stack_capture.h"
#include "capture/stack_table.h"
#include "fast_unwinder_test_chain.h"

namespace memframe::agent::unwind_test {
namespace {

constexpr int kMaxRaw = 128;

struct MemoResult {
  std::unique_ptr<WalkTrace> trace = std::make_unique<WalkTrace>();
  int n = -2;
  int repeated_unchanged = -2;
  int words = 0;           // words changed in turn
  int traced_words = 0;    // of them, words the trace holds
  int still_repeated = 0;  // changes the memo let through (the fresh walk then agreed)
  std::vector<std::string> failures;
};

bool InTrace(const WalkTrace& t, uint64_t address) {
  for (int i = 0; i < t.reads; ++i)
    if (t.read[i].address == address) return true;
  return false;
}

__attribute__((noinline)) void MemoProbe(Chain* c) {
  auto* r = static_cast<MemoResult*>(c->result);
  const void* frame = __builtin_frame_address(0);
  WalkTrace& trace = *r->trace;
  void* traced[kMaxRaw];
  r->n = FastBacktraceFrom(frame, traced, c->size, &trace);
  if (r->n < 0 || !trace.frame) return;
  r->repeated_unchanged = RepeatedWalk(&trace, 1, frame, c->size);
  uint64_t top = 0;
  for (int i = 0; i < trace.reads; ++i) top = std::max(top, trace.read[i].address + 8);
  // From this frame's saved rbp up: the callers' frames, suspended until
  // this returns (each word is put back before the next is changed).
  for (auto* w = static_cast<volatile uint64_t*>(const_cast<void*>(frame));
       reinterpret_cast<uint64_t>(w) < top; ++w) {
    const uint64_t address = reinterpret_cast<uint64_t>(w);
    const uint64_t saved = *w;
    *w = saved ^ 0x10;
    const int repeated = RepeatedWalk(&trace, 1, frame, c->size);
    void* fresh[kMaxRaw];
    const int m = repeated == 0 ? FastBacktraceFrom(frame, fresh, c->size) : -1;
    *w = saved;
    ++r->words;
    const bool held = InTrace(trace, address);
    r->traced_words += held;
    if (held && repeated != -1) r->failures.push_back("a traced word changed and the walk still repeats");
    if (repeated != 0) continue;
    ++r->still_repeated;
    bool same = m == r->n;
    for (int i = 0; same && i < m; ++i) same = fresh[i] == traced[i];
    if (!same)
      r->failures.push_back("word at +" + std::to_string(address - reinterpret_cast<uint64_t>(frame)) +
                            " changed: repeated, but a fresh walk gives other frames");
  }
  asm volatile("" ::: "memory");
}

MemoResult RunMemoChain(const std::string& pattern, int size) {
  EXPECT_TRUE(InitFastUnwinder());
  NoteThreadStack();
  MemoResult r;
  Chain c{pattern.c_str(), MemoProbe, &r, size, 0};
  Next(&c);
  asm volatile("" ::: "memory");
  return r;
}

// Frames with and without frame pointers, and a shared library's.
const char* const kPatterns[] = {"", "f", "o", "fafmoAMbe", "ebMAfm", "lfo", "olMe", "rrrr", "aAaA", "MMMM"};

TEST(WalkMemo, RepeatsAWalkOnlyWhenAFreshWalkGivesItsFrames) {
  for (const char* pattern : kPatterns) {
    for (int size : {1, 2, 8, 40}) {
      const std::string what = std::string("pattern '") + pattern + "' size " + std::to_string(size);
      MemoResult r = RunMemoChain(pattern, size);
      ASSERT_GT(r.n, 0) << what << ": the fast unwinder declined ordinary code";
      ASSERT_NE(r.trace->frame, 0u) << what << ": a walk on the thread's own stack is traced";
      EXPECT_EQ(r.repeated_unchanged, 0) << what << ": nothing changed, the walk repeats";
      EXPECT_EQ(r.traced_words, r.trace->reads) << what << ": every traced word lies in the range changed";
      EXPECT_GT(r.still_repeated, 0) << what << ": some words (locals) do not matter to the frames";
      for (const std::string& f : r.failures) ADD_FAILURE() << what << ": " << f;
    }
  }
}

__attribute__((noinline)) void TraceOnly(Chain* c) {
  auto* r = static_cast<MemoResult*>(c->result);
  void* raw[kMaxRaw];
  r->n = FastBacktraceFrom(__builtin_frame_address(0), raw, c->size, r->trace.get());
  r->repeated_unchanged = RepeatedWalk(r->trace.get(), 1, __builtin_frame_address(0), c->size);
  // A module unloaded since (the rule cache starts a new generation): the
  // rules of the traced return addresses may be another module's now.
  InvalidateFastUnwinder();
  r->words = RepeatedWalk(r->trace.get(), 1, __builtin_frame_address(0), c->size);
  // Another walk size is another walk.
  r->traced_words = RepeatedWalk(r->trace.get(), 1, __builtin_frame_address(0), c->size + 1);
  asm volatile("" ::: "memory");
}

TEST(WalkMemo, AWalkDoesNotRepeatAcrossAnUnloadOrAnotherSize) {
  ASSERT_TRUE(InitFastUnwinder());
  NoteThreadStack();
  MemoResult r;
  Chain c{"fo", TraceOnly, &r, 8, 0};
  Next(&c);
  ASSERT_GT(r.n, 0);
  EXPECT_EQ(r.repeated_unchanged, 0);
  EXPECT_EQ(r.words, -1) << "repeated after InvalidateFastUnwinder";
  EXPECT_EQ(r.traced_words, -1) << "repeated for another size";
}

// The memo in the recorder's path: the same id as the table gives the
// captured frames, whether answered by a walk or by the memo.
struct IdResult {
  StackMemo* memo;
  RecentStacks* recent;
  uint32_t ids[3] = {};
  uint32_t table_id = 0;
};

__attribute__((noinline)) void IdProbe(Chain* c) {
  auto* r = static_cast<IdResult*>(c->result);
  for (uint32_t& id : r->ids) id = CaptureStackId(*r->memo, *r->recent, c->size, __builtin_frame_address(0));
  uint64_t frames[kMaxStackDepth];
  const int depth = CaptureStack(frames, c->size, __builtin_frame_address(0));
  r->table_id = depth > 0 ? InternStack(frames, depth) : 0;
  asm volatile("" ::: "memory");
}

TEST(WalkMemo, TheMemoGivesTheIdOfTheCapturedStack) {
  ASSERT_TRUE(InitStackTable());
  InitStackCapture();
  NoteThreadStack();
  auto memo = std::make_unique<StackMemo>();
  auto recent = std::make_unique<RecentStacks>();
  for (const char* pattern : {"fo", "lMa", "bbb"}) {
    IdResult r{memo.get(), recent.get()};
    Chain c{pattern, IdProbe, &r, 16, 0};
    Next(&c);
    ASSERT_NE(r.table_id, 0u) << pattern;
    for (uint32_t id : r.ids) EXPECT_EQ(id, r.table_id) << pattern;
  }
}

}  // namespace
}  // namespace memframe::agent::unwind_test
