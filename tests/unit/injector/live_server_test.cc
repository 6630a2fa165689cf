// The live socket's bounds: viewers that never read cost the recorder a
// bounded amount of memory in all, however many connect; the furthest
// behind is dropped with a message, the others keep following.
#include "live_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "fake_agent_client.h"

namespace memframe::injector {
namespace {

int ConnectTo(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  memcpy(address.sun_path, path.c_str(), path.size() + 1);
  // A small receive buffer: the kernel holds little of what is never read.
  int small = 4096;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void ServeOnce(LiveServer& server) {
  std::vector<pollfd> fds;
  server.AddPollFds(&fds);
  poll(fds.data(), fds.size(), 10);
  server.Service(fds.data(), fds.size());
}

TEST(LiveServer, StalledViewersTogetherStayWithinTwiceOneQueue) {
  test::TempDir dir;
  constexpr size_t kQueue = 256 << 10;
  std::ostringstream log;
  std::string error;
  auto server = LiveServer::Create(dir.File("live.sock"), dir.File("c.mfc"), log, &error, kQueue);
  ASSERT_TRUE(server) << error;
  // More viewers than it takes, none of which reads.
  std::vector<int> viewers;
  for (size_t i = 0; i < LiveServer::kMaxViewers + 4; ++i) {
    int fd = ConnectTo(server->socket_path());
    ASSERT_GE(fd, 0);
    viewers.push_back(fd);
    ServeOnce(*server);  // its backlog is short
  }
  ASSERT_EQ(server->viewers(), LiveServer::kMaxViewers);
  EXPECT_NE(log.str().find(": " + std::to_string(LiveServer::kMaxViewers) + " follow this run already"),
            std::string::npos)
      << log.str();
  // A run's worth of records: each viewer alone stays under its bound for
  // a while, all together pass twice that early.
  const std::string record(4096, 'r');
  size_t most = 0, read_by_first = 0;
  char buffer[1 << 16];
  for (int i = 0; i < 2000; ++i) {
    server->Publish(1, record.data(), record.size());
    most = std::max(most, server->queued_bytes());
    ServeOnce(*server);
    // The first viewer reads.
    for (ssize_t n; (n = recv(viewers[0], buffer, sizeof(buffer), MSG_DONTWAIT)) > 0;) read_by_first += n;
  }
  EXPECT_LE(most, 2 * kQueue);
  EXPECT_NE(log.str().find("cannot keep up (the viewers together are more than 512 KiB behind, this one the most)"),
            std::string::npos)
      << log.str();
  // The one that reads kept following: it got every record.
  EXPECT_GE(read_by_first, 2000 * record.size() - 4 * kQueue);
  ServeOnce(*server);
  EXPECT_GE(server->viewers(), 1u);
  for (int fd : viewers) close(fd);
}

}  // namespace
}  // namespace memframe::injector
