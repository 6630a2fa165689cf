// `diff A B`: the live heap at A against B, call stack by call stack.
#include "memframe/analysis/gpu_objects.h"
#include "memframe/analysis/live_set_at.h"
#include "memframe/analysis/live_set_diff.h"
#include "memframe/analysis/phases.h"
#include "report_json_common.h"
#include "memframe/report/units.h"
#include "report_text_common.h"
#include "text_table.h"

namespace memframe::analysis {

namespace {

constexpr size_t kDiffStacksShown = 10;

struct DiffResult {
  LiveSetCut a, b;
  LiveSetDiff diff;
};

LiveSetCut Resolve(const ReportInput& input, const std::string& text) {
  std::string error;
  auto cut = ResolveCut(input.capture.main, text, input.heap.frames, &error);
  if (!cut) throw ReportError(error);
  return *cut;
}

// With no A and B: before and after the largest load (phases.h), the
// question a diff most often answers.
std::vector<std::string> Operands(const ReportInput& input) {
  if (!input.options.operands.empty()) return input.options.operands;
  if (const Phase* phase = PhaseOption(input)) return {std::to_string(phase->frame_before), std::to_string(phase->frames.to)};
  auto frames = LargestLoadDiffFrames(input.heap.frames);
  if (!frames)
    throw ReportError("the capture has no load after start-up (report phases); name the frames or markers to compare");
  return {std::to_string(frames->first), std::to_string(frames->second)};
}

DiffResult ComputeDiff(const ReportInput& input) {
  DiffResult r;
  const std::vector<std::string> operands = Operands(input);
  r.a = Resolve(input, operands.at(0));
  r.b = Resolve(input, operands.at(1));
  // From the heap analysis's checkpoints: a replay of at most one interval
  // per cut, not of the whole capture (live_set_at tests check the two agree).
  const LiveSetIndex& index = input.heap.live_sets;
  r.diff = DiffLiveSets(LiveSetAt(input.capture.main, index, r.a), LiveSetAt(input.capture.main, index, r.b));
  return r;
}

const char* CutKind(const LiveSetCut& cut) {
  switch (cut.kind) {
    case LiveSetCut::Kind::kStart: return "start";
    case LiveSetCut::Kind::kEndOfFrame: return "frame";
    case LiveSetCut::Kind::kMarker: return "marker";
    case LiveSetCut::Kind::kEnd: return "end";
  }
  return "?";
}

std::string CutText(const LiveSetCut& cut) {
  switch (cut.kind) {
    case LiveSetCut::Kind::kStart: return "the start";
    case LiveSetCut::Kind::kEndOfFrame: return "the end of frame " + std::to_string(cut.frame);
    case LiveSetCut::Kind::kMarker: return "marker '" + cut.text + "' (frame " + std::to_string(cut.frame) + ")";
    case LiveSetCut::Kind::kEnd: return "the end";
  }
  return "";
}

json CutJson(const LiveSetCut& cut, uint64_t blocks, uint64_t bytes) {
  json j = {{"cut", cut.text}, {"kind", CutKind(cut)}};
  j["frame"] = cut.kind == LiveSetCut::Kind::kStart ? json(nullptr) : json(cut.frame);
  j["blocks"] = blocks;
  j["bytes"] = bytes;
  return j;
}

// A cut as the GPU side sees it: the end of a frame. GPU events are placed
// by frame only, so a marker counts the GPU objects of the frames before
// its own.
std::optional<uint64_t> GpuCutFrame(const LiveSetCut& cut) {
  switch (cut.kind) {
    case LiveSetCut::Kind::kStart: return std::nullopt;
    case LiveSetCut::Kind::kEndOfFrame: return cut.frame;
    case LiveSetCut::Kind::kMarker: return cut.frame ? std::optional<uint64_t>(cut.frame - 1) : std::nullopt;
    case LiveSetCut::Kind::kEnd: return UINT64_MAX;
  }
  return std::nullopt;
}

GpuDiff ComputeGpuDiff(const GpuAnalysis& gpu, const DiffResult& r) {
  const auto b = GpuCutFrame(r.b);
  return DiffGpu(gpu, GpuCutFrame(r.a), b ? *b : 0);
}

std::string GpuKindsText(const std::array<uint64_t, kGpuKinds>& bytes) {
  std::string text;
  for (int k = 1; k < kGpuKinds; ++k)
    if (bytes[k]) text += (text.empty() ? "" : ", ") + FormatBytes(bytes[k]) + " " + GpuKindName(GpuKind(k));
  return text.empty() ? "" : " (" + text + ")";
}

constexpr size_t kGpuObjectsShown = 10;

// The GPU side, beside the heap: what the load left in video memory.
void WriteGpuDiffText(const ReportInput& input, const DiffResult& r, std::ostream& out) {
  const GpuAnalysis gpu = AnalyzeGpuOf(input);
  if (gpu.empty()) return;
  const GpuDiff g = ComputeGpuDiff(gpu, r);
  out << "Live GPU at " << CutText(r.a) << ": " << FormatBytes(g.total_a()) << GpuKindsText(g.a) << '\n';
  out << "Live GPU at " << CutText(r.b) << ": " << FormatBytes(g.total_b()) << GpuKindsText(g.b) << '\n';
  out << "GPU change: " << FormatSignedBytes(static_cast<int64_t>(g.total_b()) - static_cast<int64_t>(g.total_a()))
      << ", " << Plural(g.made, "object") << " made, " << FormatCount(g.deleted) << " deleted, "
      << FormatCount(g.kept.size()) << " made and still alive (memframe report CAPTURE gpu)\n";
  if (g.kept.empty()) return;
  TextTable table({{"#"}, {"kind", true}, {"bytes"}, {"format", true}, {"size", true}, {"frame"},
                   {"function", true}, {"location", true}});
  for (size_t i = 0; i < g.kept.size() && i < kGpuObjectsShown; ++i) {
    const GpuObject& o = *g.kept[i];
    const SiteView v = NameStack(o.stack_id, input);
    table.AddRow({std::to_string(i + 1), GpuKindName(o.kind), FormatBytes(o.peak_bytes), GpuFormatName(o),
                  GpuDimensions(o), std::to_string(o.made_frame), NameCell(v), v.location});
  }
  out << '\n';
  table.Write(out);
}

json GpuDiffJson(const ReportInput& input, const DiffResult& r) {
  const GpuAnalysis gpu = AnalyzeGpuOf(input);
  const GpuDiff g = ComputeGpuDiff(gpu, r);
  json kinds = json::object();
  for (int k = 1; k < kGpuKinds; ++k)
    if (g.a[k] || g.b[k]) kinds[GpuKindName(GpuKind(k))] = {{"bytes_a", g.a[k]}, {"bytes_b", g.b[k]}};
  json kept = json::array();
  for (const GpuObject* o : g.kept) {
    json row = StackRefJson(NameStack(o->stack_id, input), input.json_stacks);
    row["kind"] = GpuKindName(o->kind);
    row["name"] = o->name;
    row["bytes"] = o->peak_bytes;
    row["format_name"] = GpuFormatName(*o);
    row["made_frame"] = o->made_frame;
    kept.push_back(std::move(row));
  }
  return {{"bytes_a", g.total_a()},
          {"bytes_b", g.total_b()},
          {"delta_bytes", static_cast<int64_t>(g.total_b()) - static_cast<int64_t>(g.total_a())},
          {"by_kind", std::move(kinds)},
          {"made", g.made},
          {"deleted", g.deleted},
          {"kept", std::move(kept)}};
}

}  // namespace

void WriteDiffText(const ReportInput& input, std::ostream& out) {
  DiffResult r = ComputeDiff(input);
  const LiveSetDiff& d = r.diff;
  out << "Live heap at " << CutText(r.a) << ": " << Plural(d.blocks_a, "block") << ", " << FormatBytes(d.bytes_a)
      << '\n';
  out << "Live heap at " << CutText(r.b) << ": " << Plural(d.blocks_b, "block") << ", " << FormatBytes(d.bytes_b)
      << '\n';
  out << "Change: " << FormatSignedBytes(static_cast<int64_t>(d.bytes_b) - static_cast<int64_t>(d.bytes_a)) << " in "
      << FormatSignedCount(static_cast<int64_t>(d.blocks_b) - static_cast<int64_t>(d.blocks_a)) << " blocks, "
      << Plural(d.rows.size(), "call stack") << " changed\n";
  WriteGpuDiffText(input, r, out);
  if (d.rows.empty()) return;
  out << '\n';
  if (!input.options.classes.KeepsAll()) out << "Call stacks" << ClassesShown(input) << ":\n";
  TextTable table({{"#"}, {"change", true}, {"bytes"}, {"blocks"}, {"at A"}, {"at B"}, {"class", true},
                   {"module", true}, {"function", true}, {"location", true}});
  std::vector<SiteView> views;
  std::vector<const LiveSetDiffRow*> shown;
  for (const LiveSetDiffRow& row : d.rows) {
    if (!KeepsSite(input, row.stack_id)) continue;
    shown.push_back(&row);
    views.push_back(NameStack(row.stack_id, input));
    table.AddRow({std::to_string(views.size()), ChangeName(row.change), FormatSignedBytes(row.delta_bytes()),
                  FormatSignedCount(row.delta_blocks()), FormatBytes(row.bytes_a), FormatBytes(row.bytes_b),
                  ClassCell(views.back()), ModuleCell(views.back()), NameCell(views.back()),
                  views.back().location});
  }
  table.Write(out);
  for (size_t i = 0; i < views.size() && i < kDiffStacksShown; ++i) {
    out << "\n#" << i + 1 << " " << ChangeName(shown[i]->change) << " " << FormatSignedBytes(shown[i]->delta_bytes())
        << " (stack " << shown[i]->stack_id << ")\n";
    WriteStack(views[i], out);
  }
}

void WriteDiffJson(const ReportInput& input, std::ostream& out) {
  DiffResult r = ComputeDiff(input);
  const LiveSetDiff& d = r.diff;
  json sites = json::array();
  for (const LiveSetDiffRow& row : d.rows) {
    if (!KeepsSite(input, row.stack_id)) continue;
    sites.push_back(DiffRowJson(row, NameStack(row.stack_id, input), input.json_stacks));
  }
  Emit({{"a", CutJson(r.a, d.blocks_a, d.bytes_a)},
        {"b", CutJson(r.b, d.blocks_b, d.bytes_b)},
        {"delta_blocks", static_cast<int64_t>(d.blocks_b) - static_cast<int64_t>(d.blocks_a)},
        {"delta_bytes", static_cast<int64_t>(d.bytes_b) - static_cast<int64_t>(d.bytes_a)},
        {"sites", std::move(sites)},
        {"gpu", GpuDiffJson(input, r)}},
       input, out);
}

}  // namespace memframe::analysis
