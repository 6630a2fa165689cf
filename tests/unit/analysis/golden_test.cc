// Golden captures: every capture in golden/ decodes to exactly the model in
// the .json beside it, so a decoder change that alters meaning fails here.
// The synthetic ones are also rebuilt from golden_captures.h, which proves
// the checked-in files are what the generator makes.
//
// After an intended change: MEMFRAME_UPDATE_GOLDEN=1 bin/analysis_tests
// --gtest_filter='Golden*' rewrites the .json files; review the diff.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <memory>
#include <sstream>

#include "agent_stream_encoder.h"
#include "golden/golden_captures.h"
#include "memframe/analysis/capture_loader.h"
#include "memframe/capture_file.h"
#include "memframe/event_codec.h"
#include "memframe/event_refs.h"
#include "memframe/format.h"
#include "memframe/hex.h"

namespace memframe::analysis {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json DumpStream(const Stream& s) {
  ordered_json j;
  j["stream_id"] = s.stream_id;
  j["process"] = {{"has_hello", s.has_hello},   {"protocol_version", s.process.protocol_version},
                  {"pid", s.process.pid},       {"ppid", s.process.ppid},
                  {"executable", s.process.executable}, {"argv", s.process.argv},
                  {"agent_version", s.process.agent_version}, {"max_stack_depth", s.process.max_stack_depth}};
  char rate[32];
  snprintf(rate, sizeof(rate), "%.9g", s.clock.ns_per_tick());
  j["clock"] = {{"calibrated", s.clock.calibrated()}, {"ns_per_tick", rate}};
  ordered_json modules = ordered_json::array();
  for (const Module& m : s.modules) {
    ordered_json segments = ordered_json::array();
    for (const Segment& seg : m.segments) segments.push_back({Hex(seg.vaddr), Hex(seg.memsz)});
    std::string build_id;
    for (unsigned char c : m.build_id) build_id += Hex(c).substr(2).insert(0, c < 16 ? "0" : "");
    modules.push_back({{"path", m.path}, {"load_bias", Hex(m.load_bias)}, {"build_id", build_id}, {"segments", segments}});
  }
  j["modules"] = modules;
  std::map<uint32_t, std::vector<uint64_t>> stacks(s.stacks.begin(), s.stacks.end());
  ordered_json stack_json = ordered_json::object();
  for (const auto& [id, frames] : stacks) {
    ordered_json f = ordered_json::array();
    for (uint64_t a : frames) f.push_back(Hex(a));
    stack_json[std::to_string(id)] = f;
  }
  j["stacks"] = stack_json;
  std::map<uint32_t, std::string> markers(s.markers.begin(), s.markers.end());
  ordered_json marker_json = ordered_json::object();
  for (const auto& [id, name] : markers) marker_json[std::to_string(id)] = name;
  j["markers"] = marker_json;
  ordered_json threads = ordered_json::array();
  for (const Thread& t : s.threads)
    threads.push_back({{"tid", t.tid}, {"name", t.name}, {"first_ticks", t.first_ticks}, {"exited", t.exited},
                       {"events", t.events}, {"dropped", t.dropped}});
  j["threads"] = threads;
  j["end"] = {{"seen", s.has_end}, {"events", s.end_events}, {"dropped", s.end_dropped},
              {"last_frame", s.end_last_frame}, {"reason", s.end_reason}};
  j["ticks_went_backwards"] = s.ticks_went_backwards;
  j["event_columns"] = {"ticks", "thread", "kind", "family", "realloc", "calloc", "address", "size", "stack", "frame",
                        "duration"};
  j["events"] = "@EVENTS@";
  return j;
}

// Pretty JSON with one line per event, so that a diff shows events.
std::string Dump(const Capture& c) {
  ordered_json j;
  j["path_is_given"] = !c.path.empty();
  j["damage"] = c.damage;
  j["complete"] = c.complete();
  j["recorder"] = {{"seen", c.recorder.seen}, {"command_line", c.recorder.command_line},
                   {"finished", c.recorder.finished}, {"exit_status", c.recorder.exit_status}};
  ordered_json others = ordered_json::array();
  for (const StreamSummary& o : c.other_streams)
    others.push_back({{"stream_id", o.stream_id}, {"pid", o.pid}, {"executable", o.executable}, {"events", o.events}});
  j["other_streams"] = others;
  if (c.has_main) j["main"] = DumpStream(c.main);
  std::string text = j.dump(1);
  if (!c.has_main) return text + "\n";
  std::string events = "[";
  const char* sep = "\n";
  for (const Event& e : c.main.events) {
    ordered_json row = {e.ticks, e.thread, static_cast<int>(e.kind()), static_cast<int>(e.family()), e.is_realloc(),
                        e.is_calloc(), Hex(e.address), e.size, e.stack_id, e.frame, e.duration_ticks};
    events += sep + std::string("   ") + row.dump();
    sep = ",\n";
  }
  events += "\n  ]";
  text.replace(text.find("\"@EVENTS@\""), 10, events);
  return text + "\n";
}

std::string DumpFile(const std::string& path) {
  Capture c;
  std::string error;
  if (!LoadCapture(path, &c, &error)) {
    // The message starts with the path; keep the part that does not.
    return ordered_json{{"error", error.substr(error.find(path) == 0 ? path.size() : 0)}}.dump(1) + "\n";
  }
  return Dump(c);
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string FirstDifference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "";
    if (la != lb || ha != hb)
      return "line " + std::to_string(line) + ":\n  expected: " + (ha ? la : "<end>") + "\n  decoded:  " + (hb ? lb : "<end>");
  }
}

