#include "pe_symbols.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "memframe/regular_file.h"

namespace memframe::analysis {

namespace {

// Little-endian field readers over a byte buffer; out of range reads give 0.
uint32_t U32(const std::string& b, uint64_t at) {
  if (at + 4 > b.size()) return 0;
  uint32_t v;
  memcpy(&v, b.data() + at, 4);
  return v;
}
uint16_t U16(const std::string& b, uint64_t at) {
  if (at + 2 > b.size()) return 0;
  uint16_t v;
  memcpy(&v, b.data() + at, 2);
  return v;
}

bool ReadAt(int fd, uint64_t offset, size_t size, std::string* out) {
  out->assign(size, '\0');
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, out->data() + done, size - done, static_cast<off_t>(offset + done));
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

constexpr size_t kSymbolBytes = 18;
constexpr uint32_t kMaxSymbols = 1u << 24;      // a larger count is damage
constexpr uint32_t kMaxStringTable = 1u << 30;
constexpr int kMaxSections = 96;                // the PE format's own limit
constexpr uint16_t kFunctionType = 0x20;        // DTYPE_FUNCTION << 4
constexpr uint8_t kClassExternal = 2, kClassStatic = 3;

}  // namespace

bool PeSymbols::Load(const std::string& path) {
  std::string why;
  int fd = wire::OpenRegularFile(path, &why);
  if (fd < 0) return false;
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  std::string head;
  if (!ReadAt(fd, 0, 64, &head) || head[0] != 'M' || head[1] != 'Z') return false;
  uint32_t pe = U32(head, 0x3c);
  std::string nt;
  if (!ReadAt(fd, pe, 24, &nt) || U32(nt, 0) != 0x00004550) return false;  // "PE\0\0"
  uint16_t sections = U16(nt, 6);
  uint32_t symbols_at = U32(nt, 12), symbols = U32(nt, 16);
  uint16_t optional_size = U16(nt, 20);
  if (!symbols_at || !symbols || symbols > kMaxSymbols || sections > kMaxSections) return false;
  std::string section_table;
  if (!ReadAt(fd, pe + 24 + optional_size, sections * 40u, &section_table)) return false;
  std::string table, string_size;
  uint64_t table_bytes = uint64_t{symbols} * kSymbolBytes;
  if (!ReadAt(fd, symbols_at, table_bytes, &table) || !ReadAt(fd, symbols_at + table_bytes, 4, &string_size))
    return false;
  uint32_t strings_bytes = U32(string_size, 0);
  std::string strings;
  if (strings_bytes < 4 || strings_bytes > kMaxStringTable ||
      !ReadAt(fd, symbols_at + table_bytes, strings_bytes, &strings))
    return false;

  for (uint32_t i = 0; i < symbols; ++i) {
    uint64_t at = uint64_t{i} * kSymbolBytes;
    uint8_t aux = static_cast<uint8_t>(table[at + 17]);
    int16_t section = static_cast<int16_t>(U16(table, at + 12));
    uint16_t type = U16(table, at + 14);
    uint8_t storage = static_cast<uint8_t>(table[at + 16]);
    i += aux;
    if (type != kFunctionType || section < 1 || section > sections) continue;
    if (storage != kClassExternal && storage != kClassStatic) continue;
    std::string name;
    if (U32(table, at) == 0) {
      uint32_t offset = U32(table, at + 4);
      if (offset >= strings.size()) continue;
      name = strings.c_str() + offset;
    } else {
      name.assign(table.data() + at, strnlen(table.data() + at, 8));
    }
    if (name.empty()) continue;
    uint32_t section_rva = U32(section_table, (section - 1) * 40u + 12);
    entries_.push_back({uint64_t{section_rva} + U32(table, at + 8), static_cast<uint32_t>(names_.size())});
    names_.append(name).push_back('\0');
  }
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.rva < b.rva; });
  return !entries_.empty();
}

const char* PeSymbols::Find(uint64_t rva) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), rva,
                             [](uint64_t value, const Entry& e) { return value < e.rva; });
  if (it == entries_.begin()) return nullptr;
  return names_.c_str() + std::prev(it)->name;
}

bool QualifiesName(std::string_view qualified, std::string_view bare) {
  if (bare.empty()) return false;
  std::string_view name = qualified.substr(0, qualified.find('('));
  if (name.size() < bare.size() || name.substr(name.size() - bare.size()) != bare) return false;
  const size_t start = name.size() - bare.size();
  return start == 0 || (start >= 2 && name.substr(start - 2, 2) == "::");
}

}  // namespace memframe::analysis
