#include "memframe/analysis/capture_loader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "memframe/analysis/symbolizer.h"
#include "pe_symbols.h"

#include "load_test_capture.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::LoadTestCapture;
using testing::TempPath;
using testing::TestCapture;

TEST(CaptureLoader, TwoThreadsInterleaveByTicksKeepingEachThreadsOrder) {
  TestCapture tc;
  tc.Thread(100, "main");
  tc.Thread(200, "worker");
  // Thread 200's batch arrives first but its events sit between 100's.
  tc.Batch(200, {Alloc(15, 0, 0x2000, 8, 0), Alloc(25, 0, 0x2100, 8, 0), Alloc(25, 0, 0x2200, 8, 0)});
  tc.Batch(100, {Alloc(10, 0, 0x1000, 16, 0), Alloc(20, 0, 0x1100, 16, 0), Free(25, 0, 0x1000)});
  tc.End();
  Capture c = LoadTestCapture(tc, "interleave");
  ASSERT_TRUE(c.has_main);
  ASSERT_EQ(c.main.events.size(), 6u);
  std::vector<uint64_t> addresses;
  for (const Event& e : c.main.events) addresses.push_back(e.address);
  // Equal ticks (25) keep arrival order: thread 200's two events, then 100's.
  EXPECT_EQ(addresses, (std::vector<uint64_t>{0x1000, 0x2000, 0x1100, 0x2100, 0x2200, 0x1000}));
  ASSERT_EQ(c.main.threads.size(), 2u);
  EXPECT_EQ(c.main.threads[c.main.events[0].thread].name, "main");
  EXPECT_EQ(c.main.threads[c.main.events[1].thread].name, "worker");
  EXPECT_EQ(c.main.events[5].kind(), EventKind::kFree);
  EXPECT_TRUE(c.complete());
  EXPECT_EQ(c.main.process.pid, 42u);
  EXPECT_EQ(c.main.process.executable, "/opt/game");
}

TEST(CaptureLoader, AThreadsBackwardTickIsRaisedSoItsOrderSurvives) {
  TestCapture tc;
  tc.Batch(1, {Alloc(50, 0, 0x10, 1, 0)});
  tc.Batch(1, {Alloc(40, 0, 0x20, 1, 0)});  // next batch starts earlier: a clock glitch
  tc.Batch(2, {Alloc(45, 0, 0x30, 1, 0)});
  Capture c = LoadTestCapture(tc, "backwards");
  ASSERT_EQ(c.main.events.size(), 3u);
  EXPECT_EQ(c.main.events[0].address, 0x30u);
  EXPECT_EQ(c.main.events[1].address, 0x10u);
  EXPECT_EQ(c.main.events[2].address, 0x20u);
  EXPECT_EQ(c.main.events[2].ticks, 50u);
  EXPECT_EQ(c.main.ticks_went_backwards, 1u);
}

TEST(CaptureLoader, ReallocPairKeepsItsFlagsAndFamily) {
  TestCapture tc;
  tc.Batch(1, {Alloc(1, 0, 0x100, 10, 0), Free(2, 0, 0x100, 0, wire::kFlagRealloc),
               Alloc(3, 0, 0x200, 20, 0, 0, wire::kFlagRealloc), Alloc(4, 0, 0x300, 8, 0, 0, 0, wire::FAMILY_NEW_ARRAY),
               Alloc(5, 0, 0x400, 8, 0, 0, wire::kFlagCalloc)});
  Capture c = LoadTestCapture(tc, "realloc");
  const auto& e = c.main.events;
  ASSERT_EQ(e.size(), 5u);
  EXPECT_FALSE(e[0].is_realloc());
  EXPECT_TRUE(e[1].is_realloc());
  EXPECT_EQ(e[1].kind(), EventKind::kFree);
  EXPECT_TRUE(e[2].is_realloc());
  EXPECT_EQ(e[2].kind(), EventKind::kAlloc);
  EXPECT_EQ(e[2].size, 20u);
  EXPECT_EQ(e[3].family(), Family::kNewArray);
  EXPECT_TRUE(e[4].is_calloc());
}

