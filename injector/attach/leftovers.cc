#include "attach/leftovers.h"

#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "memframe/paths.h"

namespace memframe::injector {

namespace {

std::set<std::string> FilesMapped(const ProcessFootprint& f) {
  std::set<std::string> files;
  for (const MappedRange& r : f.maps)
    if (!r.path.empty() && r.path[0] == '/') files.insert(r.path);
  return files;
}

uint64_t MappedBytes(const ProcessFootprint& f) {
  uint64_t total = 0;
  for (const MappedRange& r : f.maps) total += r.end - r.start;
  return total;
}

std::string Mib(double bytes) {
  char text[32];
  snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

}  // namespace

ProcessFootprint ReadFootprint(pid_t pid) {
  ProcessFootprint f;
  const std::string proc = "/proc/" + std::to_string(pid);
  if (DIR* dir = opendir((proc + "/fd").c_str())) {
    while (dirent* entry = readdir(dir))
      if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') f.fds.insert(atoi(entry->d_name));
    closedir(dir);
  }
  f.maps = ReadMaps(pid);
  std::ifstream status(proc + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.compare(0, 6, "VmRSS:") == 0) f.resident_kib = strtoull(line.c_str() + 6, nullptr, 10);
  return f;
}

std::string DescribeLeftovers(const ProcessFootprint& before, const ProcessFootprint& after) {
  std::string libraries;
  const std::set<std::string> had = FilesMapped(before);
  for (const std::string& path : FilesMapped(after))
    if (!had.count(path)) libraries += (libraries.empty() ? "" : ", ") + Basename(path);
  std::string text = libraries.empty() ? "no library" : libraries + " (loaded for good: a thread may still return into them)";
  const double added = static_cast<double>(MappedBytes(after)) - static_cast<double>(MappedBytes(before));
  const double resident = (static_cast<double>(after.resident_kib) - static_cast<double>(before.resident_kib)) * 1024;
  text += "; " + Mib(added) + " more address space and " + Mib(resident) +
          " more resident memory than before the attach (the threads' rings and the stack table, kept in case a "
          "thread is still inside a hook; the C library's arena and stacks of the agent's threads, kept for reuse; "
          "and what the process did meanwhile)";
  std::string fds;
  for (int fd : after.fds)
    if (!before.fds.count(fd)) fds += (fds.empty() ? "" : ", ") + std::to_string(fd);
  text += fds.empty() ? "; no fd" : "; fds " + fds;
  return text;
}

}  // namespace memframe::injector
