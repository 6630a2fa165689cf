// The window's thread, and a software renderer's threads it starts, must
// win the cores from the work done behind the window (loading a capture,
// rebuilding a thread selection): on two cores a load's two busy threads
// stretched a frame drawn beside them to 100-260 ms.
#pragma once

namespace memframe::viewer {

// Lowers the calling thread's priority (nice +10; on Linux a thread's nice
// value is its own and the threads it starts inherit it). Called first
// thing on a background thread; when the system refuses, it runs as before.
void LowerThisThreadsPriority();

}  // namespace memframe::viewer
