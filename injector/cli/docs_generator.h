// Man pages and bash completion, generated from the command list
// (commands.h) and the report registry, so they say what --help says:
// `memframe --generate-man [COMMAND]`, `memframe --generate-completion bash`
// and `memframe --generate-docs DIR` (hidden commands; the build writes them
// into build/share/, injector/CMakeLists.txt).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "commands.h"

namespace memframe::injector {

// The options the "options:" section of `command`'s usage names ("-o",
// "--output", ...), in order, once each: what its completion offers.
std::vector<std::string> OptionsInUsage(const Command& command);

// memframe(1) without a command, memframe-COMMAND(1) with one; false for an
// unknown command.
bool WriteManPage(const std::string& command, std::ostream& out);
void WriteBashCompletion(std::ostream& out);
// DIR/man/man1/memframe.1 and memframe-COMMAND.1, and
// DIR/bash-completion/completions/memframe (`memframe --generate-docs DIR`).
bool WriteDocs(const std::string& dir, std::string* error);

}  // namespace memframe::injector
