// Accumulates the packets of one agent stream into a Stream.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "memframe.pb.h"
#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

class StreamBuilder {
 public:
  explicit StreamBuilder(uint32_t stream_id);

  // Adds one packet; unless kOk, *error says why and nothing of it is kept.
  CaptureBuilder::Status Add(const wire::Packet& packet, std::string* error);

  uint64_t event_count() const { return stream_.events.size(); }
  // Puts the events in global order and hands the stream over.
  Stream Finish();

 private:
  uint16_t ThreadIndex(uint32_t tid);
  void AddModules(const wire::ModuleMap& map);

  Stream stream_;
  std::unordered_map<uint32_t, uint16_t> thread_index_;
  std::vector<uint64_t> last_ticks_;  // per thread index
  std::set<std::pair<std::string, uint64_t>> module_keys_;
};

}  // namespace memframe::analysis
