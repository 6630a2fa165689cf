// libunwind checks that an address is readable before it follows a frame
// pointer (code without unwind tables) by writing the byte there into a
// pipe of its own, which it opens at the lowest free fd numbers (3 and 4 in
// most programs) and re-opens there whenever a read from it fails. A
// program that closes its fds and reopens its own files on those numbers
// then has a byte of its input read by libunwind and a byte of memory
// written into its output at each check, and its first open() gets 5.
//
// The agent points libunwind's own imports of pipe2, read, close and
// syscall at the functions here: the pipe lies at high numbers,
// close-on-exec (owned_fd.h), and before each use its numbers are checked
// to still name the pipe; a number the program took over is never read,
// written or closed (libunwind sees EBADF and asks for a new pipe, which
// lands high again). Other fds pass through.
#pragma once

namespace memframe::agent {

// Before libunwind's first call (which opens the pipe); idempotent.
void RedirectUnwinderPipe();

// Closes the pipe (a detach: nothing of the agent's stays open).
void CloseUnwinderPipe();

}  // namespace memframe::agent