TEST(CaptureLoader, DecodesDeltaColumnsAcrossBatches) {
  TestCapture tc;
  // Addresses that go down (negative deltas) and frames that advance.
  tc.Batch(7, {Alloc(100, 3, 0x7fff0000, 1, 5, 9), Alloc(130, 4, 0x1000, 2, 6, 11), FrameEnd(140, 4)});
  tc.Batch(7, {Free(200, 5, 0x7fff0000, 3)});
  Capture c = LoadTestCapture(tc, "deltas");
  const auto& e = c.main.events;
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].address, 0x7fff0000u);
  EXPECT_EQ(e[1].address, 0x1000u);
  EXPECT_EQ(e[1].ticks, 130u);
  EXPECT_EQ(e[1].frame, 4u);
  EXPECT_EQ(e[1].stack_id, 6u);
  EXPECT_EQ(e[1].duration_ticks, 11u);
  EXPECT_EQ(e[2].size, 4u);  // FRAME_END: the frame that ended
  EXPECT_EQ(e[3].address, 0x7fff0000u);
  EXPECT_EQ(e[3].frame, 5u);
}

TEST(CaptureLoader, KeepsEveryModuleOnceAndTheStacksAndMarkers) {
  TestCapture tc;
  tc.Module("/lib/a.so", 0x1000, 0, 0x100);
  tc.Module("/lib/a.so", 0x1000, 0, 0x100);  // re-sent after a dlopen
  tc.Module("/lib/b.so", 0x9000, 0, 0x100);
  tc.Module("/lib/a.so", 0x5000, 0, 0x100);  // reloaded elsewhere
  tc.Stack(3, {0x1010, 0x1020});
  tc.Marker(1, "glXSwapBuffers");
  Capture c = LoadTestCapture(tc, "modules");
  ASSERT_EQ(c.main.modules.size(), 3u);
  EXPECT_EQ(c.main.modules[2].load_bias, 0x5000u);
  EXPECT_EQ(c.main.stacks.at(3), (std::vector<uint64_t>{0x1010, 0x1020}));
  EXPECT_EQ(c.main.markers.at(1), "glXSwapBuffers");
}

// SymbolDefs (the Windows agent's DbgHelp names) go to the module holding
// each address, and name frames of a module that cannot be read here.
TEST(CaptureLoader, RecordedSymbolsNameFramesOfUnreadableModules) {
  TestCapture tc;
  tc.Module("/nonexistent/game.exe", 0x140000000, 0, 0x10000);
  tc.Module("/nonexistent/engine.dll", 0x180000000, 0, 0x10000);
  wire::Packet p;
  auto add = [&](uint64_t address, const char* function, const char* file, uint32_t line) {
    wire::SymbolDef* d = p.mutable_symbols()->add_symbols();
    d->set_address(address);
    d->set_function(function);
    if (*file) d->set_file(file);
    d->set_line(line);
  };
  add(0x140001234, "SpawnDamageLabel", "/src/entities.cpp", 57);
  add(0x180000010, "EngineAlloc", "", 0);
  // DbgHelp's file of a Wine DLL, whose source is not on this machine.
  add(0x180000020, "create_alpha_bitmap", "Z:\\build\\dlls\\user32\\cursoricon.c", 720);
  add(0x999, "Nowhere", "/src/x.cpp", 1);  // in no module: ignored
  tc.Add(p);
  Capture c = LoadTestCapture(tc, "symbols");
  ASSERT_EQ(c.main.modules.size(), 2u);
  ASSERT_EQ(c.main.modules[0].recorded_symbols.size(), 1u);
  EXPECT_EQ(c.main.modules[0].recorded_symbols.at(0x1234).function, "SpawnDamageLabel");
  ASSERT_EQ(c.main.modules[1].recorded_symbols.size(), 2u);

  Symbolizer symbolizer(c.main.modules);
  const SourceFrame& game = symbolizer.Symbolize(0x140001234).front();
  EXPECT_EQ(game.function, "SpawnDamageLabel");
  EXPECT_EQ(game.file, "/src/entities.cpp");
  EXPECT_EQ(game.line, 57u);
  EXPECT_EQ(LineLocation(game), "entities.cpp:57");
  const SourceFrame& engine = symbolizer.Symbolize(0x180000010).front();
  EXPECT_EQ(engine.function, "EngineAlloc");
  EXPECT_EQ(LineLocation(engine), "");
  EXPECT_EQ(LineLocation(symbolizer.Symbolize(0x180000020).front()), "cursoricon.c:720");
  // An address nothing named keeps its module+offset.
  EXPECT_EQ(symbolizer.Symbolize(0x140000100).front().function, "game.exe+0x100");
}

