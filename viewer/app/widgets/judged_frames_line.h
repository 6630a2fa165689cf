// The line above the views that judge many frames (Hidden, Lifetimes,
// Threads): the range picked that they take (Selection::PickedRange), which
// of its frames they judge (phases.h JudgeFrames) and the toggle to judge
// every frame, shared by the views (Session).
#pragma once

#include <string>


#include "memframe/analysis/phases.h"
#include "selection.h"
#include "session.h"

namespace memframe::viewer {

// Draws the line; true when the toggle changed the session's choice.
bool DrawJudgedFramesLine(Session& session, const Selection& selection, const analysis::JudgedFrames& judged);

// What the line says of the judged frames: "the steady frames 1..120 (120
// frames): start-up and loads are left out".
std::string JudgedFramesText(const analysis::JudgedFrames& judged);
// The "All frames" toggle (Session::judge_all_frames); true when it changed.
bool DrawAllFramesToggle(Session& session);

}  // namespace memframe::viewer
