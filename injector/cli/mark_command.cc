#include "mark_command.h"

#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli_common.h"
#include "commands.h"
#include "memframe.pb.h"
#include "memframe/analysis/live_follow.h"

namespace memframe::injector {

namespace {
// The recorder writes the mark within one poll round; this is for a
// recorder that stopped answering.
constexpr auto kAnswerLimit = std::chrono::seconds(10);
}  // namespace

void PrintMarkUsage(std::ostream& out) {
  out << "usage: memframe mark SOCKET [NAME]\n"
         "\n"
         "Places a named marker now in the run recording on SOCKET (the live\n"
         "socket `memframe run` prints). Without NAME the recorder names it\n"
         "'snapshot N'. Diff two marks with: memframe report CAPTURE diff A B\n"
         "\n"
         "options:\n"
         "  -h, --help     show this help\n";
}

int MarkCommand(const std::vector<std::string>& all_args) {
  std::vector<std::string> args;
  if (std::optional<int> status = ReadCommandArgs("mark", {}, all_args, &args)) return *status;
  std::string error;
  if (args.empty() || args.size() > 2)
    return UsageError("mark", args.empty() ? "no socket given" : "one socket and one name only, not '" + args[2] + "'");
  auto connection = analysis::LiveConnection::Connect(args[0], &error);
  if (!connection || !connection->RequestSnapshot(args.size() > 1 ? args[1] : "", &error)) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitMemframeError;
  }
  // The mark comes back on the stream as a Snapshot record; the first one
  // after the request is ours (another viewer's mark may race it: rare, and
  // both are in the capture either way).
  std::mutex mutex;
  std::condition_variable done_changed;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock lock(mutex);
    if (!done_changed.wait_for(lock, kAnswerLimit, [&] { return done; })) connection->Shutdown();
  });
  uint32_t stream = 0;
  std::vector<uint8_t> packet;
  std::string name;
  while (name.empty() && connection->Next(&stream, &packet)) {
    wire::Packet parsed;
    if (stream == 0 && parsed.ParseFromArray(packet.data(), static_cast<int>(packet.size())) &&
        parsed.has_snapshot())
      name = parsed.snapshot().name();
  }
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  done_changed.notify_all();
  watchdog.join();
  if (name.empty()) {
    ErrorLine(std::cerr) << "the recorder did not confirm the mark"
              << (connection->error().empty() ? "" : " (" + connection->error() + ")") << '\n';
    return kExitMemframeError;
  }
  std::cout << "marked '" << name << "' in " << connection->capture_path() << '\n';
  return 0;
}

}  // namespace memframe::injector
