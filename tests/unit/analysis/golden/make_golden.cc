// Writes the synthetic golden captures (golden_captures.h) into DIR:
//
//   memframe_make_golden DIR
//
// agent_game_loop.mfc is not made here: it is a real recording (README.md).
#include <cstdio>
#include <string>

#include "golden_captures.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: memframe_make_golden DIR\n");
    return 2;
  }
  for (const auto& [name, write] : memframe::testing::GoldenCaptures()) {
    std::string path = std::string(argv[1]) + "/" + name + ".mfc";
    if (!write(path)) {
      fprintf(stderr, "memframe_make_golden: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