// A PE file with one .text section at RVA 0x1000 and a COFF symbol table
// naming two functions at their section offsets, as a stripped Wine DLL
// keeps its exports' names only.
void WritePeWithCoffSymbols(const std::string& path, const std::vector<std::pair<std::string, uint32_t>>& functions) {
  std::string pe(64, '\0');
  pe[0] = 'M';
  pe[1] = 'Z';
  auto put = [&](size_t at, uint64_t value, size_t bytes) {
    if (pe.size() < at + bytes) pe.resize(at + bytes, '\0');
    for (size_t i = 0; i < bytes; ++i) pe[at + i] = static_cast<char>(value >> (8 * i));
  };
  put(0x3c, 64, 4);
  put(64, 0x00004550, 4);                      // "PE\0\0"
  put(68, 0x8664, 2);                          // x86-64
  put(70, 1, 2);                               // one section
  constexpr size_t kSection = 64 + 24, kSymbols = kSection + 40;
  put(76, kSymbols, 4);
  put(80, functions.size(), 4);
  put(84, 0, 2);                               // no optional header
  pe.resize(kSymbols, '\0');
  memcpy(&pe[kSection], ".text", 5);
  put(kSection + 12, 0x1000, 4);
  std::string strings;
  for (size_t i = 0; i < functions.size(); ++i) {
    const size_t at = kSymbols + 18 * i;
    put(at + 4, 4 + strings.size(), 4);         // the name, in the string table
    put(at + 8, functions[i].second, 4);
    put(at + 12, 1, 2);
    put(at + 14, 0x20, 2);                      // a function
    put(at + 16, 2, 1);                         // external
    strings += functions[i].first + '\0';
  }
  pe.resize(kSymbols + 18 * functions.size(), '\0');  // the last record's aux count, 0
  put(pe.size(), 4 + strings.size(), 4);
  pe += strings;
  std::ofstream(path, std::ios::binary) << pe;
}

// DbgHelp read the debug information; the COFF table's nearest preceding
// symbol may be another function, and is taken only where it is DbgHelp's
// function with its namespaces and parameters.
TEST(CaptureLoader, DbgHelpsNameWinsOverACoffNeighbour) {
  TempPath dll("comctl32.dll");
  WritePeWithCoffSymbols(dll.path(), {{"EditLblWndProcW", 0x0}, {"_ZN4demo16SpawnDamageLabelER4Game", 0x100}});
  TestCapture tc;
  tc.Module(dll.path(), 0x180000000, 0, 0x10000);
  wire::Packet p;
  for (auto [address, function] : {std::pair<uint64_t, const char*>{0x180001050, "LISTVIEW_InsertItemT"},
                                   {0x180001150, "SpawnDamageLabel"}}) {
    wire::SymbolDef* d = p.mutable_symbols()->add_symbols();
    d->set_address(address);
    d->set_function(function);
  }
  tc.Add(p);
  Capture c = LoadTestCapture(tc, "coff_neighbour");
  Symbolizer symbolizer(c.main.modules);
  EXPECT_EQ(symbolizer.Symbolize(0x180001050).front().function, "LISTVIEW_InsertItemT");
  EXPECT_EQ(symbolizer.Symbolize(0x180001150).front().function, "demo::SpawnDamageLabel(Game&)");
  // Where DbgHelp named nothing, the COFF symbol.
  EXPECT_EQ(symbolizer.Symbolize(0x180001160).front().function, "demo::SpawnDamageLabel(Game&)");
  EXPECT_EQ(symbolizer.Symbolize(0x180001010).front().function, "EditLblWndProcW");
}

