// Small helpers shared by the integration tests: run a command and capture
// what it prints, make a scratch directory, and pick call sites out of the
// JSON that `memframe report ... --json` prints.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace memframe::e2e {

struct CommandResult {
  // The exit status, or 128 + signal number when the command was killed;
  // 124 when it ran past its time limit (coreutils `timeout`).
  int exit_code = -1;
  std::string standard_output;  // stderr is not captured: it goes to the test's log
};

// Runs argv[0] with the remaining arguments (no shell interpretation of
// them) and waits for it, killing it after `timeout_seconds` so that a hung
// recorder or game fails the test instead of stalling the suite.
CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_seconds);

// `argv` as one line a person can paste into a shell, for failure messages.
std::string ShellCommandLine(const std::vector<std::string>& argv);

// A fresh empty directory under the system temporary directory, removed by
// the destructor unless MEMFRAME_E2E_KEEP=1 is set (to inspect a capture).
class ScratchDirectory {
 public:
  explicit ScratchDirectory(std::string_view prefix);
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Parses `text` as JSON; on failure returns a discarded value (check with
// is_discarded()) so the caller can report the text it could not parse.
nlohmann::json ParseJsonOrDiscard(const std::string& text);

// A report's JSON with each row's stack written into the row as "stack"
// (innermost first), as the viewer's --dump-view-data rows carry it: a
// report writes each stack once, in its "stacks" table (stack id -> frame
// indices) over "stack_frames", and its rows name it by "stack_id"
// (REPORTS.md, "Stacks in JSON"). The helpers below read "stack".
nlohmann::json WithStacks(nlohmann::json report);

// `cli report capture args... --json` (120 s at most): its JSON
// (WithStacks), or a discarded value with *failure saying what went wrong
// (the command line, its exit status, what it printed).
nlohmann::json ReportJson(const std::string& cli, const std::string& capture, const std::vector<std::string>& args,
                          std::string* failure);

// The rows of a report that answers per phase ("phases": [ { ..., key: [...] } ])
// asked for one range (--all-frames, --from/--to, --phase): the one phase's
// `key` ("sites", "hidden_sites"); an empty array when the report has not
// exactly one.
nlohmann::json OneScopeRows(const nlohmann::json& report, const std::string& key = "sites");
// The rows `key` of every phase of a per-phase report, in order (a site
// that allocates in two phases is a row in each); of the report itself when
// it has no "phases" (leaks).
nlohmann::json EveryScopeRows(const nlohmann::json& report, const std::string& key = "sites");

// True when any frame of the site's "stack" names a function containing
// `function` (case-sensitive substring: demangled names carry namespaces and
// parameter lists).
bool StackContains(const nlohmann::json& site, std::string_view function);

// The sites of `sites` (a JSON array of site objects) whose stack contains
// `function`.
std::vector<nlohmann::json> SitesWithFunctionInStack(const nlohmann::json& sites, std::string_view function);

struct SiteTotals {
  std::uint64_t allocations = 0;
  std::uint64_t bytes = 0;
};

// Sums "allocations" and "bytes" over `sites`.
SiteTotals SumSites(const std::vector<nlohmann::json>& sites);

// The whole text of a file ("" when it cannot be read).
std::string ReadTextFile(const std::string& path);

// The cells of `memframe check`'s table row for the check named `budget`:
// result, limit, actual, frame ("169 B" is one cell, "169"); empty when no
// row has that name.
std::vector<std::string> CheckRow(const std::string& table, const std::string& budget);

// A mean of `total` over `frames` as `memframe check` shows it: to a tenth,
// rounded up, thousands separated ("36,408.9").
std::string CheckMean(std::uint64_t total, std::uint64_t frames);

// A child with its stdin and one output stream as pipes: a game that waits
// for a line before a frame, `memframe attach` whose messages are read.
struct Child {
  pid_t pid = -1;
  FILE* to = nullptr;    // its stdin
  FILE* from = nullptr;  // its stdout or stderr (`output_fd`)

  static Child Start(const std::vector<std::string>& argv, int output_fd);
  // The next line it writes (without the newline), or "" at its end.
  std::string ReadLine();
  // Closes its stdin and waits: its exit status, or 128 + its signal.
  int Wait();
};

// The testcase names of a JUnit file `memframe check --junit` wrote, in order.
std::vector<std::string> JUnitTestcaseNames(const std::string& xml);

}  // namespace memframe::e2e
