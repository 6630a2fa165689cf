// Writes a synthetic capture of a game-shaped load, as many events as asked,
// with CaptureWriter and the agent's own encoder: what `memframe run` would
// record, without running anything. Used to measure loading at 10 M and
// 100 M events (README.md) and, at a few million, by the capture_scale test.
//
//   memframe_capture_gen OUT.mfc [--events N] [--threads T] [--events-per-frame E] [--seed S]
//   memframe_capture_gen OUT.mfc --churn-threads T
//
// --churn-threads: T threads that each live a moment (a job system that
// starts a thread per job): one allocation and its free each, overlapping
// the next two threads' in time, a frame every 100 threads. The shape that
// made `memframe report` quadratic in threads (issue 34, item 10).
//
// Model: T threads (thread 0 presents), E events a frame spread over them.
// Each thread keeps a working set of blocks: it allocates while under its
// target and otherwise frees a random live block, so the live set stays
// bounded and addresses are reused the way an allocator reuses them; one
// allocation in 500 is never freed (a leak). Batches are flushed per thread
// when full or every few frames, so batches of different threads overlap
// in time and the loader must merge them. Deterministic for a given seed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "agent_stream_encoder.h"
#include "xorshift.h"
#include "memframe.pb.h"
#include "memframe/capture_file.h"
#include "memframe/event_codec.h"
#include "memframe/format.h"

namespace {

using memframe::wire::CaptureWriter;
namespace wire = memframe::wire;

constexpr uint32_t kStacks = 400;
constexpr uint32_t kStackDepth = 10;
constexpr uint64_t kModuleBase = 0x555555554000;
constexpr uint32_t kPresentMarker = 1;
constexpr size_t kBatchEvents = 4096;     // the agent's batches are about this size
constexpr uint32_t kFlushEveryFrames = 3;  // a quiet thread's batch still goes out
constexpr uint64_t kTicksPerFrame = 16'000'000;  // ~16 ms at 1 GHz

struct Options {
  std::string out;
  uint64_t events = 1'000'000;
  uint32_t threads = 4;
  uint32_t events_per_frame = 2000;
  uint64_t seed = 1;
  uint32_t churn_threads = 0;
};

using Rng = memframe::test_support::XorShift;

struct Block {
  uint64_t address;
  uint64_t size;
};

// One simulated thread: its live blocks, its address space and its batch.
struct SimThread {
  uint32_t tid = 0;
  uint64_t next_address = 0;       // bump pointer
  std::vector<uint64_t> free_addresses;  // reused before bumping (one size class: good enough)
  std::vector<Block> live;
  size_t target_live = 0;
  std::vector<wire::PlainEvent> batch;  // encoded when flushed, in the stream's order
  uint32_t unflushed_frames = 0;
};

class Generator {
 public:
  Generator(const Options& options, CaptureWriter* writer)
      : options_(options), writer_(writer), rng_{options.seed * 0x9E3779B97F4A7C15ull | 1} {}

