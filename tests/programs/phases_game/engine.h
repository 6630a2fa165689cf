// The phases game's engine library (libphases_engine.so): code the
// game calls that allocates on the game's behalf.
#pragma once

extern "C" {
// Finds a path of `steps` steps; allocates and frees kEngineAllocations
// blocks (phases_truth.h) whatever `steps` is. Returns the path's length.
int engine_find_path(int steps);
}
