// A stand-in for libmemframe_agent.so, preloaded by `memframe run` in tests:
// connects to $MEMFRAME_SOCKET, says Hello when the process starts and
// EndOfStream when it exits. Hooks nothing.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "memframe/format.h"
#include "memframe.pb.h"
#include "memframe/varint.h"

namespace {

int g_fd = -1;
pid_t g_pid = 0;  // a forked child shares the connection but must not end it
// EndOfStream is framed at start: at exit, C++ statics (protobuf's among
// them) may already be destroyed when this library's destructor runs.
char g_goodbye[64];
size_t g_goodbye_size = 0;

std::string Framed(const memframe::wire::Packet& packet) {
  std::string body = packet.SerializeAsString();
  uint8_t length[memframe::wire::kMaxVarintBytes];
  uint8_t* end = memframe::wire::WriteVarint(length, body.size());
  return std::string(reinterpret_cast<char*>(length), reinterpret_cast<char*>(end)) + body;
}

void Send(const char* data, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t n = write(g_fd, data + done, size - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

__attribute__((constructor)) void FakeAgentStart() {
  const char* path = getenv(memframe::wire::kEnvSocket);
  if (!path) return;
  g_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  strncpy(address.sun_path, path, sizeof(address.sun_path) - 1);
  if (connect(g_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(g_fd);
    g_fd = -1;
    return;
  }
  g_pid = getpid();
  memframe::wire::Packet packet;
  memframe::wire::Hello* hello = packet.mutable_hello();
  hello->set_protocol_version(memframe::wire::kProtocolVersion);
  hello->set_pid(static_cast<uint32_t>(g_pid));
  hello->set_ppid(static_cast<uint32_t>(getppid()));
  char exe[PATH_MAX] = {};
  if (readlink("/proc/self/exe", exe, sizeof(exe) - 1) > 0) hello->set_executable(exe);
  hello->set_agent_version("fake");
  std::string frame = Framed(packet);
  Send(frame.data(), frame.size());
  // MEMFRAME_FAKE_AGENT_PAD_BYTES=N: then a thread name of N bytes that do
  // not compress, so that a test can fill the recorder's disk.
  if (const char* pad = getenv("MEMFRAME_FAKE_AGENT_PAD_BYTES")) {
    std::string name(strtoul(pad, nullptr, 10), 'a');
    uint32_t x = 12345;
    for (char& c : name) c = static_cast<char>('a' + ((x = x * 1103515245u + 12345u) >> 16) % 26);
    memframe::wire::Packet padding;
    padding.mutable_thread()->set_thread_id(1);
    padding.mutable_thread()->set_name(name);
    std::string padded = Framed(padding);
    Send(padded.data(), padded.size());
  }

  memframe::wire::Packet goodbye;
  goodbye.mutable_end()->set_reason("exit");
  std::string goodbye_frame = Framed(goodbye);
  g_goodbye_size = goodbye_frame.size() <= sizeof(g_goodbye) ? goodbye_frame.size() : 0;
  memcpy(g_goodbye, goodbye_frame.data(), g_goodbye_size);
}

__attribute__((destructor)) void FakeAgentEnd() {
  if (g_fd < 0 || getpid() != g_pid) return;
  Send(g_goodbye, g_goodbye_size);
  close(g_fd);
}

}  // namespace
