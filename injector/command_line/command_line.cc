#include "memframe/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "memframe/parse_number.h"

namespace memframe {

namespace {

// CLI11's few messages of its own, in memframe's words.
std::string Reworded(const CLI::ParseError& e) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    // "all was given a disallowed flag override": a value given to a flag.
    const size_t override_at = what.find(" was given a disallowed flag override");
    if (override_at != std::string::npos) {
      std::string name = what.substr(0, override_at);
      return (name.rfind('-', 0) == 0 ? name : "--" + name) + " takes no value";
    }
    // "--x: 1 required TEXT missing".
    return what.substr(0, what.find(':')) + " needs a value";
  }
  return what;
}

}  // namespace

CommandOption Flag(const std::string& names, bool* out, const std::string& help) {
  return {names, "", help, [out](const std::string&) {
            *out = true;
            return std::string();
          }};
}

CommandOption Text(const std::string& names, const std::string& value, std::string* out, const std::string& help) {
  return {names, value, help, [out](const std::string& v) {
            *out = v;
            return std::string();
          }};
}

ParsedCommandLine ParseCommandLine(const std::vector<CommandOption>& options, const std::vector<std::string>& args,
                                   std::vector<std::string>* positional, std::string* error, OptionsEnd end,
                                   const UnknownOptionMessage& unknown) {
  auto unknown_message = [&unknown](const std::string& arg) {
    const std::string name = arg.substr(0, arg.find('='));
    return unknown ? unknown(name) : "unknown option '" + name + "'";
  };
  CLI::App app;
  app.set_help_flag("-h,--help");
  for (const CommandOption& option : options) {
    // Each use is applied as it is read (trigger_on_parse), so a repeated
    // option (--thread A --thread B) is applied each time, in order.
    auto apply = [&option](const std::string& value) {
      std::string problem = option.apply(value);
      if (!problem.empty()) throw CLI::ValidationError(problem);
    };
    if (option.value.empty()) {
      app.add_flag_callback(option.names, [apply] { apply(""); })->trigger_on_parse()->disable_flag_override();
    } else {
      app.add_option_function<std::string>(option.names, apply)
          ->trigger_on_parse()
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
  }
  // Everything after "--" is positional, whatever it looks like.
  std::vector<std::string> after_dashes;
  std::vector<std::string> before = args;
  if (end == OptionsEnd::kAtFirstPositional) {
    app.prefix_command();
  } else {
    app.allow_extras();
    auto dashes = std::find(before.begin(), before.end(), "--");
    if (dashes != before.end()) {
      after_dashes.assign(dashes + 1, before.end());
      before.erase(dashes, before.end());
    }
  }
  std::vector<std::string> reversed(before.rbegin(), before.rend());  // CLI11 reads from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return ParsedCommandLine::kHelp;
  } catch (const CLI::ParseError& e) {
    *error = Reworded(e);
    return ParsedCommandLine::kError;
  }
  std::vector<std::string> rest = app.remaining();
  if (end == OptionsEnd::kAtFirstPositional) {
    // An option CLI11 does not know stops it as the first positional does;
    // "--" is left in front.
    if (!rest.empty() && rest[0] == "--") {
      rest.erase(rest.begin());
    } else if (!rest.empty() && LooksLikeOption(rest[0])) {
      *error = unknown_message(rest[0]);
      return ParsedCommandLine::kError;
    }
    positional->insert(positional->end(), rest.begin(), rest.end());
    return ParsedCommandLine::kOk;
  }
  for (const std::string& arg : rest) {
    if (LooksLikeOption(arg)) {
      *error = unknown_message(arg);
      return ParsedCommandLine::kError;
    }
    positional->push_back(arg);
  }
  positional->insert(positional->end(), after_dashes.begin(), after_dashes.end());
  return ParsedCommandLine::kOk;
}

std::vector<std::string> OptionNames(const CommandOption& option) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= option.names.size()) {
    size_t comma = option.names.find(',', start);
    if (comma == std::string::npos) comma = option.names.size();
    if (comma > start) names.push_back(option.names.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

bool LooksLikeOption(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9') && arg[1] != '.';
}

bool ParseLong(const std::string& text, long* out) {
  return ParseInteger(text, out, std::numeric_limits<long>::min(), std::numeric_limits<long>::max());
}

bool ParseDouble(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double value = strtod(text.c_str(), &end);
  if (errno || *end || !std::isfinite(value)) return false;
  *out = value;
  return true;
}

std::ostream& ErrorLine(std::ostream& err, const char* program) { return err << program << ": error: "; }

}  // namespace memframe
