// The summary index (summary_index.h): the reports it serves print exactly
// what the whole read prints, it is used only for the capture it describes,
// it never replaces a file that is not an index, and bytes that are not an
// index (damaged, crafted) are refused without a crash.
#include "memframe/analysis/summary_index.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "memframe/analysis/capture_loader.h"
#include "memframe/report/report.h"
#include "summary_index_codec.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::TempPath;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

struct Output {
  std::string out, err;
  int code = 0;
};

Output Report(const std::string& path, const std::string& name, bool json, bool whole_load) {
  ReportRequest request{path, name, {}, json};
  request.whole_load = whole_load;
  std::ostringstream out, err;
  Output o;
  o.code = RunReport(request, out, err);
  o.out = out.str();
  o.err = err.str();
  return o;
}

// A capture copied (or cut) into a fresh temporary file, its index removed
// with it.
class CaptureFile {
 public:
  CaptureFile(const std::string& name, const std::string& bytes) : file_(name) {
    unlink(SummaryIndexPath(file_.path()).c_str());
    WriteFile(file_.path(), bytes);
  }
  ~CaptureFile() { unlink(SummaryIndexPath(file_.path()).c_str()); }
  const std::string& path() const { return file_.path(); }
  std::string index() const { return SummaryIndexPath(file_.path()); }

 private:
  TempPath file_;
};

std::string Golden(const std::string& name) { return ReadFile(std::string(MEMFRAME_GOLDEN_DIR) + "/" + name + ".mfc"); }

struct Case {
  std::string name;
  std::string bytes;
};

std::vector<Case> Cases() {
  const std::string game = Golden("agent_game_loop_v5");
  return {{"agent_game_loop_v5", game},
          {"agent_game_loop_v4", Golden("agent_game_loop_v4")},
          {"interleaved_threads", Golden("interleaved_threads")},
          {"two_processes", Golden("two_processes")},
          {"truncated", Golden("truncated")},
          {"corrupt_batch", Golden("corrupt_batch")},
          // Cut mid-record: damage, and events missing their frees.
          {"game_cut", game.substr(0, game.size() * 3 / 5)}};
}

TEST(SummaryIndex, ReportsFromTheIndexAreTheWholeReadsExactly) {
  for (const Case& c : Cases()) {
    CaptureFile file("summary_index_" + c.name, c.bytes);
    for (const char* report : {"summary", "phases"}) {
      for (bool json : {false, true}) {
        SCOPED_TRACE(c.name + " " + report + (json ? " json" : " text"));
        unlink(file.index().c_str());
        const Output whole = Report(file.path(), report, json, true);
        const Output first = Report(file.path(), report, json, false);  // writes the index
        Capture capture;
        HeapAnalysis heap;
        std::string why;
        const SummaryIndexRead read = ReadSummaryIndex(file.path(), &capture, &heap, &why);
        if (whole.code == 2) {
          EXPECT_EQ(read, SummaryIndexRead::kAbsent);  // nothing from the program: nothing indexed
        } else {
          ASSERT_EQ(read, SummaryIndexRead::kUsed) << why;
          EXPECT_EQ(capture.path, file.path());
        }
        const Output second = Report(file.path(), report, json, false);  // reads it
        EXPECT_EQ(first.out, whole.out);
        EXPECT_EQ(second.out, whole.out);
        EXPECT_EQ(second.err, whole.err);
        EXPECT_EQ(second.code, whole.code);
      }
    }
  }
}

