#include "session_loader.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <future>
#include <new>
#include <optional>
#include <vector>

#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/mismatches.h"
#include "memframe/analysis/summary_index.h"
#include "background_priority.h"

namespace memframe::viewer {

SessionLoader::SessionLoader(std::string path, std::vector<std::string> threads, bool first_picture_only)
    : path_(std::move(path)), threads_(std::move(threads)), first_picture_only_(first_picture_only) {
  std::error_code ec;
  progress_.file_bytes = std::filesystem::file_size(path_, ec);
  if (ec) progress_.file_bytes = 0;
  thread_ = std::thread([this] { Run(); });
}

SessionLoader::SessionLoader(std::string path, analysis::LiveFollower* follower, std::vector<std::string> threads)
    : path_(std::move(path)), threads_(std::move(threads)), follower_(follower) {
  thread_ = std::thread([this] { Run(); });
}

SessionLoader::~SessionLoader() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

SessionLoader::Progress SessionLoader::progress() const {
  std::lock_guard lock(mutex_);
  return progress_;
}

std::string SessionLoader::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

SessionLoader::State SessionLoader::Wait() {
  if (thread_.joinable()) thread_.join();
  return state();
}

std::unique_ptr<Session> SessionLoader::Take() {
  if (state() != State::kReady) return nullptr;
  std::lock_guard lock(mutex_);
  return std::move(session_);
}

std::unique_ptr<Session> SessionLoader::TakePreview() {
  std::lock_guard lock(mutex_);
  return std::move(preview_);
}

int SessionLoader::Percent(const Progress& p) {
  switch (p.phase) {
    case Phase::kReading:
      return p.file_bytes ? static_cast<int>(60 * std::min(p.read_bytes, p.file_bytes) / p.file_bytes) : 0;
    case Phase::kAnalysing: return 60;
    case Phase::kSymbolizing: return 85 + (p.total ? static_cast<int>(14 * p.done / p.total) : 0);
    case Phase::kDone: return 100;
  }
  return 0;
}

void SessionLoader::SetPhase(Phase phase) {
  std::lock_guard lock(mutex_);
  progress_.phase = phase;
}

void SessionLoader::Run() {
  LowerThisThreadsPriority();  // the side passes' thread inherits it
  std::string error;
  bool ok = false;
  try {
    ok = Load(&error);
  } catch (const std::bad_alloc&) {
    error = analysis::OutOfMemoryError(path_);
  }
  std::lock_guard lock(mutex_);
  progress_.phase = Phase::kDone;
  if (!ok) error_ = error;
  preview_.reset();  // the whole session replaces it
  state_.store(ok ? State::kReady : State::kFailed, std::memory_order_release);
}

bool SessionLoader::Preview() {
  analysis::Capture capture;
  analysis::HeapAnalysis heap;
  std::optional<analysis::ViewerSummary> viewer;
  std::string why;
  // The index holds every thread's figures: a --thread selection waits for
  // the whole load, as does a run being followed.
  const bool used = !follower_ && threads_.empty() &&
                    analysis::ReadSummaryIndex(path_, &capture, &heap, &why, &viewer) ==
                        analysis::SummaryIndexRead::kUsed;
  if (!why.empty()) std::fprintf(stderr, "memframe-viewer: note: %s not used: %s\n",
                                 analysis::SummaryIndexPath(path_).c_str(), why.c_str());
  std::unique_ptr<Session> preview;
  if (used && capture.has_main) {
    auto symbolizer = std::make_unique<analysis::Symbolizer>(capture.main.modules);
    preview = std::make_unique<Session>(std::move(capture), std::move(heap), analysis::SizeHistogramIndex(),
                                        std::move(symbolizer));
    preview->MarkPreview();
    index_complete_ = viewer.has_value();
    if (viewer) preview->SetIndexed(std::move(*viewer));
  }
  const bool made = preview != nullptr;
  std::lock_guard lock(mutex_);
  if (made && first_picture_only_) session_ = std::move(preview);
  else preview_ = std::move(preview);
  return made;
}

bool SessionLoader::Read(analysis::Capture* capture, std::string* error) {
  if (follower_) return follower_->Build(capture, error, &stop_);
  // The same steps as analysis::LoadCapture, spelled out so that progress
  // can be reported per record and a closed window can stop a long read.
  auto source = analysis::OpenCaptureFile(path_, error);
  if (!source) return false;
  analysis::CaptureBuilder builder(path_);
  uint32_t stream = 0;
  std::vector<uint8_t> packet;
  std::string damage;
  uint64_t records = 0, bytes = 0;
  while (source->Next(&stream, &packet)) {
    if (stop_) {
      *error = "loading was cancelled";
      return false;
    }
    std::string problem;
    auto status = builder.Add(stream, packet.data(), packet.size(), &problem);
    if (status == analysis::CaptureBuilder::Status::kRefused) {
      *error = path_ + ": " + problem;
      return false;
    }
    if (status == analysis::CaptureBuilder::Status::kDamaged) {
      damage = problem;
      break;
    }
    records++;
    bytes += packet.size();
    if (records % 64 == 0) {
      std::lock_guard lock(mutex_);
      progress_.records = records;
      progress_.record_bytes = bytes;
      progress_.read_bytes = source->bytes_read();
    }
  }
  if (damage.empty()) damage = source->error();
  *capture = builder.Finish(std::move(damage));
  return true;
}

bool SessionLoader::Load(std::string* error) {
  const bool previewed = Preview();
  if (previewed && first_picture_only_) return true;
  // Stamped before the read: an index is written only of the bytes read.
  const analysis::CaptureStamp stamp = follower_ ? analysis::CaptureStamp() : analysis::StampCapture(path_);
  analysis::Capture capture;
  if (!Read(&capture, error)) return false;
  if (!capture.has_main) {
    *error = path_ + ": the capture holds no program data (did the program start under memframe run?)" +
             (capture.damage.empty() ? "" : " — " + capture.damage);
    return false;
  }

  SetPhase(Phase::kAnalysing);
  // The Threads tab lists every thread, so they are counted before a
  // --thread selection takes the others' events out.
  analysis::ThreadSelection selection;
  if (!analysis::ResolveThreads(capture.main, threads_, &selection, error)) {
    bad_threads_ = true;
    return false;
  }
  // The passes that need only the events run on the second core while the
  // heap analysis runs here: each is a whole replay of the capture, and
  // one after the other they were most of the time before the first
  // picture. The stream is read-only during them (EventStore iteration is
  // thread-safe); a --thread selection filters it first, after the Threads
  // tab's history of every thread.
  struct SidePasses {
    analysis::ThreadHistory threads;
    analysis::SizeHistogramIndex sizes;
    analysis::MismatchReport mismatches;
    std::vector<analysis::Event> map_events;  // for the Fragmentation tab, whose first draw replayed them
  };
  analysis::ThreadHistory threads;
  analysis::EventStore all_events;
  if (!selection.empty()) {
    threads = analysis::RecordThreadHistory(capture.main);
    all_events = capture.main.events;
    analysis::FilterThreads(&capture.main, selection);
  }
  const bool threads_on_side = selection.empty();
  std::future<SidePasses> side = std::async(std::launch::async, [&capture, threads_on_side] {
    SidePasses passes;
    if (threads_on_side) passes.threads = analysis::RecordThreadHistory(capture.main);
    passes.sizes = analysis::SizeHistogramIndex::Build(capture.main);
    Session::MapEventsPass maps;  // in the mismatches' replay: no decoding of every event of its own
    passes.mismatches = analysis::FindMismatches(capture.main, {&maps});
    passes.map_events = std::move(maps.events);
    return passes;
  });
  analysis::HeapAnalysis heap = analysis::AnalyzeHeap(capture.main);
  SidePasses passes = side.get();
  if (threads_on_side) threads = std::move(passes.threads);
  const bool write_index = !index_complete_ && stamp.valid && selection.empty();

  SetPhase(Phase::kSymbolizing);
  auto symbolizer = std::make_unique<analysis::Symbolizer>(capture.main.modules);
  auto session =
      std::make_unique<Session>(std::move(capture), std::move(heap), std::move(passes.sizes), std::move(symbolizer));
  session->SetMismatches(std::move(passes.mismatches));
  session->SetMapEvents(std::move(passes.map_events));
  session->SetThreads(std::move(threads), std::move(selection), std::move(all_events));
  // Name every call site now, off the UI thread, so that sorting a table by
  // function never stalls a frame. The session is not shared yet.
  const auto& sites = session->heap().sites.sites();
  {
    std::lock_guard lock(mutex_);
    progress_.total = sites.size();
  }
  for (size_t i = 0; i < sites.size(); ++i) {
    if (stop_) {
      *error = "loading was cancelled";
      return false;
    }
    session->Label(sites[i].stack_id);
    if (i % 16 == 0) {
      std::lock_guard lock(mutex_);
      progress_.done = i;
    }
  }
  session->SiteGroups();  // the hidden table's sites, symbolized here rather than on the UI thread
  // The live graph under the timeline: a replay, here rather than at the
  // first picture on the UI thread (the window stood still meanwhile).
  session->ClassSeries();
  // The next open starts from the index, as after `memframe report`'s
  // first read, with the viewer's summary in it (once the sites are named:
  // the classes need them); of every thread's events only (the index has
  // them all).
  if (write_index) {
    std::string why;
    const analysis::ViewerSummary viewer = session->MakeViewerSummary();
    if (!analysis::WriteSummaryIndex(path_, stamp, session->capture(), session->heap(), &why, &viewer) && !why.empty())
      std::fprintf(stderr, "memframe-viewer: note: %s\n", why.c_str());
  }
  std::lock_guard lock(mutex_);
  session_ = std::move(session);
  return true;
}

const char* PhaseName(SessionLoader::Phase phase) {
  switch (phase) {
    case SessionLoader::Phase::kReading: return "Reading capture";
    case SessionLoader::Phase::kAnalysing: return "Analysing the heap";
    case SessionLoader::Phase::kSymbolizing: return "Naming call sites";
    case SessionLoader::Phase::kDone: return "Done";
  }
  return "";
}

}  // namespace memframe::viewer
