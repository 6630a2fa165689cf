#include "platform/windows/symbols_windows.h"

#include <windows.h>
#include <dbghelp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "capture/stack_table.h"
#include "memframe.pb.h"
#include "memframe/format.h"
#include "platform/windows/analysis_path.h"
#include "writer/socket_sink.h"

namespace memframe::agent {

namespace {

constexpr size_t kMaxNameBytes = 512;  // longer names and paths are cut
constexpr int kSymbolsPerPacket = 64;

struct Symbol {
  uint64_t address;
  std::string function, file;
  uint32_t line;
};
// Written by ResolveStackSymbols, then read by the writer once it stops.
std::vector<Symbol>* g_symbols = nullptr;
std::atomic<bool> g_resolved{false};

// DbgHelp's functions, from the dbghelp.dll loaded now: the agent does not
// import it, so a game that never stops cleanly never loads it.
struct DbgHelp {
  decltype(&SymGetOptions) get_options;
  decltype(&SymSetOptions) set_options;
  decltype(&SymInitializeW) initialize;
  decltype(&SymFromAddrW) from_address;
  decltype(&SymGetLineFromAddrW64) line_from_address;
  decltype(&SymCleanup) cleanup;

  bool Load() {
    HMODULE dll = LoadLibraryW(L"dbghelp.dll");
    if (!dll) return false;
    auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(reinterpret_cast<void*>(GetProcAddress(dll, name)));
      return fn != nullptr;
    };
    return get(get_options, "SymGetOptions") && get(set_options, "SymSetOptions") &&
           get(initialize, "SymInitializeW") && get(from_address, "SymFromAddrW") &&
           get(line_from_address, "SymGetLineFromAddrW64") && get(cleanup, "SymCleanup");
  }
};

std::string Utf8(const wchar_t* wide) {
  char narrow[kMaxNameBytes];
  int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, narrow, sizeof(narrow), nullptr, nullptr);
  return n > 0 ? std::string(narrow) : std::string();
}

// The distinct return addresses of every stack interned so far.
std::vector<uint64_t> StackAddresses() {
  std::vector<uint64_t> addresses;
  uint32_t count = StackCount();
  for (uint32_t id = 1; id < count; ++id) {
    int depth = 0;
    const uint64_t* frames = StackFrames(id, &depth);
    if (!frames || depth <= 0 || depth > static_cast<int>(wire::kMaxStackDepth)) continue;  // not yet published
    addresses.insert(addresses.end(), frames, frames + depth);
  }
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  return addresses;
}

}  // namespace

void ResolveStackSymbols() {
  if (g_resolved.exchange(true)) return;
  DbgHelp dbghelp;
  if (!dbghelp.Load()) return;
  // A handle of our own, not GetCurrentProcess(): DbgHelp keys its sessions
  // by handle, and the game may have one (a crash handler's) on that.
  HANDLE self = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, GetCurrentProcessId());
  if (!self) return;
  DWORD options = dbghelp.get_options();
  dbghelp.set_options(SYMOPT_UNDNAME | SYMOPT_LOAD_LINES | SYMOPT_DEFERRED_LOADS | SYMOPT_FAIL_CRITICAL_ERRORS |
                      SYMOPT_NO_PROMPTS);
  auto* symbols = new std::vector<Symbol>;
  if (dbghelp.initialize(self, nullptr, TRUE)) {
    alignas(SYMBOL_INFOW) char buffer[sizeof(SYMBOL_INFOW) + kMaxNameBytes * sizeof(wchar_t)];
    auto* info = reinterpret_cast<SYMBOL_INFOW*>(buffer);
    for (uint64_t address : StackAddresses()) {
      // The call is the instruction before the return address.
      memset(info, 0, sizeof(SYMBOL_INFOW));
      info->SizeOfStruct = sizeof(SYMBOL_INFOW);
      info->MaxNameLen = kMaxNameBytes;
      DWORD64 displacement = 0;
      if (!dbghelp.from_address(self, address - 1, &displacement, info)) continue;
      Symbol symbol{address, Utf8(info->Name), "", 0};
      IMAGEHLP_LINEW64 line{};
      line.SizeOfStruct = sizeof(line);
      DWORD line_displacement = 0;
      if (dbghelp.line_from_address(self, address - 1, &line_displacement, &line) && line.FileName) {
        char path[kMaxNameBytes];
        AnalysisPath(line.FileName, path, sizeof(path));
        symbol.file = path;
        symbol.line = line.LineNumber;
      }
      symbols->push_back(std::move(symbol));
    }
    dbghelp.cleanup(self);
  }
  dbghelp.set_options(options);
  CloseHandle(self);
  g_symbols = symbols;
}

void EncodeStackSymbols(SocketSink& sink) {
  if (!g_symbols) return;
  const std::vector<Symbol>& symbols = *g_symbols;
  for (size_t first = 0; first < symbols.size(); first += kSymbolsPerPacket) {
    size_t end = std::min(symbols.size(), first + kSymbolsPerPacket);
    wire::ProtoWriter w = sink.BeginPacket(64 + (2 * kMaxNameBytes + 32) * (end - first));
    size_t body = w.BeginNested(wire::Packet::kSymbolsFieldNumber);
    for (size_t i = first; i < end; ++i) {
      using S = wire::SymbolDef;
      size_t def = w.BeginNested(wire::SymbolDefs::kSymbolsFieldNumber);
      w.Varint(S::kAddressFieldNumber, symbols[i].address);
      w.String(S::kFunctionFieldNumber, symbols[i].function.c_str());
      if (!symbols[i].file.empty()) w.String(S::kFileFieldNumber, symbols[i].file.c_str());
      if (symbols[i].line) w.Varint(S::kLineFieldNumber, symbols[i].line);
      w.EndNested(def);
    }
    w.EndNested(body);
    sink.EndPacket(w);
  }
}

}  // namespace memframe::agent
