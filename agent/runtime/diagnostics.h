// The agent's own messages. Written with write(2) to a duplicate of stderr
// taken at start-up, so a game that closes or redirects stderr early does not
// silence them, and printing never allocates. The duplicate is an OwnedFd: if
// the game closes it too (or reuses its number), messages are dropped, never
// written into the game's own files.
#pragma once

namespace memframe::agent {

void InitDiagnostics();
// Closes the agent's copy of stderr (a detach leaves no fd behind); the
// next InitDiagnostics opens it again.
void CloseDiagnostics();
// printf-style into a fixed stack buffer; always prefixed "memframe: ".
void Warn(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Only when MEMFRAME_DEBUG=1.
void Debug(const char* format, ...) __attribute__((format(printf, 1, 2)));
void SetDebug(bool on);

}  // namespace memframe::agent