TEST(QualifiesName, ANameBeforeItsParametersEndingInTheBareOne) {
  EXPECT_TRUE(QualifiesName("demo::SpawnDamageLabel(Game&)", "SpawnDamageLabel"));
  EXPECT_TRUE(QualifiesName("demo::Game::Spawn(int)", "Game::Spawn"));
  EXPECT_TRUE(QualifiesName("EditLblWndProcW", "EditLblWndProcW"));
  EXPECT_FALSE(QualifiesName("EditLblWndProcW", "LISTVIEW_InsertItemT"));
  EXPECT_FALSE(QualifiesName("demo::MySpawn(int)", "Spawn"));
  EXPECT_FALSE(QualifiesName("Spawn(int)", ""));
}

TEST(CaptureLoader, AnalysesTheStreamWithTheMostEvents) {
  TestCapture tc;
  tc.Batch(1, {Alloc(1, 0, 0x10, 1, 0)});
  wire::Packet hello;
  hello.mutable_hello()->set_protocol_version(testing::kTestBatchProtocol);
  hello.mutable_hello()->set_pid(77);
  hello.mutable_hello()->set_executable("/opt/child");
  tc.Add(2, hello);
  tc.Add(2, TestCapture::BatchPacket(9, {Alloc(1, 0, 0x10, 1, 0), Alloc(2, 0, 0x20, 1, 0)}));
  Capture c = LoadTestCapture(tc, "streams");
  EXPECT_EQ(c.main.process.pid, 77u);
  EXPECT_EQ(c.main.events.size(), 2u);
  ASSERT_EQ(c.other_streams.size(), 1u);
  EXPECT_EQ(c.other_streams[0].pid, 42u);
  EXPECT_EQ(c.other_streams[0].events, 1u);
}

TEST(CaptureLoader, RecorderInfoGivesTheExitStatus) {
  TestCapture tc;
  tc.Recorder(false, 0);
  tc.Recorder(true, 3);
  Capture c = LoadTestCapture(tc, "recorder");
  EXPECT_TRUE(c.recorder.finished);
  EXPECT_EQ(c.recorder.exit_status, 3);
  EXPECT_EQ(c.recorder.command_line, "memframe run /opt/game");
  EXPECT_FALSE(c.complete());  // no EndOfStream: the program did not exit normally
}

TEST(CaptureLoader, ColumnLengthMismatchIsACorruptBatchAndStopsThere) {
  TestCapture tc;
  tc.Batch(1, {Alloc(1, 0, 0x10, 1, 0)});
  wire::Packet bad = TestCapture::BatchPacket(1, {Alloc(2, 0, 0x20, 1, 0), Alloc(3, 0, 0x30, 1, 0)});
  bad.mutable_events()->mutable_size()->RemoveLast();
  tc.Add(bad);
  tc.Batch(1, {Alloc(4, 0, 0x40, 1, 0)});
  Capture c = LoadTestCapture(tc, "mismatch");
  EXPECT_EQ(c.main.events.size(), 1u);
  EXPECT_EQ(c.damage, "stream 1: corrupt batch of thread 1: 2 kinds but 1 size entries");
  EXPECT_FALSE(c.complete());
}

