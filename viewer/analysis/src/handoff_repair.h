// Undoes clock races between threads at the merge.
//
// The agent stamps heap events with the plain TSC (agent/capture/clock.h):
// a read that may execute a few hundred cycles ahead of the instructions
// before it, and on some machines (VMs, multi-socket boards) cores' TSCs
// also differ by a little. So when one thread frees a block and another
// gets the same address back at once, or one thread frees a block another
// allocated a moment ago, the two stamps can come out in the wrong order.
// The merge would then show an allocation over a live block, or a free of a
// block that does not exist yet.
//
// Such a contradiction is resolved here when the event that explains it
// comes from another thread within kHandoffWindowTicks: that event, and the
// events of its thread between the two (which came before it in its own
// program order), move to just before the contradiction, their ticks
// lowered to its ticks so that time never goes backwards. Nothing else
// moves; a contradiction that nothing resolves stays, for the analysis to
// count (HeapAnomalies).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "memframe/analysis/address_map.h"
#include "memframe/analysis/event_sink.h"
#include "memframe/analysis/event_store.h"

namespace memframe::analysis {

// ~20 us at 3 GHz: far beyond an out-of-order window, and the time two
// threads' events must be held back before they are final.
constexpr uint64_t kHandoffWindowTicks = uint64_t{1} << 16;

class HandoffRepair final : public EventSink {
 public:
  explicit HandoffRepair(EventSink* out, uint64_t window_ticks = kHandoffWindowTicks)
      : out_(out), window_ticks_(window_ticks) {}
  explicit HandoffRepair(EventStore* out, uint64_t window_ticks = kHandoffWindowTicks)
      : store_sink_(out), out_(&store_sink_), window_ticks_(window_ticks) {}

  // Events in merged order (ticks never decreasing).
  void Push(const Event& e) override;
  // Writes out what the window still holds.
  void Finish();

  // Contradictions resolved.
  uint64_t repairs() const { return repairs_; }

 private:
  // An event that contradicts the live set, waiting for its explanation.
  struct Contradiction {
    uint64_t address;
    uint64_t position;  // counted from the first event ever pushed
    uint64_t ticks;
    uint16_t thread;
    bool is_alloc;
  };

  bool Resolves(const Contradiction& c, const Event& e) const;
  void MoveThreadBefore(uint64_t position, uint16_t thread);
  void Settle(uint64_t now);

  StoreSink store_sink_{nullptr};
  EventSink* out_;
  uint64_t window_ticks_;
  // Events from the oldest open contradiction on: only they may still move.
  // Empty, and every event written straight out, while none is open.
  std::deque<Event> window_;
  uint64_t window_start_ = 0;  // position of window_.front(), or of the next event
  AddressSet live_;
  std::vector<Contradiction> open_;  // almost always empty
  uint64_t repairs_ = 0;
};

}  // namespace memframe::analysis
