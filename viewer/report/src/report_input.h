// What every report renderer gets: the model, the heap analysis, a
// symbolizer and the parsed report arguments. Internal to the library.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe/report/address_map_png.h"
#include "memframe/report/row_json.h"
#include "memframe/report/site_row.h"

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/gpu_objects.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/load_progress.h"
#include "memframe/analysis/module_class.h"
#include "memframe/analysis/phase_scopes.h"
#include "memframe/analysis/phases.h"
#include "memframe/analysis/site_groups.h"
#include "memframe/analysis/symbolizer.h"
#include "memframe/analysis/thread_filter.h"

namespace memframe::analysis {

struct ReportOptions {
  std::vector<ModuleClassRule> class_rules;  // --module-class, in order
  ClassFilter classes;                       // --only / --hide
  std::optional<uint64_t> from;
  std::optional<uint64_t> to;
  std::optional<uint64_t> frame;  // histogram, fragmentation: one frame
  double min_fraction = 0.5;
  bool all_frames = false;        // hidden, lifetimes, summary: judge every frame, not steady play alone
  std::string png;                // fragmentation: write the address map here
  MapColoring coloring = MapColoring::kAge;
  std::vector<std::string> operands;  // diff: A and B
  std::vector<std::string> threads;   // --thread NAME|TID, as given
  std::string phase;                  // --phase N|NAME, as given ("" = none)
};

struct ReportInput {
  const Capture& capture;
  const HeapAnalysis& heap;
  Symbolizer& symbolizer;
  ReportOptions options;
  // The hidden-site groups (site_groups.h), computed on first use: they
  // symbolize every stack, which only the reports naming hidden sites need.
  mutable std::optional<GroupedSites> groups;
  // The class of each stack asked about (KeepsSite), cached.
  mutable std::unordered_map<uint32_t, ModuleClass> stack_classes;
  // The threads --thread kept (empty = all); the stream holds only their
  // events (thread_filter.h).
  ThreadSelection threads;
  // The leaks by site group (GroupedLeaks), computed on first use.
  mutable std::optional<LeakReport> grouped_leaks;
  // The stacks the JSON rows written so far name (SiteJson, StackRefJson).
  mutable JsonStackTable json_stacks;
};

// A problem only the capture can reveal (a frame it does not have, a marker
// it never saw, a file that cannot be written): RunReport prints
// "memframe: error: <what>" and exits with 2, with nothing on stdout.
struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

SiteView MakeSiteView(const SiteStats& stats, const ReportInput& input);
// Whether text tables carry a thread column: more than one thread allocated.
bool ShowsThreads(const ReportInput& input);

// The module class of the site of `stack_id` (cached in stack_classes).
ModuleClass StackClass(const ReportInput& input, uint32_t stack_id);
// Whether --only / --hide keep the site of `stack_id`.
bool KeepsSite(const ReportInput& input, uint32_t stack_id);
// Allocations and bytes per class of `sites` in `range`.
ModuleClassTotals TotalsByClass(const ReportInput& input, const CallSiteIndex& sites, FrameRange range);

// First to last frame of the table, narrowed by --from / --to.
FrameRange AllFramesRange(const ReportInput& input);
// How many of the capture's frames are in `range` (numbers may have gaps).
uint64_t FramesIn(const ReportInput& input, FrameRange range);
// The frames that ended with FRAME_END (all frames when none did), narrowed
// by --from / --to: the default range of the hidden-site reports.
FrameRange CompleteFramesRange(const ReportInput& input);

// The frames the hidden sites and lifetimes judge: the steady frames of
// `within` unless --all-frames (phases.h JudgeFrames).
JudgedFrames JudgedFramesOf(const ReportInput& input, FrameRange within);

// --phase: the phase it names, or null without --phase; a phase the
// capture does not have is a ReportError naming those it has.
const Phase* PhaseOption(const ReportInput& input);

// What a report answers for (REPORTS.md, "Phases in reports"): a game's
// menu, world map and level are judged apart, each against its own frames.
struct ReportScope {
  const Phase* phase = nullptr;  // the phase; null for a range (--from/--to, --all-frames, no steady play)
  FrameRange range;              // the scope's frames
  JudgedFrames judged;           // the frames its rules judge
};

// Scopes of the reports judged by steady play (hidden, lifetimes, the
// summary): with --phase, that phase; with --from/--to or --all-frames, the
// range (its steady frames unless --all-frames); else one per steady phase
// of at least kMinScopeFrames frames, or the complete frames when there is
// none.
std::vector<ReportScope> JudgedScopes(const ReportInput& input);
// Steady phases that JudgedScopes left out for being short (0 when the
// scopes are not per phase).
size_t ShortSteadyPhases(const ReportInput& input);
// Scopes of the listings (sites): with --phase, --from/--to or
// --all-frames, one; else one per phase of any kind (start-up and loads
// allocate too).
std::vector<ReportScope> PhaseScopes(const ReportInput& input);

// Hidden sites of the judged frames, grouped by the stack from the user
// frame outward (at most `count`), as views with their group's stack ids:
// the sites the game's code led to first (SiteView::from_game), each part
// in the hidden ranking.
std::vector<SiteView> HiddenSiteViews(const ReportInput& input, const JudgedFrames& judged, size_t count);
// The site groups (site_groups.h), computed on first use.
const GroupedSites& SiteGroups(const ReportInput& input);
// The leaks by site group (GroupLeaks), as every leak table lists them.
const LeakReport& GroupedLeaks(const ReportInput& input);

// A name for any stack id: the SiteView of an empty SiteStats.
SiteView NameStack(uint32_t stack_id, const ReportInput& input);
// The capture's GPU objects replayed over its frames (gpu_objects.h).
GpuAnalysis AnalyzeGpuOf(const ReportInput& input);

// The name of the phase `frame` is in ("steady 2"; "" before the first).
std::string PhaseNameOf(const FrameTable& t, uint64_t frame);

// The frame `--frame` names, or the last frame when it is absent; a frame
// the capture does not have is a ReportError.
uint64_t FrameOption(const ReportInput& input);

// Loads and checks a capture; on failure writes the message and returns the
// exit code to use (2), else -1.
int LoadCaptureForReport(const std::string& path, Capture* capture, std::ostream& err,
                         const LoadProgressFn& progress = {});

// Parses the arguments of `report` ("" = summary). False with *error on an
// unknown option or a bad value.
bool ParseReportArgs(const std::string& report, const std::vector<std::string>& args, ReportOptions* options,
                     std::string* error);

// Renderers, one per report and format.
void WriteSummaryText(const ReportInput& input, size_t top_sites, std::ostream& out);
void WriteFramesText(const ReportInput& input, std::ostream& out);
void WriteHiddenText(const ReportInput& input, std::ostream& out);
void WriteLeaksText(const ReportInput& input, std::ostream& out);
void WriteSitesText(const ReportInput& input, std::ostream& out);
void WriteHistogramText(const ReportInput& input, std::ostream& out);
void WriteDiffText(const ReportInput& input, std::ostream& out);
void WriteFragmentationText(const ReportInput& input, std::ostream& out);
void WriteLifetimesText(const ReportInput& input, std::ostream& out);
void WriteMismatchesText(const ReportInput& input, std::ostream& out);
void WritePhasesText(const ReportInput& input, std::ostream& out);
void WriteSlowText(const ReportInput& input, std::ostream& out);
void WriteThreadsText(const ReportInput& input, std::ostream& out);
void WriteGpuText(const ReportInput& input, std::ostream& out);
void WriteAllocatorsText(const ReportInput& input, std::ostream& out);
void WriteLocalityText(const ReportInput& input, std::ostream& out);

void WriteSummaryJson(const ReportInput& input, std::ostream& out);
void WriteFramesJson(const ReportInput& input, std::ostream& out);
void WriteHiddenJson(const ReportInput& input, std::ostream& out);
void WriteLeaksJson(const ReportInput& input, std::ostream& out);
void WriteSitesJson(const ReportInput& input, std::ostream& out);
void WriteHistogramJson(const ReportInput& input, std::ostream& out);
void WriteDiffJson(const ReportInput& input, std::ostream& out);
void WriteFragmentationJson(const ReportInput& input, std::ostream& out);
void WriteLifetimesJson(const ReportInput& input, std::ostream& out);
void WriteMismatchesJson(const ReportInput& input, std::ostream& out);
void WritePhasesJson(const ReportInput& input, std::ostream& out);
void WriteSlowJson(const ReportInput& input, std::ostream& out);
void WriteThreadsJson(const ReportInput& input, std::ostream& out);
void WriteGpuJson(const ReportInput& input, std::ostream& out);
void WriteAllocatorsJson(const ReportInput& input, std::ostream& out);
void WriteLocalityJson(const ReportInput& input, std::ostream& out);

}  // namespace memframe::analysis
