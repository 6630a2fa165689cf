// `memframe attach PID`: records a process that is already running, from
// now on, until Ctrl+C, --duration or `memframe detach PID`; the process
// runs on. `memframe detach PID` ends such a recording.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace memframe::injector {

void PrintAttachUsage(std::ostream& out);
void PrintDetachUsage(std::ostream& out);
int AttachCommand(const std::vector<std::string>& args);
int DetachCommand(const std::vector<std::string>& args);

}  // namespace memframe::injector
