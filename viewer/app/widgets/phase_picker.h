// The line above Hidden and Lifetimes that says what they judge and picks
// it (judged_scope.h): a combo of the steady phases, titled as the reports
// title them (PhaseTitle), and the whole capture at once; a range picked on
// the timeline shows there too. Picking a phase is what its timeline button
// does (Selection::SelectPhase), so every tab follows it. Then the "All
// frames" toggle.
#pragma once

#include "judged_scope.h"
#include "selection.h"
#include "session.h"

namespace memframe::viewer {

// True when the pick or the toggle changed (the caller computes its rows again).
bool DrawPhasePicker(Session& session, Selection& selection, const JudgedScope& scope);

}  // namespace memframe::viewer
