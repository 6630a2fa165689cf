// The `memframe` commands, one entry each: the top-level usage, `help
// COMMAND`, dispatch, and the man pages and bash completion generated from
// them (docs_generator.h) all read this list.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "memframe/command_line.h"

namespace memframe::injector {

struct Command {
  std::string name;      // "run"
  std::string synopsis;  // what follows the name in the usage line
  std::string summary;   // one line
  void (*usage)(std::ostream& out);                    // what `memframe COMMAND --help` prints
  int (*run)(const std::vector<std::string>& args);    // what follows the name; returns the exit status
};

const std::vector<Command>& Commands();
const Command* FindCommand(const std::string& name);

// Reads the arguments of `command` (its name in Commands()) against its
// option table. Empty to go on with *positional; else the exit status:
// 0 after printing its usage for --help, 2 after a usage error.
std::optional<int> ReadCommandArgs(const std::string& command, const std::vector<CommandOption>& options,
                                   const std::vector<std::string>& args, std::vector<std::string>* positional);

}  // namespace memframe::injector
