// The fake graphics driver's entry points (fake_dri.cc).
#pragma once

extern "C" {
// Presents a frame: allocates what driver_game_truth.h says, then ends the
// frame (MemframeFrameMark), as a driver's swap would.
void FakePresent(int frame);
// Frees what the driver still holds (the last frame's blocks).
void FakeShutdown();
}
