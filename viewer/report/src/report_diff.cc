// `diff A B`: the live heap at A against B, call stack by call stack.
#include "memframe/analysis/live_set_at.h"
#include "memframe/analysis/live_set_diff.h"
#include "memframe/analysis/phases.h"
#include "report_json_common.h"
#include "report_text_common.h"

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
    json site = StackRefJson(NameStack(row.stack_id, input), input);
    site["change"] = ChangeName(row.change);
    site["blocks_a"] = row.blocks_a;
    site["bytes_a"] = row.bytes_a;
    site["blocks_b"] = row.blocks_b;
    site["bytes_b"] = row.bytes_b;
    site["delta_blocks"] = row.delta_blocks();
    site["delta_bytes"] = row.delta_bytes();
    sites.push_back(std::move(site));
  }
  Emit({{"a", CutJson(r.a, d.blocks_a, d.bytes_a)},
        {"b", CutJson(r.b, d.blocks_b, d.bytes_b)},
        {"delta_blocks", static_cast<int64_t>(d.blocks_b) - static_cast<int64_t>(d.blocks_a)},
        {"delta_bytes", static_cast<int64_t>(d.bytes_b) - static_cast<int64_t>(d.bytes_a)},
        {"sites", std::move(sites)}},
       input, out);
}

}  // namespace memframe::analysis
