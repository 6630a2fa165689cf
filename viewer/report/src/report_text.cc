// The human-readable reports: short header blocks and aligned tables.
#include <algorithm>

#include "report_text_common.h"

#include "memframe/report/capture_notes.h"
#include "memframe/report/phase_title.h"
#include "memframe/analysis/look_alikes.h"
#include "memframe/analysis/program_end.h"

namespace memframe::analysis {

namespace {

constexpr size_t kMaxFunctionColumn = 70;
constexpr size_t kStacksShown = 10;
constexpr size_t kStacksShownPerScope = 3;
constexpr size_t kScopesInSummary = 8;
constexpr size_t kStackIdsShown = 8;

}  // namespace

std::string Shorten(const std::string& s) {
  if (s.size() <= kMaxFunctionColumn) return s;
  return s.substr(0, kMaxFunctionColumn - 3) + "...";
}

std::string FunctionOrPlaceholder(const SiteView& v) {
  if (!v.name.empty()) return v.name;
  return v.stats.stack_id == 0 ? "(no stack captured)" : "(stack " + std::to_string(v.stats.stack_id) + ")";
}

std::string NameCell(const SiteView& v) {
  if (v.name.empty() || v.name == v.function) return Shorten(FunctionOrPlaceholder(v));
  // "module (via function file:line)": only the function is shortened, so
  // the module and the line stay whole.
  if (v.name.size() <= kMaxFunctionColumn) return v.name;
  const std::string head = v.module + " (via ";
  const std::string tail = v.user_location.empty() ? ")" : " " + v.user_location + ")";
  if (v.name.size() < head.size() + tail.size()) return Shorten(v.name);
  return head + Shorten(v.name.substr(head.size(), v.name.size() - head.size() - tail.size())) + tail;
}

// A table cell: the function, and the callers that tell look-alike rows
// apart (site_view.cc), each shortened on its own so neither is cut away.
std::string SiteLabel(const SiteView& v) {
  std::string label = NameCell(v);
  return v.via.empty() ? label : label + " <- " + ShortenVia(v.via, kMaxFunctionColumn);
}

std::string ClassCell(const SiteView& v) { return v.stack.empty() ? "" : ModuleClassName(v.module_class); }

std::string ModuleCell(const SiteView& v) { return Shorten(v.module); }

std::string ClassesShown(const ReportInput& input) {
  std::string shown;
  if (!input.options.classes.KeepsAll()) shown = "module classes shown: " + input.options.classes.Describe();
  if (!input.threads.empty())
    shown += (shown.empty() ? "" : "; ") + std::string("threads: ") + DescribeThreads(input.capture.main, input.threads);
  return shown.empty() ? "" : " (" + shown + ")";
}

std::string RangeText(FrameRange r) {
  return "frames " + std::to_string(r.from) + ".." + std::to_string(r.to);
}

std::string JudgedFramesText(const JudgedFrames& judged) {
  // A run with many loads has many stretches: --json lists them all.
  std::string text = (judged.steady_only ? "the steady frames " : "frames ") + JudgedRangesText(judged);
  text += " (" + Plural(judged.count, "frame");
  if (judged.steady_only) {
    text += "; start-up and loads left out, --all-frames judges every frame)";
  } else if (!judged.all_frames_asked) {
    text += "; no steady play found, so every frame)";
  } else {
    text += ")";
  }
  return text;
}

std::string PhaseTitle(const Phase& p, const FrameTable& table) {
  std::string title = PhaseName(p) + ": " + RangeText(p.frames) + " (" + Plural(table.CountIn(p.frames), "frame") + ")";
  if (p.kind == PhaseKind::kSteady)
    title += ", " + FormatCount(p.allocation_spike.median) + " allocations / " + FormatBytes(p.bytes_spike.median) +
             " a frame";
  return title;
}

std::string ScopeTitle(const ReportScope& scope, const ReportInput& input) {
  return scope.phase ? PhaseTitle(*scope.phase, input.heap.frames) : JudgedFramesText(scope.judged);
}

std::string ScopesNote(const ReportInput& input, const std::vector<ReportScope>& scopes) {
  if (scopes.empty() || !scopes.front().phase || !input.options.phase.empty()) return "";
  std::string note = "each steady phase judged on its own frames (`report phases` lists them, --phase N answers for one, "
                     "--all-frames judges every frame at once";
  if (size_t short_ones = ShortSteadyPhases(input))
    note += "; " + Plural(short_ones, "steady phase") + " of fewer than " + std::to_string(kMinScopeFrames) +
            " frames left out";
  return note + ")";
}

void WriteStack(const SiteView& v, std::ostream& out) {
  for (const SourceFrame& f : v.stack) {
    out << "      " << f.function;
    if (!f.file.empty()) out << " — " << f.file << ":" << f.line;
    if (f.inlined) out << " [inlined]";
    out << '\n';
  }
  if (v.stack.empty()) out << "      (no stack)\n";
}

std::string FormatSignedBytes(int64_t bytes) {
  if (bytes == 0) return "0 B";
  uint64_t magnitude = bytes < 0 ? 0 - static_cast<uint64_t>(bytes) : static_cast<uint64_t>(bytes);
  return (bytes < 0 ? "-" : "+") + FormatBytes(magnitude);
}

std::string FormatSignedCount(int64_t count) {
  if (count == 0) return "0";
  uint64_t magnitude = count < 0 ? 0 - static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
  return (count < 0 ? "-" : "+") + FormatCount(magnitude);
}

namespace {

void WriteHiddenTable(const ReportInput& input, const std::vector<SiteView>& views, std::ostream& out,
                      const std::string& indent) {
  TextTable table({{"#"}, {"thread", true}, {"class", true}, {"module", true}, {"function", true},
                   {"location", true}, {"allocs/frame"}, {"bytes/frame"}, {"frames"}});
  for (size_t i = 0; i < views.size(); ++i) {
    const SiteStats& s = views[i].stats;
    table.AddRow({std::to_string(i + 1), views[i].thread, ClassCell(views[i]), ModuleCell(views[i]),
                  SiteLabel(views[i]), views[i].location,
                  FormatCount(s.allocs_per_frame_median), FormatBytes(s.bytes_per_frame_median),
                  FormatShare(s.frames_with_allocations, s.frames_in_range)});
  }
  if (!ShowsThreads(input)) table.Omit("thread");
  table.Write(out, indent);
}

// Allocations and bytes per module class over every frame: how much of what
// the program allocated its own code did, and how much the driver did.
void WriteClassShares(const ReportInput& input, std::ostream& out) {
  ModuleClassTotals totals = TotalsByClass(input, input.heap.sites, AllFramesRange(input));
  const uint64_t allocations = totals.all_allocations(), bytes = totals.all_bytes();
  out << "\nWho allocated (module classes, REPORTS.md):\n";
  TextTable table({{"class", true}, {"allocs"}, {"share"}, {"bytes"}, {"share"}});
  for (ModuleClass c : AllModuleClasses()) {
    const int i = static_cast<int>(c);
    table.AddRow({ModuleClassName(c), FormatCount(totals.allocations[i]),
                  FormatShare(totals.allocations[i], allocations), FormatBytes(totals.bytes[i]),
                  FormatShare(totals.bytes[i], bytes)});
  }
  table.Write(out, "  ");
}

void WriteNotes(const ReportInput& input, std::ostream& out) {
  for (const std::string& note : CaptureNotes(input.capture, input.heap)) out << "note: " << note << '\n';
}

}  // namespace

void WriteSummaryText(const ReportInput& input, size_t top_sites, std::ostream& out) {
  const Capture& c = input.capture;
  const Stream& s = c.main;
  const HeapAnalysis& h = input.heap;
  out << "Program     " << (s.process.executable.empty() ? "(unknown)" : s.process.executable) << " (pid "
      << s.process.pid << ")";
  const ProgramEnd end = HowProgramEnded(c);
  out << ' ' << DescribeProgramEnd(end) << '\n';
  if (c.recorder.kept_window.present)
    out << "Kept        " << DescribeAttach(c) << '\n';
  else if (s.process.attached)
    out << "Attached    " << DescribeAttach(c) << '\n';
  out << "Frames      " << FormatCount(h.frames.frames_rendered) << " rendered";
  if (!h.frames.frame_source.empty()) out << " (" << h.frames.frame_source << ")";
  out << ", " << Plural(GameThreadCount(s.threads), "thread") << '\n';
  if (!input.threads.empty())
    out << "Threads     " << DescribeThreads(s, input.threads)
        << " only (--thread): their allocations, and the frees of their blocks\n";
  out << "Allocations " << FormatCount(h.allocations) << " (" << FormatBytes(h.bytes_allocated) << "), "
      << FormatCount(h.frees) << " frees\n";
  out << "Peak live   " << FormatBytes(h.peak_live_bytes) << " in frame " << h.peak_live_frame << '\n';
  if (end.LiveBlocksAreLeaks()) {
    out << "Leaks       " << Plural(h.leaks.total_blocks, "block") << ", " << FormatBytes(h.leaks.total_bytes)
        << " live at exit\n";
  } else if (end.kind == ProgramEnd::Kind::kDetached) {
    out << "Still live  " << Plural(h.leaks.total_blocks, "block") << ", " << FormatBytes(h.leaks.total_bytes)
        << " when memframe detached; the process ran on (not leaks)\n";
  } else {
    out << "Live at end " << Plural(h.leaks.total_blocks, "block") << ", " << FormatBytes(h.leaks.total_bytes)
        << " (not called leaks: the program " << DescribeProgramEnd(end) << ")\n";
  }
  WriteNotes(input, out);
  WriteClassShares(input, out);

  const std::vector<ReportScope> scopes = JudgedScopes(input);
  out << "\nCall sites allocating in at least " << FormatPercent(input.options.min_fraction) << " of the frames"
      << ClassesShown(input) << ", the game's own first";
  const std::string note = ScopesNote(input, scopes);
  out << (note.empty() ? "" : "; " + note) << ":\n";
  // Every phase's few top sites rather than one phase's many.
  const size_t per_scope = scopes.size() > 1 ? std::max<size_t>(3, top_sites / scopes.size()) : top_sites;
  for (size_t i = 0; i < scopes.size() && i < kScopesInSummary; ++i) {
    auto hidden = HiddenSiteViews(input, scopes[i].judged, per_scope);
    out << "\n  " << ScopeTitle(scopes[i], input) << (hidden.empty() ? ": none\n" : "\n");
    if (!hidden.empty()) WriteHiddenTable(input, hidden, out, "  ");
  }
  if (scopes.size() > kScopesInSummary)
    out << "\n  ... " << Plural(scopes.size() - kScopesInSummary, "more steady phase")
        << ": memframe report CAPTURE hidden lists every one\n";
}

void WriteHiddenText(const ReportInput& input, std::ostream& out) {
  const std::vector<ReportScope> scopes = JudgedScopes(input);
  out << "Call sites allocating in at least " << FormatPercent(input.options.min_fraction) << " of the judged frames"
      << ClassesShown(input) << ", the game's own first; per-frame figures are medians over the frames with "
      << "allocations";
  const std::string note = ScopesNote(input, scopes);
  out << (note.empty() ? "" : "; " + note) << "\n";
  // One phase: the stacks of its top sites; several: of each one's first few.
  const size_t stacks_shown = scopes.size() > 1 ? kStacksShownPerScope : kStacksShown;
  for (const ReportScope& scope : scopes) {
    auto views = HiddenSiteViews(input, scope.judged, SIZE_MAX);
    out << '\n' << ScopeTitle(scope, input) << ":\n";
    if (views.empty()) {
      out << "none\n";
      continue;
    }
    WriteHiddenTable(input, views, out, "");
    for (size_t i = 0; i < views.size() && i < stacks_shown; ++i) {
      const SiteStats& s = views[i].stats;
      out << "\n#" << i + 1 << " " << FunctionOrPlaceholder(views[i]) << ": " << FormatCount(s.allocations)
          << " allocations, " << FormatBytes(s.bytes) << " in " << FormatCount(s.frames_with_allocations) << " of "
          << FormatCount(s.frames_in_range) << " frames";
      if (views[i].stack_ids.size() > 1) {
        // The full list is in --json; a driver path can give thousands.
        const auto& ids = views[i].stack_ids;
        out << "; " << FormatCount(ids.size()) << " stacks that differ only above the user frame (";
        for (size_t k = 0; k < ids.size() && k < kStackIdsShown; ++k) out << (k ? " " : "") << ids[k];
        out << (ids.size() > kStackIdsShown ? " ...)" : ")");
      }
      out << '\n';
      WriteStack(views[i], out);
    }
  }
}

void WriteLeaksText(const ReportInput& input, std::ostream& out) {
  const LeakReport& leaks = GroupedLeaks(input);
  const ProgramEnd end = HowProgramEnded(input.capture);
  out << Plural(leaks.total_blocks, "block") << " (" << FormatBytes(leaks.total_bytes) << ") were live "
      << LiveAtEndVerdict(end) << '\n';
  if (leaks.sites.empty()) return;
  out << '\n';
  if (!input.options.classes.KeepsAll()) out << "Call sites" << ClassesShown(input) << ":\n";
  TextTable table({{"#"}, {"blocks"}, {"bytes"}, {"thread", true}, {"class", true}, {"module", true},
                   {"function", true}, {"location", true}});
  std::vector<SiteView> views;
  std::vector<const LeakSite*> shown;
  FrameRange all = AllFramesRange(input);
  const uint64_t all_frames = FramesIn(input, all);
  for (const LeakSite& leak : leaks.sites) {
    if (!KeepsSite(input, leak.stack_id)) continue;
    shown.push_back(&leak);
    const SiteHistory* history = SiteGroups(input).index.Find(leak.stack_id);
    SiteStats stats = history ? SummarizeSite(*history, all, all_frames) : SiteStats{};
    stats.stack_id = leak.stack_id;
    views.push_back(MakeSiteView(stats, input));
  }
  NameCallersOfLookAlikes(views);
  for (size_t i = 0; i < views.size(); ++i) {
    table.AddRow({std::to_string(i + 1), FormatCount(shown[i]->blocks), FormatBytes(shown[i]->bytes),
                  views[i].thread, ClassCell(views[i]), ModuleCell(views[i]), SiteLabel(views[i]), views[i].location});
  }
  if (!ShowsThreads(input)) table.Omit("thread");
  table.Write(out);
  for (size_t i = 0; i < views.size() && i < kStacksShown; ++i) {
    out << "\n#" << i + 1 << " " << Plural(shown[i]->blocks, "block") << ", " << FormatBytes(shown[i]->bytes) << '\n';
    WriteStack(views[i], out);
  }
}

void WriteSitesText(const ReportInput& input, std::ostream& out) {
  const std::vector<ReportScope> scopes = PhaseScopes(input);
  bool first = true;
  for (const ReportScope& scope : scopes) {
    auto sites = SitesInRange(input.heap.sites, scope.range, FramesIn(input, scope.range));
    std::erase_if(sites, [&](const SiteStats& s) { return !KeepsSite(input, s.stack_id); });
    out << (first ? "" : "\n") << FormatCount(sites.size()) << " call sites allocated in "
        << (scope.phase ? ScopeTitle(scope, input) : RangeText(scope.range)) << ClassesShown(input) << "\n";
    first = false;
    if (sites.empty()) continue;
    out << '\n';
    TextTable table({{"#"}, {"allocs"}, {"bytes"}, {"frames"}, {"size"}, {"thread", true}, {"class", true},
                     {"module", true}, {"function", true}, {"location", true}});
    size_t rank = 0;
    for (const SiteStats& s : sites) {
      SiteView v = MakeSiteView(s, input);
      std::string size = s.size_min == s.size_max ? FormatBytes(s.size_min)
                                                  : FormatBytes(s.size_min) + ".." + FormatBytes(s.size_max);
      table.AddRow({std::to_string(++rank), FormatCount(s.allocations), FormatBytes(s.bytes),
                    FormatCount(s.frames_with_allocations), size, v.thread, ClassCell(v), ModuleCell(v),
                    NameCell(v), v.location});
    }
    if (!ShowsThreads(input)) table.Omit("thread");
    table.Write(out);
  }
}

}  // namespace memframe::analysis
