// `memframe mark SOCKET [NAME]`: places a named snapshot marker in a run that
// is being recorded, through its live socket (what the viewer's "Snapshot
// now" does), and waits until the recorder has written it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace memframe::injector {

void PrintMarkUsage(std::ostream& out);
int MarkCommand(const std::vector<std::string>& args);

}  // namespace memframe::injector
