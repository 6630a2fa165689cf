#include "fake_agent_client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <vector>

#include "memframe.pb.h"
#include "agent_stream_encoder.h"
#include "xorshift.h"
#include "memframe/event_codec.h"
#include "memframe/varint.h"

namespace memframe::test {

std::string HelloPacket(uint32_t protocol_version) {
  wire::Packet packet;
  wire::Hello* hello = packet.mutable_hello();
  hello->set_protocol_version(protocol_version);
  hello->set_pid(static_cast<uint32_t>(getpid()));
  hello->set_executable("/usr/games/fake");
  hello->add_argv("fake");
  hello->set_agent_version("test");
  return packet.SerializeAsString();
}

std::string ThreadPacket(uint32_t thread_id, const std::string& name) {
  wire::Packet packet;
  packet.mutable_thread()->set_thread_id(thread_id);
  packet.mutable_thread()->set_name(name);
  return packet.SerializeAsString();
}

std::string EventsPacket(uint32_t thread_id, size_t events) {
  // Allocations only: no batch names a block of another, so each packet
  // stands alone in any stream. Encoded by the agent's own encoder, with
  // addresses, sizes and times that vary as a real agent's do.
  std::vector<wire::PlainEvent> plain(events);
  uint64_t address = 0, ticks = 0;
  test_support::XorShift wobble{0x9e3779b97f4a7c15ull ^ thread_id};
  for (size_t i = 0; i < events; ++i) {
    const uint64_t state = wobble.Next();
    address += 16 + state % 4096;
    ticks += 1 + (state >> 12) % 1000;
    plain[i] = {wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0), address, 16 + (state >> 24) % 2000,
                static_cast<uint32_t>(i % 5), ticks, 0, static_cast<uint32_t>(20 + (state >> 40) % 50)};
  }
  test_support::AgentStreamEncoder encoder;
  std::vector<wire::EventBatch> batches = encoder.Encode(thread_id, plain.data(), plain.size());
  if (batches.size() != 1) {
    fprintf(stderr, "EventsPacket: %zu events do not fit one agent packet\n", events);
    abort();
  }
  wire::Packet packet;
  *packet.mutable_events() = std::move(batches.front());
  return packet.SerializeAsString();
}

std::string StacksPacket(size_t stacks) {
  wire::Packet packet;
  test_support::XorShift wobble{0x2545f4914f6cdd1dull};
  for (size_t i = 0; i < stacks; ++i) {
    wire::StackDef* stack = packet.mutable_stacks()->add_stacks();
    stack->set_id(static_cast<uint32_t>(i + 1));
    for (uint32_t f = 0; f < wire::kMaxStackDepth; ++f) stack->add_frames(0x400000 + wobble.Next() % (1u << 28));
  }
  return packet.SerializeAsString();
}

std::string EndPacket(uint64_t events) {
  wire::Packet packet;
  packet.mutable_end()->set_events(events);
  packet.mutable_end()->set_reason("exit");
  return packet.SerializeAsString();
}

std::string Frame(const std::string& packet, size_t length_width) {
  uint8_t length[wire::kMaxVarintBytes];
  uint8_t* end = length_width ? wire::WritePaddedVarint(length, packet.size(), length_width)
                              : wire::WriteVarint(length, packet.size());
  return std::string(reinterpret_cast<char*>(length), reinterpret_cast<char*>(end)) + packet;
}

int ConnectTo(const std::string& socket_path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  strncpy(address.sun_path, socket_path.c_str(), sizeof(address.sun_path) - 1);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

bool WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

TempDir::TempDir() {
  const char* tmpdir = getenv("TMPDIR");
  std::string pattern = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/memframe-test-XXXXXX";
  if (mkdtemp(pattern.data())) path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

}  // namespace memframe::test
