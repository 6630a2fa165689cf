// Loads a capture the way `memframe report` does and prints what it cost:
// events, wall time of loading and of the heap analysis, the bytes the
// events take in memory, and the peak RSS of the process. For people to
// read (README.md); no test asserts these numbers.
//
//   memframe_capture_load_bench CAPTURE [--analyze] [--progress]
//                               [--expect-events N] [--max-store-bytes-per-event B]
//
// The two --expect options turn it into a check (the bench.capture_scale
// test): exit 1 unless exactly N events loaded and the store holds them in
// at most B bytes each. Memory, not time: a number that does not depend on
// how busy the machine is.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/load_progress.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

long PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace memframe::analysis;
  std::string path;
  bool analyze = false, progress = StderrIsTerminal();
  long long expect_events = -1;
  double max_bytes_per_event = -1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--analyze") analyze = true;
    else if (arg == "--expect-events" && i + 1 < argc) expect_events = std::atoll(argv[++i]);
    else if (arg == "--max-store-bytes-per-event" && i + 1 < argc) max_bytes_per_event = std::atof(argv[++i]);
    else if (arg == "--progress") progress = true;
    else if (path.empty()) path = arg;
    else path.clear(), i = argc;
  }
  if (path.empty()) {
    fprintf(stderr, "usage: memframe_capture_load_bench CAPTURE [--analyze] [--progress]\n");
    return 2;
  }
  ProgressBar bar(std::cerr);
  LoadProgressFn callback = progress ? bar.Callback() : LoadProgressFn();

  auto start = std::chrono::steady_clock::now();
  Capture capture;
  std::string error;
  if (!LoadCapture(path, &capture, &error, callback)) {
    fprintf(stderr, "memframe_capture_load_bench: %s\n", error.c_str());
    return 2;
  }
  double load_s = Seconds(start);
  const size_t events = capture.main.events.size();
  const size_t store = capture.main.events.memory_bytes();
  long load_rss = PeakRssMb();
  printf("events %zu  threads %zu  load %.2f s  store %.2f bytes/event (%.1f MB)  peak RSS after load %ld MB (%.2f bytes/event)\n",
         events, capture.main.threads.size(), load_s, events ? double(store) / events : 0.0, store / 1048576.0, load_rss,
         events ? load_rss * 1048576.0 / events : 0.0);
  if (!capture.damage.empty()) printf("damage: %s\n", capture.damage.c_str());
  if (analyze) {
    start = std::chrono::steady_clock::now();
    HeapAnalysis heap = AnalyzeHeap(capture.main, callback);
    printf("analyse %.2f s  frames %zu  allocations %llu  leaks %llu blocks  checkpoints %zu (%.1f MB)  peak RSS %ld MB\n",
           Seconds(start), heap.frames.frames.size(), static_cast<unsigned long long>(heap.allocations),
           static_cast<unsigned long long>(heap.leaks.total_blocks), heap.live_sets.checkpoint_count(),
           heap.live_sets.memory_bytes() / 1048576.0, PeakRssMb());
  }
  if (expect_events >= 0 && static_cast<long long>(events) != expect_events) {
    printf("FAIL: expected %lld events\n", expect_events);
    return 1;
  }
  if (max_bytes_per_event >= 0 && events && double(store) / events > max_bytes_per_event) {
    printf("FAIL: more than %.2f bytes an event in the store\n", max_bytes_per_event);
    return 1;
  }
  return capture.damage.empty() ? 0 : 1;
}
