// Man pages written from the same definitions as --help: the `memframe`
// commands (injector/cli/docs_generator.h) and memframe-viewer, whose page
// lists its option table (memframe/command_line.h).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "memframe/command_line.h"

namespace memframe {

// Text as troff prints it literally: backslashes and hyphens escaped, and no
// line starting with a control character.
std::string Troff(const std::string& text);

// .TH and NAME: "PAGE \- SUMMARY", section 1.
void WriteManHeader(const std::string& page, const std::string& summary, const std::string& version,
                    std::ostream& out);

// "--name VALUE" for help and man pages ("-o, --output FILE").
std::string OptionSynopsis(const CommandOption& option);

// An OPTIONS section: each option of `options` with a help line.
void WriteManOptions(const std::vector<CommandOption>& options, std::ostream& out);

// "  --name VALUE     help" lines, as --help prints them.
void WriteHelpOptions(const std::vector<CommandOption>& options, std::ostream& out, size_t column = 30);

}  // namespace memframe
