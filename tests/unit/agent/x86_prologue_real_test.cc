// The prologue relocator on every function entry of real binaries: libc,
// libstdc++, Mesa's GLX, SDL2 and two games from Debian's packages. The
// entries come from each file's .eh_frame (readelf: stripped binaries keep
// it), the bytes and the instruction boundaries from binutils' objdump, an
// independent decoder. Every prologue the relocator moves must end on an
// instruction boundary objdump agrees with, and every one it refuses must be
// refused by policy (calls, functions shorter than the patch, branches
// back, system instructions among the first 14 bytes), never because an
// instruction was not understood. Measured on Debian 12: libc 2838 moved of
// 3670, libstdc++ 3576/4864, Mesa's GLX 974/1158, SDL2 2379/4692 (its many
// tiny wrappers call or return at once), Neverball 508/836, chromium-bsu
// 251/416.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attach/x86_prologue.h"

namespace memframe::agent {
namespace {

struct Listing {
  std::map<uint64_t, uint8_t> bytes;  // address -> byte, from objdump's raw bytes
  std::set<uint64_t> starts;          // addresses where objdump decoded an instruction
};

std::string ShellOutput(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[1 << 16];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

// objdump -d's lines "  addr:\tbb bb bb \tmnemonic ..."; a line with bytes
// and no mnemonic continues the instruction above.
Listing Disassemble(const std::string& file) {
  Listing listing;
  const std::string text = ShellOutput("objdump -d -w --section=.text '" + file + "' 2>/dev/null");
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const size_t colon = line.find(":\t");
    if (colon == std::string::npos || line.empty() || line[0] != ' ') continue;
    char* parsed_end = nullptr;
    const uint64_t address = strtoull(line.c_str(), &parsed_end, 16);
    if (parsed_end != line.c_str() + colon) continue;
    const size_t bytes_end = line.find('\t', colon + 2);
    const std::string hex = line.substr(colon + 2, bytes_end == std::string::npos ? std::string::npos
                                                                                 : bytes_end - colon - 2);
    const bool has_mnemonic = bytes_end != std::string::npos && bytes_end + 1 < line.size();
    if (has_mnemonic && line.find("(bad)", bytes_end) == std::string::npos) listing.starts.insert(address);
    uint64_t offset = 0;
    for (size_t i = 0; i + 1 < hex.size(); i += 3) listing.bytes[address + offset++] = strtoul(hex.substr(i, 2).c_str(), nullptr, 16);
  }
  return listing;
}

// The start of every FDE of the file's .eh_frame: its functions' entries.
std::vector<uint64_t> FunctionEntries(const std::string& file) {
  std::vector<uint64_t> entries;
  const std::string text = ShellOutput("readelf --debug-dump=frames '" + file + "' 2>/dev/null");
  for (size_t at = text.find("pc="); at != std::string::npos; at = text.find("pc=", at + 3))
    entries.push_back(strtoull(text.c_str() + at + 3, nullptr, 16));
  return entries;
}

const std::set<std::string> kPolicyRefusals = {
    "a call (a thread inside the callee would return into the patch)",
    "the function ends within the bytes the patch overwrites",
    "a branch back into the bytes the patch overwrites",
    "an instruction the relocator does not move (a system call or a system instruction)",
};

struct Tally {
  int moved = 0, refused = 0, skipped = 0;
  std::map<std::string, int> refusals;
};

Tally RelocateEveryEntry(const std::string& file) {
  const Listing listing = Disassemble(file);
  Tally tally;
  static uint8_t area[4096];
  for (uint64_t entry : FunctionEntries(file)) {
    // 32 bytes the listing has, in the decoded part of .text.
    if (!listing.starts.count(entry)) {
      ++tally.skipped;
      continue;
    }
    memset(area, 0xcc, sizeof(area));
    bool whole = true;
    for (uint64_t i = 0; i < 32 && whole; ++i) {
      auto it = listing.bytes.find(entry + i);
      if (it == listing.bytes.end()) whole = false;
      else area[i] = it->second;
    }
    if (!whole) {
      ++tally.skipped;
      continue;
    }
    MovedPrologue moved;
    if (!RelocatePrologue(area, 14, area + 2048, 1024, &moved)) {
      ++tally.refused;
      ++tally.refusals[moved.refusal];
      continue;
    }
    ++tally.moved;
    EXPECT_GE(moved.taken, 14u) << file << " entry 0x" << std::hex << entry;
    EXPECT_TRUE(listing.starts.count(entry + moved.taken))
        << file << ": the prologue at 0x" << std::hex << entry << " taken " << std::dec << moved.taken
        << " bytes, which objdump does not end an instruction at";
  }
  return tally;
}

TEST(X86PrologueRealBinaries, EveryMovedPrologueEndsWhereObjdumpEndsAnInstruction) {
  if (ShellOutput("command -v objdump readelf").empty()) GTEST_SKIP() << "binutils not installed";
  const char* files[] = {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                         "/usr/lib/x86_64-linux-gnu/libGLX_mesa.so.0", "/usr/lib/x86_64-linux-gnu/libSDL2-2.0.so.0",
                         "/usr/games/neverball", "/usr/games/chromium-bsu"};
  int checked = 0;
  for (const char* file : files) {
    if (!std::filesystem::exists(file)) continue;
    ++checked;
    const Tally tally = RelocateEveryEntry(file);
    std::string why;
    for (const auto& [refusal, count] : tally.refusals) why += "\n  " + std::to_string(count) + " x " + refusal;
    const int tried = tally.moved + tally.refused;
    std::printf("%s: %d moved, %d refused, %d entries outside the listing%s\n", file, tally.moved, tally.refused,
                tally.skipped, why.c_str());
    ASSERT_GT(tried, 100) << file << ": too few entries found; readelf or objdump output not understood";
    // Every refusal is the relocator's policy (a call, a function shorter
    // than the patch, a branch back into it, a system instruction: libc's
    // syscall wrappers), never an instruction it could not decode or move.
    for (const auto& [refusal, count] : tally.refusals)
      EXPECT_TRUE(kPolicyRefusals.count(refusal)) << file << ": " << count << " x " << refusal;
    EXPECT_GT(tally.moved * 10, tried * 4) << file << why;
  }
  // libc and libstdc++ are on every machine that builds memframe.
  EXPECT_GE(checked, 2);
}

}  // namespace
}  // namespace memframe::agent