void Check(const std::string& name, const std::string& decoded) {
  const std::string golden = std::string(MEMFRAME_GOLDEN_DIR) + "/" + name + ".json";
  if (getenv("MEMFRAME_UPDATE_GOLDEN")) {
    std::ofstream(golden, std::ios::binary) << decoded;
    return;
  }
  const std::string want = Read(golden);
  ASSERT_FALSE(want.empty()) << golden << " is missing (MEMFRAME_UPDATE_GOLDEN=1 writes it)";
  EXPECT_EQ(want, decoded) << name << ": " << FirstDifference(want, decoded);
}

TEST(Golden, CheckedInCapturesDecodeToTheirJson) {
  std::vector<std::string> names = {"agent_game_loop", "agent_game_loop_v2", "agent_game_loop_v3",
                                    "agent_game_loop_v4", "agent_game_loop_v5"};
  for (const auto& [name, write] : testing::GoldenCaptures()) names.push_back(name);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    Check(name, DumpFile(std::string(MEMFRAME_GOLDEN_DIR) + "/" + name + ".mfc"));
  }
}

TEST(Golden, GeneratorStillMakesTheCheckedInCaptures) {
  if (getenv("MEMFRAME_UPDATE_GOLDEN")) GTEST_SKIP() << "updating";
  for (const auto& [name, write] : testing::GoldenCaptures()) {
    SCOPED_TRACE(name);
    testing::TempPath file("golden_" + name);
    ASSERT_TRUE(write(file.path()));
    const std::string want = Read(std::string(MEMFRAME_GOLDEN_DIR) + "/" + name + ".json");
    EXPECT_EQ(want, DumpFile(file.path())) << "regenerate with memframe_make_golden and review";
  }
}

// What a reader gets back of `sent`, a thread's events in one batch, from
// the agent: kind, address, size, stack and frame exactly; a tick below the
// previous event's (as read) as that tick, then time stamps in units of
// 2^tick_shift ticks, a duration in units of 2^duration_shift to the
// nearest step of its log scale (FORMAT.md, "Addresses and time stamps").
std::vector<wire::PlainEvent> AsTheAgentSendsThem(std::vector<wire::PlainEvent> sent, uint32_t tick_shift,
                                                  uint32_t duration_shift) {
  uint64_t previous = sent.empty() ? 0 : sent.front().ticks;
  for (wire::PlainEvent& e : sent) {
    const uint64_t t = e.ticks < previous ? previous : e.ticks;
    previous = e.ticks;
    e.ticks = t >> tick_shift << tick_shift;
    e.duration = wire::CodeDuration(wire::DurationUnits(e.duration, duration_shift), duration_shift).units
                 << duration_shift;
  }
  return sent;
}