  bool RunChurn() {
    Header();
    SimThread main;
    main.tid = 999;
    uint64_t ticks = 1'000'000, events = 0;
    uint32_t frame = 0;
    for (uint32_t t = 0; t < options_.churn_threads; ++t, ticks += 10) {
      SimThread th;
      th.tid = 1000 + t;
      wire::Packet p;
      p.mutable_thread()->set_thread_id(th.tid);
      p.mutable_thread()->set_name("job " + std::to_string(t));
      const uint64_t address = 0x7f0000000000ull + (static_cast<uint64_t>(t) << 12);
      if (!Write(p) ||
          !Push(th, wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0), address, 64, 1 + t % kStacks,
                ticks + 3, frame, 100) ||
          !Push(th, wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, 0), address, 0, 0, ticks + 25, frame, 50) ||
          !Flush(th))
        return false;
      events += 2;
      if (t % 100 == 99) {
        if (!Push(main, wire::PackKind(wire::EVENT_FRAME_END, 0, 0), kPresentMarker, frame, 0, ticks + 9, frame, 0) ||
            !Flush(main))
          return false;
        ++frame;
        ++events;
      }
    }
    options_.events = events;
    return Trailer(frame, events);
  }

  uint64_t events() const { return options_.events; }

  bool Run() {
    if (options_.churn_threads) return RunChurn();
    Header();
    threads_.resize(options_.threads);
    for (uint32_t t = 0; t < options_.threads; ++t) {
      SimThread& th = threads_[t];
      th.tid = 1000 + t;
      th.next_address = 0x7f0000000000ull + (static_cast<uint64_t>(t) << 32);
      th.target_live = 2000 + 1000 * t;
      wire::Packet p;
      p.mutable_thread()->set_thread_id(th.tid);
      p.mutable_thread()->set_name(t == 0 ? "main" : "worker " + std::to_string(t));
      if (!Write(p)) return false;
    }
    uint64_t written = 0;
    uint32_t frame = 0;
    while (written < options_.events) {
      uint64_t frame_start = 1'000'000 + static_cast<uint64_t>(frame) * kTicksPerFrame;
      for (uint32_t t = 0; t < options_.threads && written < options_.events; ++t) {
        uint64_t n = std::min<uint64_t>(options_.events_per_frame / options_.threads, options_.events - written);
        // Spread the thread's events over the frame; threads overlap in time.
        uint64_t step = kTicksPerFrame / (n + 2);
        uint64_t ticks = frame_start + 1 + rng_.Below(step);
        for (uint64_t i = 0; i < n; ++i, ticks += 1 + rng_.Below(2 * step - 1)) {
          if (ticks >= frame_start + kTicksPerFrame - 2) ticks = frame_start + kTicksPerFrame - 2;
          if (!OneEvent(threads_[t], ticks, frame)) return false;
        }
        written += n;
      }
      if (written < options_.events) {
        SimThread& main = threads_[0];
        if (!Push(main, wire::PackKind(wire::EVENT_FRAME_END, 0, 0), kPresentMarker, frame, 0,
                  frame_start + kTicksPerFrame - 1, frame, 0))
          return false;
        ++written;
      }
      ++frame;
      for (SimThread& th : threads_)
        if (++th.unflushed_frames >= kFlushEveryFrames && !Flush(th)) return false;
    }
    for (SimThread& th : threads_)
      if (!Flush(th)) return false;
    return Trailer(frame, written);
  }

 private:
  bool OneEvent(SimThread& th, uint64_t ticks, uint32_t frame) {
    bool alloc = th.live.size() < th.target_live ? rng_.Below(10) < 7 : rng_.Below(10) < 3;
    if (th.live.empty()) alloc = true;
    uint32_t duration = static_cast<uint32_t>(40 + rng_.Below(400));
    if (!alloc) {
      size_t i = rng_.Below(th.live.size());
      Block b = th.live[i];
      th.live[i] = th.live.back();
      th.live.pop_back();
      th.free_addresses.push_back(b.address);
      uint32_t family = b.size % 3 == 0 ? wire::FAMILY_NEW : wire::FAMILY_MALLOC;
      return Push(th, wire::PackKind(wire::EVENT_FREE, family, 0), b.address, 0, 0, ticks, frame, duration);
    }
    uint32_t stack = 1 + static_cast<uint32_t>(rng_.Below(kStacks));
    // A site allocates sizes near its own typical size.
    uint64_t size = 16 + (stack * 37) % 2000 + rng_.Below(64);
    uint64_t address;
    if (!th.free_addresses.empty() && rng_.Below(4) != 0) {
      size_t i = rng_.Below(th.free_addresses.size());
      address = th.free_addresses[i];
      th.free_addresses[i] = th.free_addresses.back();
      th.free_addresses.pop_back();
    } else {
      address = th.next_address;
      th.next_address += 4096;  // every block fits its slot
    }
    if (rng_.Below(500) != 0) th.live.push_back({address, size});  // else: leaked
    uint32_t family = size % 3 == 0 ? wire::FAMILY_NEW : wire::FAMILY_MALLOC;
    return Push(th, wire::PackKind(wire::EVENT_ALLOC, family, 0), address, size, stack, ticks, frame, duration);
  }

  bool Push(SimThread& th, uint32_t kind, uint64_t address, uint64_t size, uint32_t stack, uint64_t ticks,
            uint32_t frame, uint32_t duration) {
    th.batch.push_back({kind, address, size, stack, ticks, frame, duration});
    return th.batch.size() < kBatchEvents || Flush(th);
  }

  bool Flush(SimThread& th) {
    th.unflushed_frames = 0;
    if (th.batch.empty()) return true;
    std::vector<wire::EventBatch> batches = encoder_.Encode(th.tid, th.batch.data(), th.batch.size());
    th.batch.clear();
    wire::Packet packet;
    for (wire::EventBatch& batch : batches) {
      *packet.mutable_events() = std::move(batch);
      if (!Write(packet)) return false;
    }
    return true;
  }

  bool Write(const wire::Packet& p, uint32_t stream = 1) {
    p.SerializeToString(&scratch_);
    return writer_->Append(stream, scratch_.data(), scratch_.size());
  }

  void Header() {
    wire::Packet p;
    p.mutable_recorder()->set_command_line("memframe_capture_gen");
    Write(p, 0);
    p.Clear();
    wire::Hello* h = p.mutable_hello();
    h->set_protocol_version(wire::kProtocolVersion);
    h->set_pid(4242);
    h->set_executable("/opt/synthetic_game");
    h->set_start_ticks(1'000'000);
    h->set_start_monotonic_ns(1'000'000);
    h->set_max_stack_depth(kStackDepth);
    Write(p);
    p.Clear();
    wire::Module* m = p.mutable_module_map()->add_modules();
    m->set_path("/opt/synthetic_game");
    m->set_load_bias(kModuleBase);
    m->add_segments()->set_memsz(1 << 20);
    Write(p);
    p.Clear();
    wire::MarkerDef* marker = p.mutable_markers()->add_markers();
    marker->set_id(kPresentMarker);
    marker->set_name("glfwSwapBuffers");
    Write(p);
    p.Clear();
    for (uint32_t id = 1; id <= kStacks; ++id) {
      wire::StackDef* s = p.mutable_stacks()->add_stacks();
      s->set_id(id);
      for (uint32_t d = 0; d < kStackDepth; ++d) s->add_frames(kModuleBase + 0x1000 + (id * 131 + d * 17) % 0xf0000);
    }
    Write(p);
  }

  bool Trailer(uint32_t frames, uint64_t events) {
    wire::Packet p;
    p.mutable_clock()->set_ticks(1'000'000 + static_cast<uint64_t>(frames) * kTicksPerFrame);
    p.mutable_clock()->set_monotonic_ns(1'000'000 + static_cast<uint64_t>(frames) * kTicksPerFrame);
    Write(p);
    p.Clear();
    p.mutable_end()->set_events(events);
    p.mutable_end()->set_last_frame(frames);
    p.mutable_end()->set_reason("exit");
    Write(p);
    p.Clear();
    p.mutable_recorder()->set_finished(true);
    return Write(p, 0);
  }

  Options options_;
  CaptureWriter* writer_;
  Rng rng_;
  std::vector<SimThread> threads_;
  std::string scratch_;
  memframe::test_support::AgentStreamEncoder encoder_;  // the agent's own encoder
};

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto number = [&](uint64_t* out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      *out = strtoull(argv[++i], &end, 10);
      return *end == '\0' && *out > 0;
    };
    uint64_t v = 0;
    if (arg == "--events" && number(&v)) o->events = v;
    else if (arg == "--threads" && number(&v) && v <= 64) o->threads = static_cast<uint32_t>(v);
    else if (arg == "--events-per-frame" && number(&v) && v <= 1'000'000) o->events_per_frame = static_cast<uint32_t>(v);
    else if (arg == "--seed" && number(&v)) o->seed = v;
    else if (arg == "--churn-threads" && number(&v) && v <= 1'000'000) o->churn_threads = static_cast<uint32_t>(v);
    else if (o->out.empty() && arg[0] != '-') o->out = arg;
    else return false;
  }
  return !o->out.empty() && o->events_per_frame >= o->threads;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    fprintf(stderr,
            "usage: memframe_capture_gen OUT.mfc [--events N] [--threads T (<= 64)] "
            "[--events-per-frame E (>= T)] [--seed S]\n"
            "       memframe_capture_gen OUT.mfc --churn-threads T\n");
    return 2;
  }
  std::string error;
  auto writer = CaptureWriter::Create(options.out, &error);
  if (!writer) {
    fprintf(stderr, "memframe_capture_gen: %s\n", error.c_str());
    return 1;
  }
  Generator generator(options, writer.get());
  if (!generator.Run() || !writer->Close()) {
    fprintf(stderr, "memframe_capture_gen: writing %s failed: %s\n", options.out.c_str(), writer->error().c_str());
    return 1;
  }
  printf("wrote %s: %llu events, %llu bytes\n", options.out.c_str(), static_cast<unsigned long long>(generator.events()),
         static_cast<unsigned long long>(writer->bytes_written()));
  return 0;
}
