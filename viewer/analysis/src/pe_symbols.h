// Function names of a Windows module (PE file) from its COFF symbol table,
// for captures of the Windows agent (agent/platform/windows/): libdw reads
// only ELF. MinGW builds keep this table unless stripped; MSVC builds keep
// their names in a PDB instead, which this does not read, so their frames
// stay "module+0xRVA".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memframe::analysis {

class PeSymbols {
 public:
  // Reads the table of the PE file at `path`; false when it is no PE file
  // or has no symbols (then Find finds nothing).
  bool Load(const std::string& path);

  // The (mangled) name of the function holding `rva` (an address relative
  // to the image base), or null.
  const char* Find(uint64_t rva) const;

 private:
  struct Entry {
    uint64_t rva;
    uint32_t name;  // offset into names_
  };
  std::vector<Entry> entries_;
  std::string names_;
};

// Whether `qualified`, a demangled COFF name ("ns::Game::Spawn(int)"), is
// the function DWARF (and so DbgHelp) calls `bare` ("Spawn", "Game::Spawn"):
// its name before the parameters is `bare`, or ends with "::" + `bare`.
bool QualifiesName(std::string_view qualified, std::string_view bare);

}  // namespace memframe::analysis
