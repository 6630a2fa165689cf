// `mismatches`: frees that do not match their allocation (mismatches.h).
#include "memframe/analysis/mismatches.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

std::string Describe(const Mismatch& m) {
  switch (m.kind) {
    case Mismatch::Kind::kFamily:
      return std::string(AllocName(m.alloc_family)) + " freed with " + FreeName(m.free_family);
    case Mismatch::Kind::kDoubleFree:
      return std::string("double ") + FreeName(m.free_family) + " of a " + AllocName(m.alloc_family) + " block";
    case Mismatch::Kind::kFreedAfterRelease:
      return "free of a custom block after its allocator's release (held past the release)";
    case Mismatch::Kind::kUnknownPointer:
      return std::string(FreeName(m.free_family)) + " of a pointer never allocated";
  }
  return "";
}

const char* kNoFreeStacks =
    "the capture has no free stacks, so the free site is unknown (record with `memframe run --free-stacks` to see it)";

// By the site that allocated the block, or freed it when it was never allocated.
bool KeepsMismatch(const ReportInput& input, const Mismatch& m) {
  return KeepsSite(input, m.kind == Mismatch::Kind::kUnknownPointer ? m.free_stack : m.alloc_stack);
}

}  // namespace

void WriteMismatchesText(const ReportInput& input, std::ostream& out) {
  MismatchReport r = FindMismatches(input.capture.main);
  std::erase_if(r.mismatches, [&](const Mismatch& m) { return !KeepsMismatch(input, m); });
  uint64_t total = 0;
  for (const Mismatch& m : r.mismatches) total += m.count;
  out << Plural(total, "mismatched free") << " among " << Plural(r.frees, "free") << '\n';
  if (r.freed_before_attach)
    out << "note: " << Plural(r.freed_before_attach, "free") << " of blocks allocated before the attach (unknown to "
        << "memframe) are not mismatches\n";
  if (r.mismatches.empty()) return;
  if (r.frees_with_stack == 0) out << "note: " << kNoFreeStacks << '\n';
  size_t rank = 0;
  for (const Mismatch& m : r.mismatches) {
    out << "\n#" << ++rank << " " << Describe(m) << ": " << Plural(m.count, "time");
    if (m.bytes) out << ", " << FormatBytes(m.bytes);
    out << ", first in frame " << m.first_frame << " at " << Hex(m.first_address) << '\n';
    if (m.kind != Mismatch::Kind::kUnknownPointer) {
      out << "    allocated at:\n";
      WriteStack(NameStack(m.alloc_stack, input), out);
    }
    if (m.free_stack) {
      out << "    freed at:\n";
      WriteStack(NameStack(m.free_stack, input), out);
    }
  }
}

void WriteMismatchesJson(const ReportInput& input, std::ostream& out) {
  MismatchReport r = FindMismatches(input.capture.main);
  std::erase_if(r.mismatches, [&](const Mismatch& m) { return !KeepsMismatch(input, m); });
  json list = json::array();
  uint64_t total = 0;
  for (const Mismatch& m : r.mismatches) {
    total += m.count;
    list.push_back(MismatchJson(m, NameStack(m.alloc_stack, input), NameStack(m.free_stack, input), input.json_stacks));
  }
  Emit({{"frees", r.frees},
        {"free_stacks_recorded", r.frees_with_stack > 0},
        {"freed_before_attach", r.freed_before_attach},
        {"total", total},
        {"mismatches", std::move(list)}},
       input, out);
}

}  // namespace memframe::analysis
