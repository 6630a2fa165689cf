#include "memframe/analysis/thread_filter.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <unordered_map>

#include "memframe/analysis/mapped_regions.h"

namespace memframe::analysis {

namespace {

bool ParseTid(const std::string& text, uint32_t* tid) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long value = strtoul(text.c_str(), &end, 10);
  if (errno || *end || value > UINT32_MAX) return false;
  *tid = static_cast<uint32_t>(value);
  return true;
}

std::string ThreadList(const Stream& stream) {
  std::string list;
  for (const Thread& t : stream.threads) {
    if (t.memframe) continue;
    if (!list.empty()) list += ", ";
    list += (t.name.empty() ? "(unnamed)" : t.name) + " " + std::to_string(t.tid);
  }
  return list.empty() ? "none" : list;
}

bool Selected(const ThreadSelection& selection, uint16_t thread) {
  return thread < selection.size() && selection[thread];
}

}  // namespace

bool ResolveThreads(const Stream& stream, const std::vector<std::string>& specs, ThreadSelection* selection,
                    std::string* error) {
  selection->clear();
  if (specs.empty()) return true;
  selection->assign(stream.threads.size(), false);
  for (const std::string& spec : specs) {
    uint32_t tid = 0;
    const bool by_tid = ParseTid(spec, &tid);
    bool found = false;
    for (size_t i = 0; i < stream.threads.size(); ++i) {
      const Thread& t = stream.threads[i];
      if (t.memframe) continue;
      if (by_tid ? t.tid == tid : t.name == spec) {
        (*selection)[i] = true;
        found = true;
      }
    }
    // A thread whose name is all digits can still be named by it.
    if (!found && by_tid) {
      for (size_t i = 0; i < stream.threads.size(); ++i) {
        if (!stream.threads[i].memframe && stream.threads[i].name == spec) (*selection)[i] = found = true;
      }
    }
    if (!found) {
      *error = "--thread " + spec + ": no thread " + (by_tid ? "has that TID" : "has that name") +
               " (threads: " + ThreadList(stream) + ")";
      return false;
    }
  }
  return true;
}

void FilterThreads(Stream* stream, const ThreadSelection& selection) {
  if (selection.empty()) return;
  // Every live block and whether a selected thread made it: a free is kept
  // with its block, and a free of a pointer nobody allocated (a double free,
  // an unknown pointer) with the thread that made it.
  std::unordered_map<uint64_t, bool> live;
  MappedRegions kept_regions;
  stream->events.Rewrite([&](Event& e) {
    const bool selected = Selected(selection, e.thread);
    switch (e.kind()) {
      case EventKind::kAlloc:
        live[e.address] = selected;
        return selected;
      case EventKind::kFree: {
        auto it = live.find(e.address);
        if (it == live.end()) return selected;
        const bool keep = it->second;
        live.erase(it);
        return keep;
      }
      case EventKind::kMap:
        // A mapping over a selected one (MAP_FIXED) takes its place.
        kept_regions.Unmap(e.address, e.size);
        if (selected) kept_regions.Map(e);
        return selected;
      case EventKind::kUnmap: {
        const uint64_t before = kept_regions.mapped_bytes();
        kept_regions.Unmap(e.address, e.size);
        return kept_regions.mapped_bytes() != before;
      }
      case EventKind::kFrameEnd:
      case EventKind::kMarker:
      case EventKind::kAllocatorRelease:
      case EventKind::kNone:
        return true;
    }
    return true;
  });
}

const char* ThreadFilterRefusal(const std::string& report) {
  if (report == "fragmentation")
    return "the heap's layout is made by every thread's blocks, and one thread's alone would show the others' as "
           "holes";
  return nullptr;
}

std::string ThreadName(const Stream& stream, uint16_t thread) {
  if (thread >= stream.threads.size()) return "?";
  const Thread& t = stream.threads[thread];
  return t.name.empty() ? "tid " + std::to_string(t.tid) : t.name;
}

std::string DescribeThreads(const Stream& stream, const ThreadSelection& selection) {
  std::vector<std::string> names;
  for (size_t i = 0; i < selection.size(); ++i) {
    if (!selection[i]) continue;
    std::string name = ThreadName(stream, static_cast<uint16_t>(i));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.size() > 3) return std::to_string(names.size()) + " threads";
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string ThreadsCell(const Stream& stream, const std::vector<SiteThread>& threads) {
  if (threads.empty()) return "";
  const SiteThread* top = &threads[0];
  for (const SiteThread& t : threads) {
    if (t.allocations > top->allocations || (t.allocations == top->allocations && t.thread < top->thread)) top = &t;
  }
  std::string cell = ThreadName(stream, top->thread);
  return threads.size() == 1 ? cell : cell + "+" + std::to_string(threads.size() - 1);
}

}  // namespace memframe::analysis
