// A capture carried into the current wire protocol: every EventBatch of its
// agent stream decoded (as its Hello's protocol says) and re-encoded by the
// agent's own encoder, every other record copied unchanged. The same
// recording in two protocols, to compare what a reader makes of each
// (`memframe report --json`) and what each costs in bytes (README.md,
// "wire protocol 5"). A measuring tool, not part of memframe.
//
//   memframe_transcode IN.mfc OUT.mfc
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "agent_stream_encoder.h"
#include "memframe.pb.h"
#include "memframe/capture_file.h"
#include "memframe/event_codec.h"
#include "memframe/format.h"

namespace wire = memframe::wire;

namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "memframe_transcode: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: memframe_transcode IN.mfc OUT.mfc\n");
    return 2;
  }
  std::string error;
  auto reader = wire::CaptureReader::Open(argv[1], &error);
  if (!reader) return Fail(error);
  constexpr int kCaptureZstdLevel = 1;  // memframe run's (run_command.cc)
  auto writer = wire::CaptureWriter::Create(argv[2], &error, kCaptureZstdLevel);
  if (!writer) return Fail(error);
  // The agent's encoder keeps one stream's state per process.
  uint32_t agent_stream = 0;
  std::unique_ptr<wire::EventBatchDecoder> decoder;
  std::unique_ptr<memframe::test_support::AgentStreamEncoder> encoder;
  std::vector<wire::PlainEvent> events;
  uint64_t batches = 0, event_count = 0;
  wire::CaptureRecord record;
  wire::Packet packet;
  auto append = [&](uint32_t stream, const wire::Packet& p) {
    const std::string bytes = p.SerializeAsString();
    return writer->Append(stream, bytes.data(), bytes.size());
  };
  while (reader->Next(&record)) {
    if (!packet.ParseFromArray(record.packet.data(), static_cast<int>(record.packet.size())))
      return Fail("record " + std::to_string(batches) + " does not parse");
    if (packet.has_hello()) {
      if (agent_stream != 0) return Fail("more than one agent stream (the agent's encoder keeps one)");
      agent_stream = record.stream;
      decoder = std::make_unique<wire::EventBatchDecoder>(packet.hello().protocol_version());
      encoder = std::make_unique<memframe::test_support::AgentStreamEncoder>();
      packet.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
    }
    if (!packet.has_events()) {
      if (!append(record.stream, packet)) return Fail("cannot write " + std::string(argv[2]));
      continue;
    }
    if (record.stream != agent_stream || !decoder) return Fail("events before their stream's Hello");
    events.clear();
    if (!decoder->Decode(packet.events(), &events, &error)) return Fail(error);
    for (wire::EventBatch& b :
         encoder->Encode(packet.events().thread_id(), events.data(), events.size(), packet.events().dropped())) {
      wire::Packet out;
      *out.mutable_events() = std::move(b);
      if (!append(record.stream, out)) return Fail("cannot write " + std::string(argv[2]));
    }
    ++batches;
    event_count += events.size();
  }
  if (!reader->error().empty()) return Fail(reader->error());
  if (!writer->Close()) return Fail("cannot write " + std::string(argv[2]));
  std::printf("%llu events in %llu batches carried into protocol %u\n", static_cast<unsigned long long>(event_count),
              static_cast<unsigned long long>(batches), wire::kProtocolVersion);
  return 0;
}
