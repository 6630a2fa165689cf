// Finds the program to launch and tells, before anything runs, whether
// LD_PRELOAD can put the agent into it. Linux only (ELF, the dynamic loader).
#pragma once

#include <string>

namespace memframe::injector {

// Finds `program` the way execvp does: as given when it contains a '/',
// else in the directories of $PATH. Returns false with a message such as
// "frobnicate: command not found" or "./game: permission denied", and
// *why (when given) ENOENT for a program that is not there, else the errno
// that keeps it from running.
bool ResolveProgram(const std::string& program, std::string* path, std::string* error, int* why = nullptr);

// Returns why the agent could not be preloaded into the executable at `path`
// (statically linked, setuid/setgid, 32-bit or another machine's, not a
// program at all), or "" when it can.
// #! scripts are accepted: the loader preloads the agent into their
// interpreter.
std::string WhyAgentCannotLoad(const std::string& path);

}  // namespace memframe::injector