TEST(CaptureLoader, UnparsablePacketIsDamage) {
  TestCapture tc;
  tc.Batch(1, {Alloc(1, 0, 0x10, 1, 0)});
  tc.AddRaw(1, std::string("\xff\xff\xff", 3));
  Capture c = LoadTestCapture(tc, "unparsable");
  EXPECT_EQ(c.main.events.size(), 1u);
  EXPECT_EQ(c.damage, "capture is corrupt: a packet of stream 1 does not parse");
}

TEST(CaptureLoader, TruncatedCaptureKeepsWhatCameBeforeTheCut) {
  TestCapture tc;
  for (uint32_t i = 0; i < 20; ++i) tc.Batch(1, {Alloc(i * 10 + 1, i, 0x1000 + i * 16, 16, 0), FrameEnd(i * 10 + 2, i)});
  tc.End();
  TempPath full("full");
  ASSERT_TRUE(tc.Write(full.path()));
  const std::string bytes = full.ReadAll();
  size_t previous_events = 0;
  // Every cut: from inside the header to one byte short of the end.
  for (size_t cut = 0; cut < bytes.size(); cut += 7) {
    TempPath part("part");
    part.WriteAll(bytes.substr(0, cut));
    Capture c;
    std::string error;
    if (!LoadCapture(part.path(), &c, &error)) {
      EXPECT_LT(cut, 12u) << "only a cut header may be unreadable: " << error;
      continue;
    }
    EXPECT_FALSE(c.damage.empty()) << "cut at " << cut;
    EXPECT_FALSE(c.complete());
    size_t events = c.has_main ? c.main.events.size() : 0;
    EXPECT_GE(events, previous_events) << "a longer prefix never yields fewer events";
    EXPECT_EQ(events % 2, 0u) << "batches are whole or absent";
    previous_events = events;
  }
  EXPECT_GT(previous_events, 0u);
}

TEST(CaptureLoader, GarbageFileIsAClearError) {
  TempPath file("garbage");
  file.WriteAll("this is not a capture at all, just some text\n");
  Capture c;
  std::string error;
  EXPECT_FALSE(LoadCapture(file.path(), &c, &error));
  EXPECT_EQ(error, file.path() + " is not a memframe capture (bad magic)");
}

TEST(CaptureLoader, GarbageAfterAValidHeaderIsDamageNotACrash) {
  TempPath file("garbage_body");
  std::string bytes = "MEMFRAME";
  bytes += std::string("\x01\x00\x00\x00", 4);
  for (int i = 0; i < 4096; ++i) bytes += static_cast<char>((i * 7919) & 0xff);
  file.WriteAll(bytes);
  Capture c;
  std::string error;
  ASSERT_TRUE(LoadCapture(file.path(), &c, &error)) << error;
  EXPECT_FALSE(c.has_main);
  EXPECT_FALSE(c.damage.empty());
}

TEST(CaptureLoader, MissingFileIsAClearError) {
  Capture c;
  std::string error;
  EXPECT_FALSE(LoadCapture("/nonexistent/dir/x.memframe", &c, &error));
  EXPECT_EQ(error, "cannot open /nonexistent/dir/x.memframe: No such file or directory");
}

TEST(CaptureLoader, OtherProtocolVersionIsRefused) {
  TestCapture tc(1);
  wire::Packet hello;
  hello.mutable_hello()->set_protocol_version(wire::kProtocolVersion + 1);
  tc.Add(2, hello);
  TempPath file("protocol");
  ASSERT_TRUE(tc.Write(file.path()));
  Capture c;
  std::string error;
  EXPECT_FALSE(LoadCapture(file.path(), &c, &error));
  EXPECT_EQ(error, file.path() + ": stream 2 speaks protocol version " + std::to_string(wire::kProtocolVersion + 1) +
                       "; this build reads versions " + std::to_string(wire::kOldestReadableProtocol) + " to " +
                       std::to_string(wire::kProtocolVersion));
}

}  // namespace
}  // namespace memframe::analysis