void ExpectSameEvents(const std::vector<wire::PlainEvent>& want, const std::vector<wire::PlainEvent>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(want[i].kind, got[i].kind);
    EXPECT_EQ(want[i].address, got[i].address);
    EXPECT_EQ(want[i].size, got[i].size);
    EXPECT_EQ(want[i].stack_id, got[i].stack_id);
    EXPECT_EQ(want[i].ticks, got[i].ticks);
    EXPECT_EQ(want[i].frame, got[i].frame);
    EXPECT_EQ(want[i].duration, got[i].duration);
  }
}

TEST(Golden, TheAgentsEncoderCarriesARealCaptureIntoTheCurrentProtocol) {
  // Real wire bytes of the version-1 agent, each batch re-encoded by the
  // agent's own encoder (references, time-stamp gaps, a FREE's own columns)
  // and decoded again: every event comes back as FORMAT.md says. The
  // capture written from them loads like the original.
  const std::string name = "agent_game_loop";
  std::string error;
  auto reader = wire::CaptureReader::Open(std::string(MEMFRAME_GOLDEN_DIR) + "/" + name + ".mfc", &error);
  ASSERT_TRUE(reader) << error;
  testing::TempPath file("golden_current_" + name);
  auto writer = wire::CaptureWriter::Create(file.path(), &error);
  ASSERT_TRUE(writer) << error;
  std::unique_ptr<wire::EventBatchDecoder> v1;
  std::unique_ptr<test_support::AgentStreamEncoder> agent;
  wire::EventBatchDecoder current(wire::kProtocolVersion);
  uint32_t agent_stream = 0;
  size_t batches = 0;
  wire::CaptureRecord record;
  while (reader->Next(&record)) {
    wire::Packet packet;
    ASSERT_TRUE(packet.ParseFromArray(record.packet.data(), static_cast<int>(record.packet.size())));
    if (packet.has_hello()) {
      ASSERT_EQ(agent_stream, 0u) << "the agent's encoder keeps one stream";
      agent_stream = record.stream;
      ASSERT_EQ(packet.hello().protocol_version(), 1u);
      v1 = std::make_unique<wire::EventBatchDecoder>(1);
      agent = std::make_unique<test_support::AgentStreamEncoder>();
      packet.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
    }
    if (packet.has_events()) {
      ASSERT_EQ(record.stream, agent_stream);
      std::vector<wire::PlainEvent> sent, got;
      ASSERT_TRUE(v1->Decode(packet.events(), &sent, &error)) << error;
      std::vector<wire::EventBatch> encoded =
          agent->Encode(packet.events().thread_id(), sent.data(), sent.size(), packet.events().dropped());
      ASSERT_EQ(encoded.size(), 1u);
      ASSERT_TRUE(current.Decode(encoded.front(), &got, &error)) << error;
      ExpectSameEvents(AsTheAgentSendsThem(sent, encoded.front().tick_shift(), encoded.front().duration_shift()), got);
      *packet.mutable_events() = std::move(encoded.front());
      ++batches;
    }
    const std::string bytes = packet.SerializeAsString();
    ASSERT_TRUE(writer->Append(record.stream, bytes.data(), bytes.size()));
  }
  ASSERT_EQ(reader->error(), "");
  ASSERT_TRUE(writer->Close());
  EXPECT_GT(batches, 1u);

  Capture original, transcoded;
  ASSERT_TRUE(LoadCapture(std::string(MEMFRAME_GOLDEN_DIR) + "/" + name + ".mfc", &original, &error)) << error;
  ASSERT_TRUE(LoadCapture(file.path(), &transcoded, &error)) << error;
  EXPECT_EQ(transcoded.complete(), original.complete());
  EXPECT_EQ(transcoded.main.process.protocol_version, wire::kProtocolVersion);
  EXPECT_EQ(transcoded.main.events.size(), original.main.events.size());
  EXPECT_EQ(transcoded.main.stacks.size(), original.main.stacks.size());
}

}  // namespace
}  // namespace memframe::analysis
