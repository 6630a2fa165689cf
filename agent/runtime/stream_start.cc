#include "runtime/stream_start.h"

#include "buffer/thread_buffer.h"
#include "capture/clock.h"
#include "capture/recorder.h"
#include "capture/stack_capture.h"
#include "capture/stack_table.h"
#include "gpu/gpu_queue.h"
#include "runtime/diagnostics.h"
#include "writer/writer_thread.h"

namespace memframe::agent {

bool ApplyCaptureConfig(const Config& config) {
  ConfigureCapture(config.stack_depth, config.stacks, config.free_stacks);
  InitStackCapture();
  if (!InitStackTable()) {
    Warn("cannot reserve memory for the stack table; not recording");
    return false;
  }
  SetDropWhenFull(config.drop_when_full);
  g_gpu_tracking = config.gpu;
  return true;
}

bool StartStream(SocketSink& sink, HelloInfo hello, const Config& config, void (*final_packets)(SocketSink& sink),
                 bool (*modules_loaded)()) {
  hello.start_ticks = Ticks();
  hello.start_monotonic_ns = MonotonicNs();
  hello.start_unix_ns = RealtimeNs();
  hello.max_stack_depth = static_cast<uint32_t>(config.stack_depth);
  WriterOptions options;
  options.time_slice_ns = static_cast<uint64_t>(config.time_slice_ms) * 1'000'000;
  options.final_packets = final_packets;
  options.modules_loaded = modules_loaded;
  if (!StartWriter(&sink, hello, options)) {
    sink.Close();
    return false;
  }
  g_recording.store(true, std::memory_order_release);
  return true;
}

}  // namespace memframe::agent
