#include "e2e_helpers.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace memframe::e2e {
namespace {

// Single quotes make the shell take every character literally; a single
// quote inside is closed, escaped and reopened.
std::string ShellQuote(std::string_view word) {
  std::string quoted = "'";
  for (char character : word) {
    if (character == '\'') {
      quoted += "'\\''";
    } else {
      quoted += character;
    }
  }
  quoted += "'";
  return quoted;
}

int DecodeWaitStatus(int status) {
  if (status == -1) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::string ShellCommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& word : argv) {
    if (!line.empty()) line += ' ';
    line += ShellQuote(word);
  }
  return line;
}

CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_seconds) {
  // popen goes through /bin/sh, so every word is quoted; `timeout` sends
  // TERM at the limit and KILL 5 s later if that was ignored.
  const std::string command = "timeout --kill-after=5 " + std::to_string(timeout_seconds) + " " +
                              ShellCommandLine(argv);
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> chunk;
  size_t read_bytes = 0;
  while ((read_bytes = std::fread(chunk.data(), 1, chunk.size(), pipe)) > 0) {
    result.standard_output.append(chunk.data(), read_bytes);
  }
  result.exit_code = DecodeWaitStatus(pclose(pipe));
  return result;
}

ScratchDirectory::ScratchDirectory(std::string_view prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / prefix).string() + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  path_ = pattern;
}

ScratchDirectory::~ScratchDirectory() {
  const char* keep = std::getenv("MEMFRAME_E2E_KEEP");
  if (keep != nullptr && std::string_view(keep) == "1") {
    std::fprintf(stderr, "memframe e2e: keeping %s\n", path_.c_str());
    return;
  }
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

nlohmann::json ParseJsonOrDiscard(const std::string& text) {
  return nlohmann::json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
}

namespace {

// Every object below `node` that names a stack gets its frames.
void InlineStacks(nlohmann::json& node, const nlohmann::json& stacks, const nlohmann::json& frames) {
  if (node.is_array()) {
    for (nlohmann::json& element : node) InlineStacks(element, stacks, frames);
    return;
  }
  if (!node.is_object()) return;
  for (auto& [key, value] : node.items()) InlineStacks(value, stacks, frames);
  const auto id = node.find("stack_id");
  if (id == node.end() || !id->is_number()) return;
  nlohmann::json stack = nlohmann::json::array();
  const auto indices = stacks.find(std::to_string(id->get<uint64_t>()));
  if (indices != stacks.end())
    for (const nlohmann::json& index : *indices) stack.push_back(frames.at(index.get<size_t>()));
  node["stack"] = std::move(stack);
}

}  // namespace

nlohmann::json WithStacks(nlohmann::json report) {
  if (!report.is_object() || !report.contains("stacks")) return report;
  const nlohmann::json stacks = report["stacks"], frames = report["stack_frames"];
  InlineStacks(report, stacks, frames);
  return report;
}

nlohmann::json ReportJson(const std::string& cli, const std::string& capture, const std::vector<std::string>& args,
                          std::string* failure) {
  std::vector<std::string> argv = {cli, "report", capture};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--json");
  CommandResult r = RunCommand(argv, 120);
  nlohmann::json j = ParseJsonOrDiscard(r.standard_output);
  if (r.exit_code != 0) j = nlohmann::json(nlohmann::json::value_t::discarded);
  if (j.is_discarded())
    *failure = ShellCommandLine(argv) + " exited with " + std::to_string(r.exit_code) + ", printing: " +
               r.standard_output;
  return WithStacks(std::move(j));
}

bool StackContains(const nlohmann::json& site, std::string_view function) {
  const auto stack = site.find("stack");
  if (stack == site.end() || !stack->is_array()) return false;
  for (const nlohmann::json& frame : *stack) {
    const auto name = frame.find("function");
    if (name != frame.end() && name->is_string() &&
        name->get_ref<const std::string&>().find(function) != std::string::npos) {
      return true;
    }
  }
  return false;
}

nlohmann::json OneScopeRows(const nlohmann::json& report, const std::string& key) {
  if (!report.is_object() || !report.contains("phases") || report["phases"].size() != 1) return nlohmann::json::array();
  return report["phases"][0].value(key, nlohmann::json::array());
}

nlohmann::json EveryScopeRows(const nlohmann::json& report, const std::string& key) {
  nlohmann::json rows = nlohmann::json::array();
  if (!report.is_object()) return rows;
  if (!report.contains("phases")) return report.value(key, nlohmann::json::array());
  for (const nlohmann::json& phase : report["phases"])
    for (const nlohmann::json& row : phase.value(key, nlohmann::json::array())) rows.push_back(row);
  return rows;
}

std::vector<nlohmann::json> SitesWithFunctionInStack(const nlohmann::json& sites, std::string_view function) {
  std::vector<nlohmann::json> matches;
  if (!sites.is_array()) return matches;
  for (const nlohmann::json& site : sites) {
    if (StackContains(site, function)) matches.push_back(site);
  }
  return matches;
}

SiteTotals SumSites(const std::vector<nlohmann::json>& sites) {
  SiteTotals totals;
  for (const nlohmann::json& site : sites) {
    totals.allocations += site.value("allocations", std::uint64_t{0});
    totals.bytes += site.value("bytes", std::uint64_t{0});
  }
  return totals;
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> CheckRow(const std::string& table, const std::string& budget) {
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t at = line.find("  " + budget + "  ");
    if (at == std::string::npos) continue;
    std::vector<std::string> cells;
    std::istringstream head(line.substr(0, at)), tail(line.substr(at + budget.size() + 2));
    std::string cell;
    head >> cell;
    cells.push_back(cell);
    while (tail >> cell) {
      if (cell == "B") continue;  // "169 B": the unit of the figure before
      cells.push_back(cell);
    }
    return cells;
  }
  return {};
}

std::string CheckMean(std::uint64_t total, std::uint64_t frames) {
  const std::uint64_t tenths = (total * 10 + frames - 1) / frames;
  std::string whole = std::to_string(tenths / 10);
  for (int at = static_cast<int>(whole.size()) - 3; at > 0; at -= 3) whole.insert(static_cast<size_t>(at), ",");
  return whole + "." + std::to_string(tenths % 10);
}

std::vector<std::string> JUnitTestcaseNames(const std::string& xml) {
  std::vector<std::string> names;
  const std::string open = "<testcase classname=\"memframe.budget\" name=\"";
  for (size_t at = xml.find(open); at != std::string::npos; at = xml.find(open, at)) {
    at += open.size();
    names.push_back(xml.substr(at, xml.find('"', at) - at));
  }
  return names;
}

Child Child::Start(const std::vector<std::string>& argv, int output_fd) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return {};
  Child child;
  child.pid = fork();
  if (child.pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], output_fd);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  child.to = fdopen(in[1], "w");
  child.from = fdopen(out[0], "r");
  return child;
}

std::string Child::ReadLine() {
  char line[4096];
  if (!from || !fgets(line, sizeof(line), from)) return "";
  std::string text(line);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

int Child::Wait() {
  if (to) fclose(to);
  to = nullptr;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace memframe::e2e