TEST(SummaryIndex, WrittenPrivateAndRefusedOnceTheCaptureChanges) {
  CaptureFile file("summary_index_stale", Golden("agent_game_loop_v5"));
  const Output whole = Report(file.path(), "summary", false, true);
  Report(file.path(), "summary", false, false);
  struct stat st {};
  ASSERT_EQ(stat(file.index().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // Another capture of the same size under the same name.
  std::string other = Golden("agent_game_loop_v5");
  other[other.size() - 3] ^= 0x40;
  WriteFile(file.path(), other);
  Capture capture;
  HeapAnalysis heap;
  std::string why;
  EXPECT_EQ(ReadSummaryIndex(file.path(), &capture, &heap, &why), SummaryIndexRead::kRefused);
  EXPECT_NE(why.find("another capture"), std::string::npos) << why;
  const Output refused = Report(file.path(), "summary", false, false);
  EXPECT_NE(refused.err.find(".mfi not used: it describes another capture"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out, Report(file.path(), "summary", false, true).out);
  // ... and replaced by the index of what is there now.
  EXPECT_EQ(ReadSummaryIndex(file.path(), &capture, &heap, &why), SummaryIndexRead::kUsed) << why;

  // Grown: a capture still being written.
  WriteFile(file.path(), Golden("agent_game_loop_v5") + "x");
  EXPECT_EQ(ReadSummaryIndex(file.path(), &capture, &heap, &why), SummaryIndexRead::kRefused);
  WriteFile(file.path(), Golden("agent_game_loop_v5"));
  EXPECT_EQ(Report(file.path(), "summary", false, false).out, whole.out);
}

TEST(SummaryIndex, NeverReplacesAFileOfSomeoneElses) {
  CaptureFile file("summary_index_foreign", Golden("agent_game_loop_v5"));
  const Output whole = Report(file.path(), "summary", false, true);
  WriteFile(file.index(), "my notes about this capture\n");
  const Output o = Report(file.path(), "summary", false, false);
  EXPECT_EQ(o.out, whole.out);
  EXPECT_NE(o.err.find("is not a summary index: left as it is"), std::string::npos) << o.err;
  EXPECT_EQ(ReadFile(file.index()), "my notes about this capture\n");
  // A symbolic link is not followed, read or replaced.
  unlink(file.index().c_str());
  ASSERT_EQ(symlink("/dev/null", file.index().c_str()), 0);
  EXPECT_EQ(Report(file.path(), "summary", false, false).out, whole.out);
  struct stat st {};
  ASSERT_EQ(lstat(file.index().c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

// The index `memframe report` writes of `file`, read back.
void ReadReportsIndex(const CaptureFile& file, Capture* capture, HeapAnalysis* heap,
                      std::optional<ViewerSummary>* viewer = nullptr) {
  Report(file.path(), "summary", false, false);
  std::string why;
  ASSERT_EQ(ReadSummaryIndex(file.path(), capture, heap, &why, viewer), SummaryIndexRead::kUsed) << why;
}

// The viewer's summary of a capture read whole, as the viewer's load makes
// it (every stack in one class: the goldens' modules are not on disk).
ViewerSummary ViewerSummaryOf(const std::string& path) {
  Capture whole;
  std::string error;
  EXPECT_TRUE(LoadCapture(path, &whole, &error)) << error;
  const HeapAnalysis heap = AnalyzeHeap(whole.main);
  ViewerSummary v;
  v.markers = FindMarkerEvents(whole.main);
  v.start_ticks = whole.main.events.empty() ? 0 : whole.main.events[0].ticks;
  v.class_series = ComputeClassSeries(whole.main, heap.frames, [](uint32_t) { return ModuleClass::kGame; });
  v.class_totals.allocations[0] = heap.allocations;
  v.class_totals.bytes[0] = heap.bytes_allocated;
  v.mismatches = FindMismatches(whole.main);
  return v;
}

void ExpectSameViewerSummary(const ViewerSummary& a, const ViewerSummary& b) {
  ASSERT_EQ(a.markers.size(), b.markers.size());
  for (size_t i = 0; i < a.markers.size(); ++i) {
    EXPECT_EQ(a.markers[i].name, b.markers[i].name);
    EXPECT_EQ(a.markers[i].frame, b.markers[i].frame);
    EXPECT_EQ(a.markers[i].ticks, b.markers[i].ticks);
    EXPECT_EQ(a.markers[i].position, b.markers[i].position);
  }
  EXPECT_EQ(a.start_ticks, b.start_ticks);
  EXPECT_EQ(a.class_series.groups, b.class_series.groups);
  EXPECT_EQ(a.class_series.frames, b.class_series.frames);
  EXPECT_EQ(a.class_series.cells, b.class_series.cells);
  for (int c = 0; c < kModuleClassCount; ++c) {
    EXPECT_EQ(a.class_totals.allocations[c], b.class_totals.allocations[c]);
    EXPECT_EQ(a.class_totals.bytes[c], b.class_totals.bytes[c]);
  }
  ASSERT_EQ(a.mismatches.mismatches.size(), b.mismatches.mismatches.size());
  for (size_t i = 0; i < a.mismatches.mismatches.size(); ++i) {
    const Mismatch &x = a.mismatches.mismatches[i], &y = b.mismatches.mismatches[i];
    EXPECT_TRUE(x.kind == y.kind && x.alloc_family == y.alloc_family && x.free_family == y.free_family &&
                x.alloc_stack == y.alloc_stack && x.free_stack == y.free_stack && x.count == y.count &&
                x.bytes == y.bytes && x.first_frame == y.first_frame && x.first_address == y.first_address);
  }
  EXPECT_EQ(a.mismatches.frees, b.mismatches.frees);
  EXPECT_EQ(a.mismatches.frees_with_stack, b.mismatches.frees_with_stack);
}

// The viewer's summary goes in and comes out exactly; an index of `memframe
// report` has none, and one of format 3 (before it) is refused, then
// rewritten.
TEST(SummaryIndex, CarriesTheViewersSummary) {
  CaptureFile file("summary_index_viewer", Golden("agent_game_loop_v5"));
  Capture capture;
  HeapAnalysis heap;
  std::string why;
  std::optional<ViewerSummary> viewer;
  ASSERT_NO_FATAL_FAILURE(ReadReportsIndex(file, &capture, &heap, &viewer));
  EXPECT_FALSE(viewer.has_value());

  ViewerSummary made = ViewerSummaryOf(file.path());
  // The golden has no marker nor mismatch: one of each, made up.
  made.markers.push_back({"boss_spawn", 2, 3, 12345, 17});
  made.mismatches.mismatches.push_back(
      {Mismatch::Kind::kFamily, Family::kNew, Family::kMalloc, 1, 0, 2, 96, 4, 0x10000});
  ASSERT_GT(made.class_series.rows(), 1u);
  ASSERT_TRUE(WriteSummaryIndex(file.path(), StampCapture(file.path()), capture, heap, &why, &made)) << why;
  ASSERT_EQ(ReadSummaryIndex(file.path(), &capture, &heap, &why, &viewer), SummaryIndexRead::kUsed) << why;
  ASSERT_TRUE(viewer.has_value());
  ExpectSameViewerSummary(*viewer, made);

  std::string old = ReadFile(file.index());
  const uint32_t format3 = 3;
  std::memcpy(&old[8], &format3, 4);
  WriteFile(file.index(), old);
  EXPECT_EQ(ReadSummaryIndex(file.path(), &capture, &heap, &why, &viewer), SummaryIndexRead::kRefused);
  EXPECT_EQ(why, "index format 3, not 4");
  const Output o = Report(file.path(), "summary", false, false);
  EXPECT_NE(o.err.find("not used: index format 3, not 4"), std::string::npos) << o.err;
  EXPECT_EQ(ReadSummaryIndex(file.path(), &capture, &heap, &why, &viewer), SummaryIndexRead::kUsed) << why;
}

// Damaged and crafted indexes: random bytes changed, cut, or a payload's
// counts and lengths made huge, each either refused or (when the change
// kept a valid payload) used; never a crash, a hang or an allocation far
// beyond the file's size (the sanitizer trees run this too).
TEST(SummaryIndex, DamagedOrCraftedIndexesAreRefusedSafely) {
  CaptureFile file("summary_index_fuzz", Golden("agent_game_loop_v5"));
  Capture capture;
  HeapAnalysis heap;
  std::string why;
  ASSERT_NO_FATAL_FAILURE(ReadReportsIndex(file, &capture, &heap));
  // With a viewer's summary, as the viewer writes it.
  const ViewerSummary viewer = ViewerSummaryOf(file.path());
  ASSERT_TRUE(WriteSummaryIndex(file.path(), StampCapture(file.path()), capture, heap, &why, &viewer)) << why;
  const std::string good = ReadFile(file.index());
  ASSERT_GT(good.size(), 64u);
  const std::string payload = EncodeSummaryPayload(capture, heap, &viewer);
  ASSERT_EQ(good.substr(good.size() - payload.size()), payload);

  std::mt19937_64 rng(30);
  int refused = 0;
  for (int i = 0; i < 600; ++i) {
    // The whole file through ReadSummaryIndex (the header's checks and the
    // payload's hash), then the payload alone through the decoder, as a
    // crafter who recomputed the hash would have it.
    const bool whole_file = i % 4 == 0;
    std::string bytes = whole_file ? good : payload;
    switch (rng() % 4) {
      case 0:
        bytes.resize(rng() % bytes.size());
        break;
      case 1:
        for (int k = 0, n = 1 + static_cast<int>(rng() % 8); k < n; ++k) bytes[rng() % bytes.size()] ^= 1 << (rng() % 8);
        break;
      case 2: {  // a varint of 2^63-ish: a count, a length, an enum
        const size_t at = rng() % bytes.size();
        bytes.replace(at, std::min<size_t>(10, bytes.size() - at), "\xff\xff\xff\xff\xff\xff\xff\xff\x7f");
        break;
      }
      default:
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
        break;
    }
    Capture c;
    HeapAnalysis h;
    std::string error;
    std::optional<ViewerSummary> v;
    if (whole_file) {
      WriteFile(file.index(), bytes);
      if (ReadSummaryIndex(file.path(), &c, &h, &error, &v) != SummaryIndexRead::kUsed) ++refused;
    } else if (!DecodeSummaryPayload(bytes, &c, &h, &error, &v)) {
      ++refused;
    } else {
      // Taken for real: the summary renders whatever it says.
      std::ostringstream out, err;
      PrintRunSummary(c, h, out, err);
    }
  }
  // Most changes must be caught (the rest changed a figure, not the shape).
  EXPECT_GT(refused, 300);
}

}  // namespace
}  // namespace memframe::analysis
