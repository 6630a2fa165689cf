// How memframe's programs read their arguments: each command, each report
// and memframe-viewer declares its options as a table of CommandOption, and
// ParseCommandLine reads them with CLI11 (`--opt value` and `--opt=value`,
// repeated options, "--"), so that every one of them behaves the same and
// says its problems the same way. The table is also what the man pages and
// completion are written from. Only command_line.cc includes CLI11, a
// header-only library slow to compile.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace memframe {

struct CommandOption {
  std::string names;  // "-o,--output" (CLI11's form)
  std::string value;  // what it takes, as help shows it ("FILE"); "" for a flag
  std::string help;   // one line; "" keeps it out of generated docs
  // Called with the value (a flag: "") each time the option is read, in
  // order; returns "" or the message that refuses the value
  // ("--x wants ..., not 'v'").
  std::function<std::string(const std::string& value)> apply;
};

// Common kinds of option: a flag that sets *out, a value stored as it is.
CommandOption Flag(const std::string& names, bool* out, const std::string& help = "");
CommandOption Text(const std::string& names, const std::string& value, std::string* out,
                   const std::string& help = "");

enum class ParsedCommandLine { kOk, kHelp, kError };

enum class OptionsEnd {
  kAnywhere,         // options may follow the positional arguments
  kAtFirstPositional,  // the rest belongs to a program (memframe run PROGRAM ARGS...)
};

// The message for an option the table does not have (its name, without a
// value); unset: "unknown option 'NAME'".
using UnknownOptionMessage = std::function<std::string(const std::string& name)>;

// Reads `args` (no program name). -h/--help gives kHelp. Arguments that are
// not options come back in *positional, in order (everything after "--", and
// with kAtFirstPositional everything from the first one on); an unknown
// option or a refused value is kError with *error.
ParsedCommandLine ParseCommandLine(const std::vector<CommandOption>& options, const std::vector<std::string>& args,
                                   std::vector<std::string>* positional, std::string* error,
                                   OptionsEnd end = OptionsEnd::kAnywhere,
                                   const UnknownOptionMessage& unknown = nullptr);

// The option names in `names` ("-o,--output" -> {"-o", "--output"}).
std::vector<std::string> OptionNames(const CommandOption& option);
// Whether `arg` is an option rather than a value ("-5" and "-.5" are values).
bool LooksLikeOption(const std::string& arg);

// Number parsers for the checks: false unless all of `text` is the number.
bool ParseLong(const std::string& text, long* out);
bool ParseDouble(const std::string& text, double* out);

// The exit statuses memframe's commands share (`memframe run` adds its own,
// cli_common.h): a report or export of a damaged capture, of what came
// before the damage; memframe's own failures (bad usage, unreadable input,
// cannot write).
constexpr int kExitOk = 0;
constexpr int kExitDamagedCapture = 1;
constexpr int kExitMemframeError = 2;

// "PROGRAM: error: ": the one prefix of memframe's errors ("memframe",
// "memframe-viewer").
std::ostream& ErrorLine(std::ostream& err, const char* program = "memframe");

}  // namespace memframe
