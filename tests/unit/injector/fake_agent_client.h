// Helpers that play the agent's side of the socket in recorder tests: build
// packets with the generated classes and frame them as an agent would.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memframe/format.h"

namespace memframe::test {

std::string HelloPacket(uint32_t protocol_version = wire::kProtocolVersion);
std::string ThreadPacket(uint32_t thread_id, const std::string& name);
// An EventBatch of `events` allocations (at most 2^16, the agent's most in
// one packet), to give packets a size.
std::string EventsPacket(uint32_t thread_id, size_t events);
// StackDefs of `stacks` stacks of kMaxStackDepth frames: a packet of any size.
std::string StacksPacket(size_t stacks);
std::string EndPacket(uint64_t events);

// varint length + packet; `length_width` > 0 pads the length varint to that
// many bytes, as the real agent does.
std::string Frame(const std::string& packet, size_t length_width = 0);

// A connected client socket, or -1 (the test then fails on its own).
int ConnectTo(const std::string& socket_path);
bool WriteAll(int fd, const std::string& bytes);

// Makes a fresh directory under $TMPDIR or /tmp; removes it with everything
// in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace memframe::test
