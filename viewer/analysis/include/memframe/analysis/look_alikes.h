// Rows of a call-site table whose user frames have the same function and
// location print as the same line: a stripped game draws from several places
// through one function, a library without line information allocates from
// two calls inside one function. These names tell such rows apart. The
// reports and the viewer's tables use the same rule.
#pragma once

#include <string>
#include <vector>

#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

struct LookAlikeName {
  // The row's location: "file:line" of the user frame; "module+0xoffset"
  // when the line is unknown and only the place within the function tells
  // the row apart; "" when unknown.
  std::string location;
  // The callers outward up to the one where the row parts from every
  // look-alike ("A <- B", "... <- ..." past three), each with its place
  // ("B (file:line)") where a look-alike has a frame of the same name
  // elsewhere; "" when the row has no look-alike.
  std::string via;
};

// One name per row; `stacks` are the rows' symbolized stacks (innermost
// first, inlined frames expanded, as Symbolizer::SymbolizeStack gives them),
// null or empty for a row without a stack.
std::vector<LookAlikeName> NameLookAlikes(const std::vector<const std::vector<SourceFrame>*>& stacks);

// `text` in at most `max_chars` (>= 4), cut from the left behind "...": a
// location or a via ends with what tells ("...game.cpp:139", never
// "game.cpp:13"). The one cutting rule of the CLI and the viewer.
std::string CutFromLeft(const std::string& text, size_t max_chars);

// `via` in at most `max_chars` (>= 16), shortened from the front: the last
// caller named is where the rows part, and its place ends it, so the end
// stays (whole, when it fits).
std::string ShortenVia(const std::string& via, size_t max_chars);

}  // namespace memframe::analysis
