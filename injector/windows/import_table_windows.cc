#include "import_table_windows.h"

#include <winternl.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace memframe::windows {

namespace {

bool Read(HANDLE process, uintptr_t address, void* out, size_t size) {
  SIZE_T done = 0;
  return ReadProcessMemory(process, reinterpret_cast<void*>(address), out, size, &done) && done == size;
}

bool Write(HANDLE process, uintptr_t address, const void* bytes, size_t size) {
  SIZE_T done = 0;
  return WriteProcessMemory(process, reinterpret_cast<void*>(address), bytes, size, &done) && done == size;
}

// The executable's base address, from the process's PEB (mapped, with its
// headers, before its first thread runs).
uintptr_t ImageBase(HANDLE process) {
  using Query = NTSTATUS(NTAPI*)(HANDLE, PROCESSINFOCLASS, PVOID, ULONG, PULONG);
  auto query = reinterpret_cast<Query>(
      reinterpret_cast<void*>(GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "NtQueryInformationProcess")));
  PROCESS_BASIC_INFORMATION info{};
  ULONG size = 0;
  if (!query || query(process, ProcessBasicInformation, &info, sizeof(info), &size) != 0) return 0;
  uintptr_t base = 0;
  constexpr size_t kImageBaseInPeb = 0x10;  // PEB.ImageBaseAddress, x64
  return Read(process, reinterpret_cast<uintptr_t>(info.PebBaseAddress) + kImageBaseInPeb, &base, sizeof(base))
             ? base
             : 0;
}

// `size` bytes of read-write memory in `process` above `low`, within the
// 32-bit reach of an RVA from `base`; 0 when there is none.
uintptr_t AllocateAbove(HANDLE process, uintptr_t base, uintptr_t low, size_t size) {
  constexpr uintptr_t kGranularity = 0x10000;
  uintptr_t address = (low + kGranularity - 1) & ~(kGranularity - 1);
  MEMORY_BASIC_INFORMATION info;
  while (address + size - base < 0x7fffffffu &&
         VirtualQueryEx(process, reinterpret_cast<void*>(address), &info, sizeof(info)) == sizeof(info)) {
    const uintptr_t end = reinterpret_cast<uintptr_t>(info.BaseAddress) + info.RegionSize;
    if (info.State == MEM_FREE && end - address >= size) {
      void* got = VirtualAllocEx(process, reinterpret_cast<void*>(address), size, MEM_RESERVE | MEM_COMMIT,
                                 PAGE_READWRITE);
      if (got) return reinterpret_cast<uintptr_t>(got);
    }
    address = (end + kGranularity - 1) & ~(kGranularity - 1);
  }
  return 0;
}

// The path as the loader reads an import's name: 8-bit. A path outside
// ASCII is given by its short (8.3) form, which is.
std::string NarrowPath(const std::wstring& path) {
  std::wstring use = path;
  for (wchar_t c : path) {
    if (c < 0x80) continue;
    wchar_t short_path[MAX_PATH];
    DWORD n = GetShortPathNameW(path.c_str(), short_path, MAX_PATH);
    use = n && n < MAX_PATH ? std::wstring(short_path, n) : L"";
    break;
  }
  std::string narrow;
  for (wchar_t c : use) {
    if (c >= 0x80) return "";
    narrow += static_cast<char>(c);
  }
  return narrow;
}

}  // namespace

bool ImportAgentFirst(HANDLE process, const std::wstring& agent, const char* function, std::wstring* error) {
  const std::string name = NarrowPath(agent);
  if (name.empty()) {
    *error = L"the agent's path " + agent + L" has no ASCII form the loader can read";
    return false;
  }
  const uintptr_t base = ImageBase(process);
  IMAGE_DOS_HEADER dos{};
  IMAGE_NT_HEADERS64 nt{};
  if (!base || !Read(process, base, &dos, sizeof(dos)) || dos.e_magic != IMAGE_DOS_SIGNATURE ||
      !Read(process, base + dos.e_lfanew, &nt, sizeof(nt)) || nt.Signature != IMAGE_NT_SIGNATURE ||
      nt.OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC) {
    *error = L"cannot read the new process's executable image (error " + std::to_wstring(GetLastError()) + L")";
    return false;
  }
  IMAGE_DATA_DIRECTORY& imports = nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT];
  std::vector<IMAGE_IMPORT_DESCRIPTOR> descriptors(1);  // the agent's, first
  for (uintptr_t at = imports.VirtualAddress ? base + imports.VirtualAddress : 0; at;
       at += sizeof(IMAGE_IMPORT_DESCRIPTOR)) {
    IMAGE_IMPORT_DESCRIPTOR d{};
    if (!Read(process, at, &d, sizeof(d))) {
      *error = L"cannot read the new process's import table";
      return false;
    }
    if (!d.Name) break;
    descriptors.push_back(d);
  }
  descriptors.push_back(IMAGE_IMPORT_DESCRIPTOR{});

  // The block: descriptors, the agent's lookup and address tables (one
  // import by name each, then 0), the import's hint and name, the DLL name.
  const size_t table_bytes = descriptors.size() * sizeof(IMAGE_IMPORT_DESCRIPTOR);
  const size_t lookup = table_bytes, iat = lookup + 2 * sizeof(uint64_t), by_name = iat + 2 * sizeof(uint64_t);
  const size_t dll_name = (by_name + sizeof(WORD) + strlen(function) + 1 + 7) & ~size_t{7};
  std::vector<uint8_t> block(dll_name + name.size() + 1, 0);
  const uintptr_t end_of_image = base + nt.OptionalHeader.SizeOfImage;
  const uintptr_t remote = AllocateAbove(process, base, end_of_image, block.size());
  if (!remote) {
    *error = L"no room for an import table within reach of the new process's image";
    return false;
  }
  const auto rva = [&](size_t offset) { return static_cast<DWORD>(remote + offset - base); };
  IMAGE_IMPORT_DESCRIPTOR& own = descriptors[0];
  own.OriginalFirstThunk = rva(lookup);
  own.FirstThunk = rva(iat);
  own.Name = rva(dll_name);
  memcpy(block.data(), descriptors.data(), table_bytes);
  const uint64_t thunk = rva(by_name);
  memcpy(block.data() + lookup, &thunk, sizeof(thunk));
  memcpy(block.data() + iat, &thunk, sizeof(thunk));
  memcpy(block.data() + by_name + sizeof(WORD), function, strlen(function));
  memcpy(block.data() + dll_name, name.c_str(), name.size());
  if (!Write(process, remote, block.data(), block.size())) {
    *error = L"cannot write the new import table (error " + std::to_wstring(GetLastError()) + L")";
    return false;
  }

  // The headers point at it. A bound import directory would name the old
  // table's DLLs with their timestamps: the loader is told to resolve afresh.
  imports.VirtualAddress = rva(0);
  imports.Size = static_cast<DWORD>(table_bytes);
  nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_BOUND_IMPORT] = IMAGE_DATA_DIRECTORY{};
  const uintptr_t header = base + dos.e_lfanew;
  DWORD old = 0;
  if (!VirtualProtectEx(process, reinterpret_cast<void*>(header), sizeof(nt), PAGE_READWRITE, &old) ||
      !Write(process, header, &nt, sizeof(nt))) {
    *error = L"cannot write the new process's image headers (error " + std::to_wstring(GetLastError()) + L")";
    return false;
  }
  VirtualProtectEx(process, reinterpret_cast<void*>(header), sizeof(nt), old, &old);
  return true;
}

}  // namespace memframe::windows
