#include "capture/fast_unwinder.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dwarf.h>  // elfutils' DW_CFA_* and DW_EH_PE_* names (a header only: nothing linked)

#include <algorithm>
#include <atomic>
#include <cstring>

#include "buffer/page_allocator.h"

// The loader's record of where the main thread's stack began (exported by
// ld.so; libunwind and glibc's own pthread_getattr_np read it too).
extern "C" void* __libc_stack_end;

namespace memframe::agent {

#if defined(__x86_64__)

namespace {

// ---- the rule cache -------------------------------------------------------
//
// 2^16 slots of one 64-bit word each, shared by all threads. A word is
// written and read whole (relaxed atomics), so it is always self-consistent:
//
//   bits  0..30  return address >> 16 (user addresses are below 2^47)
//   bit   31     stored in the partner slot (index ^ 1), not the home slot
//   bits 32..38  generation (bumped when a module is unloaded)
//   bits 39..63  the rule (25 bits, below)
//
// The home slot is (ra ^ ra >> 16) & mask, so (slot, stored bits) give back
// the whole address: a match is exact, never a hash collision. Two ways
// (home and partner) keep two hot addresses with the same index apart.
constexpr int kIndexBits = 16;
constexpr uint64_t kSlots = 1ull << kIndexBits;
constexpr uint64_t kIndexMask = kSlots - 1;
constexpr uint64_t kPartnerBit = 1ull << 31;
constexpr int kGenShift = 32;
constexpr uint64_t kGenMask = 0x7f;
constexpr int kRuleShift = 39;
constexpr uint64_t kTagMask = (1ull << kRuleShift) - 1;

// Rule (25 bits): kind (2), CFA from rbp (1), CFA offset (15), where the
// caller's rbp is (7: 0 = unchanged, k = at CFA - 8k).
enum RuleKind : uint32_t { kEmpty = 0, kStandard = 1, kLastFrame = 2, kUnsupported = 3 };
constexpr uint32_t kCfaRbpBit = 1u << 2;
constexpr int kCfaOffsetShift = 3;
constexpr uint32_t kCfaOffsetMax = (1u << 15) - 1;
constexpr int kRbpShift = 18;
constexpr uint32_t kRbpSlotsMax = (1u << 7) - 1;

constexpr uint32_t MakeStandard(bool cfa_rbp, uint32_t cfa_offset, uint32_t rbp_slots) {
  return kStandard | (cfa_rbp ? kCfaRbpBit : 0) | (cfa_offset << kCfaOffsetShift) | (rbp_slots << kRbpShift);
}
// A function with a frame pointer, after its prologue: CFA = rbp + 16, the
// caller's rbp at CFA - 16. Nearly every frame of code built with frame
// pointers: tested first so the CPU can run ahead on the rbp chain.
constexpr uint32_t kFramePointerRule = MakeStandard(true, 16, 2);

std::atomic<std::atomic<uint64_t>*> g_table{nullptr};
std::atomic<uint32_t> g_generation{1};

// Below this, libunwind takes a return address as the end of the stack.
constexpr uint64_t kMinReturnAddress = 0x4000;
// A sanity bound on how far above our own frame the walk may read, where
// the thread's stack is not known (a fiber's, a signal stack).
constexpr uint64_t kMaxStackSpan = 1ull << 30;

// The calling thread's stack [low, high) once NoteThreadStack looked it up;
// high 0 = not looked up yet, 1 = not known. A walk on this stack never reads
// above high: right unwind rules never lead there, and wrong ones (stale, or
// hand-written assembly's) must not make the game fault.
__thread uint64_t t_stack_low __attribute__((tls_model("initial-exec"))) = 0;
__thread uint64_t t_stack_high __attribute__((tls_model("initial-exec"))) = 0;

// ---- reading .eh_frame ----------------------------------------------------

// A cursor over mapped bytes that fails (sticks at !ok) instead of reading
// past `end`.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  bool Need(uint64_t n) {
    if (!ok || static_cast<uint64_t>(end - p) < n) ok = false;
    return ok;
  }
  template <typename T>
  T Fixed() {
    T v{};
    if (!Need(sizeof(T))) return v;
    memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
  uint64_t Uleb() {
    uint64_t v = 0;
    for (int shift = 0; Need(1); shift += 7) {
      uint8_t b = *p++;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      if (shift > 63) ok = false;
    }
    return 0;
  }
  int64_t Sleb() {
    uint64_t v = 0;
    int shift = 0;
    while (Need(1)) {
      uint8_t b = *p++;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) {
        if (shift < 64 && (b & 0x40)) v |= ~0ull << shift;
        return static_cast<int64_t>(v);
      }
      if (shift > 70) ok = false;
    }
    return 0;
  }
  void Skip(uint64_t n) {
    if (Need(n)) p += n;
  }
};

// A DW_EH_PE encoding byte: the value's format in the low nibble, how it
// applies in bits 4..6, indirect in bit 7.
constexpr uint8_t kPeFormatMask = 0x0f, kPeApplicationMask = 0x70;

// Reads a value in format enc & kPeFormatMask, then applies pcrel / datarel (the
// only applications met in .eh_frame and .eh_frame_hdr). `apply` false:
// the raw value (an FDE's address range).
bool ReadEncoded(Reader& r, uint8_t enc, uintptr_t datarel_base, bool apply, uint64_t* out) {
  if (enc == DW_EH_PE_omit || (enc & kPeApplicationMask) == DW_EH_PE_aligned) return false;  // omitted; aligned (never seen in practice)
  uintptr_t field = reinterpret_cast<uintptr_t>(r.p);
  uint64_t v = 0;
  switch (enc & kPeFormatMask) {
    case DW_EH_PE_absptr: v = r.Fixed<uint64_t>(); break;
    case DW_EH_PE_uleb128: v = r.Uleb(); break;
    case DW_EH_PE_udata2: v = r.Fixed<uint16_t>(); break;
    case DW_EH_PE_udata4: v = r.Fixed<uint32_t>(); break;
    case DW_EH_PE_udata8: v = r.Fixed<uint64_t>(); break;
    case DW_EH_PE_sleb128: v = static_cast<uint64_t>(r.Sleb()); break;
    case DW_EH_PE_sdata2: v = static_cast<uint64_t>(static_cast<int64_t>(r.Fixed<int16_t>())); break;
    case DW_EH_PE_sdata4: v = static_cast<uint64_t>(static_cast<int64_t>(r.Fixed<int32_t>())); break;
    case DW_EH_PE_sdata8: v = r.Fixed<uint64_t>(); break;
    default: return false;
  }
  if (!r.ok) return false;
  if (apply) {
    switch (enc & kPeApplicationMask) {
      case DW_EH_PE_absptr: break;
      case DW_EH_PE_pcrel: v += field; break;
      case DW_EH_PE_datarel:
        if (!datarel_base) return false;
        v += datarel_base;
        break;
      default: return false;
    }
    if (enc & DW_EH_PE_indirect) return false;  // indirect: never used for code addresses here
  }
  *out = v;
  return true;
}

// What the CFI says about one register we follow.
struct RegRule {
  enum Kind : uint8_t { kSame, kUndefined, kAtCfa, kOther } kind = kSame;
  int64_t offset = 0;  // kAtCfa: saved at CFA + offset
};

// The row of the CFI table for one address, reduced to what we follow.
struct Row {
  uint64_t cfa_reg = 7;
  int64_t cfa_offset = 8;
  bool cfa_expression = false;
  RegRule rbp, rsp, ra;
};

constexpr uint64_t kRegRbp = 6, kRegRsp = 7, kRegRa = 16;

RegRule* Tracked(Row& row, uint64_t reg) {
  if (reg == kRegRbp) return &row.rbp;
  if (reg == kRegRsp) return &row.rsp;
  if (reg == kRegRa) return &row.ra;
  return nullptr;
}

// DW_CFA_restore: back to the rule the CIE left.
void Restore(Row& row, const Row& initial, uint64_t reg) {
  if (RegRule* rule = Tracked(row, reg)) *rule = *Tracked(const_cast<Row&>(initial), reg);
}

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = -8;
  uint8_t fde_encoding = DW_EH_PE_absptr;
  bool has_augmentation_data = false;
  const uint8_t* instructions = nullptr;
  const uint8_t* end = nullptr;
};

// Reads the entry length at r; sets `end` to the entry's end. False for the
// terminator or a malformed entry.
bool EntryBounds(Reader& r, const uint8_t** end) {
  uint64_t length = r.Fixed<uint32_t>();
  if (length == 0xffffffffu) length = r.Fixed<uint64_t>();
  if (!r.ok || length == 0 || length > static_cast<uint64_t>(r.end - r.p)) return false;
  *end = r.p + length;
  return true;
}

bool ParseCie(const uint8_t* at, const uint8_t* limit, Cie* cie) {
  Reader r{at, limit};
  const uint8_t* end;
  if (!EntryBounds(r, &end)) return false;
  r.end = end;
  if (r.Fixed<uint32_t>() != 0) return false;  // a CIE's id in .eh_frame is 0
  uint8_t version = r.Fixed<uint8_t>();
  if (!r.ok || (version != 1 && version != 3)) return false;
  const char* aug = reinterpret_cast<const char*>(r.p);
  size_t aug_len = strnlen(aug, static_cast<size_t>(r.end - r.p));
  r.Skip(aug_len + 1);
  if (!r.ok) return false;
  cie->code_align = r.Uleb();
  cie->data_align = r.Sleb();
  uint64_t ra_reg = version == 1 ? r.Fixed<uint8_t>() : r.Uleb();
  if (!r.ok || ra_reg != kRegRa || cie->code_align == 0) return false;
  cie->has_augmentation_data = aug_len > 0 && aug[0] == 'z';
  if (aug_len > 0 && !cie->has_augmentation_data) return false;  // "eh" and other old forms
  if (cie->has_augmentation_data) {
    uint64_t data_len = r.Uleb();
    if (!r.Need(data_len)) return false;
    Reader data{r.p, r.p + data_len};
    for (size_t i = 1; i < aug_len; ++i) {
      switch (aug[i]) {
        case 'R': cie->fde_encoding = data.Fixed<uint8_t>(); break;
        case 'L': data.Fixed<uint8_t>(); break;  // the LSDA's encoding; the FDE's data is skipped whole
        case 'P': {
          uint8_t enc = data.Fixed<uint8_t>();
          uint64_t ignored;
          if (!ReadEncoded(data, enc & ~DW_EH_PE_indirect, 0, false, &ignored)) return false;
          break;
        }
        default: return false;  // 'S' (signal frame), 'B', anything new
      }
      if (!data.ok) return false;
    }
    r.p += data_len;
  }
  cie->instructions = r.p;
  cie->end = r.end;
  return r.ok;
}

// Runs CFA instructions [p, end) while the location stays at or below
// `target`. `initial` is the row after the CIE (for DW_CFA_restore), null
// while running the CIE itself. False: something we do not follow.
bool RunCfa(const uint8_t* p, const uint8_t* end, const Cie& cie, uint64_t* loc, uint64_t target, const Row* initial,
            Row* row) {
  constexpr int kMaxRemembered = 8;
  Row remembered[kMaxRemembered];
  int depth = 0;
  Reader r{p, end};
  while (r.ok && r.p < r.end) {
    uint8_t op = r.Fixed<uint8_t>();
    uint64_t advance = 0;
    uint64_t reg = 0;
    // The three primary opcodes keep their operand in the low 6 bits.
    constexpr uint8_t kPrimaryMask = 0xc0, kOperandMask = 0x3f;
    switch (op & kPrimaryMask) {
      case DW_CFA_advance_loc: advance = op & kOperandMask; break;
      case DW_CFA_offset: {
        reg = op & kOperandMask;
        int64_t off = static_cast<int64_t>(r.Uleb()) * cie.data_align;
        if (RegRule* rule = Tracked(*row, reg)) *rule = {RegRule::kAtCfa, off};
        continue;
      }
      case DW_CFA_restore:
        if (!initial) return false;
        Restore(*row, *initial, op & kOperandMask);
        continue;
      default: break;
    }
    if ((op & kPrimaryMask) == DW_CFA_extended) {
      switch (op) {
        case DW_CFA_nop: continue;
        case DW_CFA_advance_loc1: advance = r.Fixed<uint8_t>(); break;
        case DW_CFA_advance_loc2: advance = r.Fixed<uint16_t>(); break;
        case DW_CFA_advance_loc4: advance = r.Fixed<uint32_t>(); break;
        case DW_CFA_offset_extended: {
          reg = r.Uleb();
          int64_t off = static_cast<int64_t>(r.Uleb()) * cie.data_align;
          if (RegRule* rule = Tracked(*row, reg)) *rule = {RegRule::kAtCfa, off};
          continue;
        }
        case DW_CFA_offset_extended_sf: {
          reg = r.Uleb();
          int64_t off = r.Sleb() * cie.data_align;
          if (RegRule* rule = Tracked(*row, reg)) *rule = {RegRule::kAtCfa, off};
          continue;
        }
        case DW_CFA_GNU_negative_offset_extended: {
          reg = r.Uleb();
          int64_t off = -static_cast<int64_t>(r.Uleb()) * cie.data_align;
          if (RegRule* rule = Tracked(*row, reg)) *rule = {RegRule::kAtCfa, off};
          continue;
        }
        case DW_CFA_restore_extended:
          if (!initial) return false;
          Restore(*row, *initial, r.Uleb());
          continue;
        case DW_CFA_undefined:
          if (RegRule* rule = Tracked(*row, r.Uleb())) *rule = {RegRule::kUndefined, 0};
          continue;
        case DW_CFA_same_value:
          if (RegRule* rule = Tracked(*row, r.Uleb())) *rule = {RegRule::kSame, 0};
          continue;
        case DW_CFA_register:
          reg = r.Uleb();
          r.Uleb();
          if (RegRule* rule = Tracked(*row, reg)) *rule = {RegRule::kOther, 0};
          continue;
        case DW_CFA_val_offset:
        case DW_CFA_val_offset_sf:
          reg = r.Uleb();
          if (op == DW_CFA_val_offset) r.Uleb(); else r.Sleb();
          if (RegRule* rule = Tracked(*row, reg)) *rule = {RegRule::kOther, 0};
          continue;
        case DW_CFA_expression:
        case DW_CFA_val_expression:
          reg = r.Uleb();
          r.Skip(r.Uleb());
          if (RegRule* rule = Tracked(*row, reg)) *rule = {RegRule::kOther, 0};
          continue;
        case DW_CFA_remember_state:  // remember_state (the CFA rule is part of the row, as libgcc and libunwind keep it)
          if (depth == kMaxRemembered) return false;
          remembered[depth++] = *row;
          continue;
        case DW_CFA_restore_state:  // restore_state
          if (depth == 0) return false;
          *row = remembered[--depth];
          continue;
        case DW_CFA_def_cfa:
          row->cfa_reg = r.Uleb();
          row->cfa_offset = static_cast<int64_t>(r.Uleb());
          row->cfa_expression = false;
          continue;
        case DW_CFA_def_cfa_sf:
          row->cfa_reg = r.Uleb();
          row->cfa_offset = r.Sleb() * cie.data_align;
          row->cfa_expression = false;
          continue;
        case DW_CFA_def_cfa_register:
          row->cfa_reg = r.Uleb();
          continue;
        case DW_CFA_def_cfa_offset:
          row->cfa_offset = static_cast<int64_t>(r.Uleb());
          continue;
        case DW_CFA_def_cfa_offset_sf:
          row->cfa_offset = r.Sleb() * cie.data_align;
          continue;
        case DW_CFA_def_cfa_expression:
          r.Skip(r.Uleb());
          row->cfa_expression = true;
          continue;
        case DW_CFA_GNU_args_size:
          r.Uleb();
          continue;
        default:  // set_loc, vendor extensions, anything new
          return false;
      }
    }
    // An advance: stop once the next row starts beyond the target.
    if (!r.ok) return false;
    uint64_t next = *loc + advance * cie.code_align;
    if (next > target) return true;
    *loc = next;
  }
  return r.ok;
}

// The rule for a return address from the row that covers ra - 1.
uint32_t RuleFromRow(const Row& row) {
  if (row.ra.kind == RegRule::kUndefined) return kLastFrame;
  if (row.cfa_expression || (row.cfa_reg != kRegRsp && row.cfa_reg != kRegRbp)) return kUnsupported;
  if (row.ra.kind != RegRule::kAtCfa || row.ra.offset != -8) return kUnsupported;
  if (row.rsp.kind != RegRule::kSame) return kUnsupported;
  if (row.cfa_offset <= 0 || row.cfa_offset > static_cast<int64_t>(kCfaOffsetMax)) return kUnsupported;
  uint32_t rbp_slots = 0;
  if (row.rbp.kind == RegRule::kAtCfa) {
    int64_t off = row.rbp.offset;
    if (off >= 0 || off % 8 != 0 || -off / 8 > static_cast<int64_t>(kRbpSlotsMax)) return kUnsupported;
    rbp_slots = static_cast<uint32_t>(-off / 8);
  } else if (row.rbp.kind != RegRule::kSame) {
    return kUnsupported;
  }
  return MakeStandard(row.cfa_reg == kRegRbp, static_cast<uint32_t>(row.cfa_offset), rbp_slots);
}

// The rule at `pc` (= return address - 1) from a module's .eh_frame_hdr;
// *code_end, if given, is the end of the code its FDE covers (mapped code).
uint32_t RuleFromEhFrameHdr(const uint8_t* hdr, uintptr_t pc, uintptr_t* code_end = nullptr) {
  // .eh_frame_hdr: version, three encodings, then the pointers. Its size is
  // not known here; the table's own count bounds the reads.
  Reader r{hdr, hdr + 4 + 8 + 8};
  uint8_t version = r.Fixed<uint8_t>();
  uint8_t frame_ptr_enc = r.Fixed<uint8_t>();
  uint8_t count_enc = r.Fixed<uint8_t>();
  uint8_t table_enc = r.Fixed<uint8_t>();
  uint64_t eh_frame = 0, count = 0;
  auto base = reinterpret_cast<uintptr_t>(hdr);
  if (!r.ok || version != 1 || !ReadEncoded(r, frame_ptr_enc, base, true, &eh_frame) ||
      !ReadEncoded(r, count_enc, base, true, &count))
    return kUnsupported;
  // The binary search table: (initial location, FDE address) pairs of
  // datarel sdata4, sorted by location. Anything else: let libunwind do it.
  if (table_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4) || count == 0 || count > (1ull << 32)) return kUnsupported;
  struct Entry {
    int32_t loc;
    int32_t fde;
  };
  const auto* table = reinterpret_cast<const Entry*>(r.p);
  // The last entry whose location is <= pc.
  uint64_t lo = 0, hi = count;
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    Entry e;
    memcpy(&e, &table[mid], sizeof e);
    if (base + static_cast<int64_t>(e.loc) <= pc)
      lo = mid;
    else
      hi = mid;
  }
  Entry e;
  memcpy(&e, &table[lo], sizeof e);
  if (base + static_cast<int64_t>(e.loc) > pc) return kUnsupported;
  const auto* fde = reinterpret_cast<const uint8_t*>(base + static_cast<int64_t>(e.fde));

  // The FDE. Its length bounds every read; the CIE is found through it.
  constexpr uint64_t kMaxEntry = 1ull << 30;
  Reader f{fde, fde + 12};
  const uint8_t* fde_end;
  {
    Reader len{fde, fde + kMaxEntry};
    if (!EntryBounds(len, &fde_end)) return kUnsupported;
    f.p = len.p;
    f.end = fde_end;
  }
  const uint8_t* cie_field = f.p;
  uint32_t cie_offset = f.Fixed<uint32_t>();
  if (!f.ok || cie_offset == 0) return kUnsupported;
  Cie cie;
  if (!ParseCie(cie_field - cie_offset, cie_field - cie_offset + kMaxEntry, &cie)) return kUnsupported;
  uint64_t pc_begin = 0, pc_range = 0;
  if (!ReadEncoded(f, cie.fde_encoding, 0, true, &pc_begin) ||
      !ReadEncoded(f, cie.fde_encoding & kPeFormatMask, 0, false, &pc_range))
    return kUnsupported;
  if (pc < pc_begin || pc - pc_begin >= pc_range) return kUnsupported;  // no CFI covers pc
  if (code_end) *code_end = pc_begin + pc_range;
  if (cie.has_augmentation_data) f.Skip(f.Uleb());
  if (!f.ok) return kUnsupported;

  Row row;
  uint64_t loc = pc_begin;
  if (!RunCfa(cie.instructions, cie.end, cie, &loc, pc, nullptr, &row)) return kUnsupported;
  loc = pc_begin;
  Row initial = row;
  if (!RunCfa(f.p, f.end, cie, &loc, pc, &initial, &row)) return kUnsupported;
  return RuleFromRow(row);
}

// x86_64 rt_sigreturn trampoline: mov $15, %rax; syscall.
constexpr uint8_t kSigreturnCode[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

// A return address at a signal trampoline belongs to a signal handler's
// frame: libunwind reads the interrupted registers from the signal frame.
// `readable_end` bounds the bytes known to be mapped after ra.
bool AtSigreturn(uintptr_t ra, uintptr_t readable_end) {
  return ra + sizeof kSigreturnCode <= readable_end &&
         memcmp(reinterpret_cast<const void*>(ra), kSigreturnCode, sizeof kSigreturnCode) == 0;
}

#if defined(DLFO_EH_SEGMENT_TYPE)
// glibc 2.35+: the loader's own lock-free index of objects by address, kept
// by dlopen and dlclose themselves, made for unwinders (libgcc's uses it).
// No lock, no walk over every object as dl_iterate_phdr does: on the first
// frames of a game that compiles shaders (thousands of new return addresses
// in one frame) that walk was a tenth of the agent's time. Reading the
// object's .eh_frame after the call is safe for the reason the manual gives:
// ra is a return address on this thread's stack, so its object cannot be
// unloaded while we look.
uint32_t LookUpRule(uintptr_t ra) {
  uintptr_t pc = ra - 1;
  dl_find_object object;
  if (_dl_find_object(reinterpret_cast<void*>(pc), &object) != 0 || !object.dlfo_eh_frame) return kUnsupported;
  uintptr_t code_end = 0;
  uint32_t rule = RuleFromEhFrameHdr(static_cast<const uint8_t*>(object.dlfo_eh_frame), pc, &code_end);
  if (rule == kUnsupported) return rule;
  // What is surely mapped after ra: the rest of pc's page, and the code
  // pc's FDE covers (the object's range may have unmapped gaps). A
  // trampoline's FDE covers its own bytes (glibc's starts one byte early,
  // for exactly this lookup), so one that does not fit there is not at ra.
  // (Bounding by the page alone declined every return address that starts
  // a page: the tests' call chains found one when the binary grew.)
  uintptr_t readable_end = std::max((pc | 4095) + 1, code_end);
  return AtSigreturn(ra, readable_end) ? kUnsupported : rule;
}
#else
struct Lookup {
  uintptr_t ra;
  uint32_t rule = kUnsupported;
};

int FindRule(dl_phdr_info* info, size_t, void* data) {
  auto* lookup = static_cast<Lookup*>(data);
  uintptr_t pc = lookup->ra - 1;
  const ElfW(Phdr)* text = nullptr;
  const ElfW(Phdr)* eh_frame_hdr = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD) {
      uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
      if (pc >= begin && pc - begin < ph.p_memsz) text = &ph;
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      eh_frame_hdr = &ph;
    }
  }
  if (!text) return 0;  // not this module
  if (!(text->p_flags & PF_X) || !eh_frame_hdr) return 1;
  if (AtSigreturn(lookup->ra, info->dlpi_addr + text->p_vaddr + text->p_memsz)) return 1;
  lookup->rule =
      RuleFromEhFrameHdr(reinterpret_cast<const uint8_t*>(info->dlpi_addr + eh_frame_hdr->p_vaddr), pc);
  return 1;
}

// Older glibc: the module from a walk over the loader's list, under its lock.
uint32_t LookUpRule(uintptr_t ra) {
  Lookup lookup{ra};
  dl_iterate_phdr(FindRule, &lookup);
  return lookup.rule;
}
#endif

inline uint64_t HomeSlot(uint64_t ra) { return (ra ^ (ra >> 16)) & kIndexMask; }
inline uint64_t Tag(uint64_t ra, uint64_t generation) { return (ra >> 16) | (generation << kGenShift); }

// The rule for `ra`, computed from .eh_frame and cached.
__attribute__((noinline)) uint32_t MissRule(std::atomic<uint64_t>* table, uint64_t ra, uint64_t generation) {
  const uint32_t rule = LookUpRule(ra);
  uint64_t home = HomeSlot(ra);
  uint64_t word = Tag(ra, generation) | (static_cast<uint64_t>(rule) << kRuleShift);
  // Home slot if it is free or stale, else the partner slot if it is, else
  // evict the home slot's entry.
  uint64_t current_gen = generation << kGenShift;
  uint64_t at_home = table[home].load(std::memory_order_relaxed);
  if (at_home != 0 && (at_home & (kGenMask << kGenShift)) == current_gen) {
    uint64_t at_partner = table[home ^ 1].load(std::memory_order_relaxed);
    if (at_partner == 0 || (at_partner & (kGenMask << kGenShift)) != current_gen) {
      table[home ^ 1].store(word | kPartnerBit, std::memory_order_relaxed);
      return rule;
    }
  }
  table[home].store(word, std::memory_order_relaxed);
  return rule;
}

inline uint32_t RuleFor(std::atomic<uint64_t>* table, uint64_t ra, uint64_t generation) {
  uint64_t home = HomeSlot(ra);
  uint64_t tag = Tag(ra, generation);
  uint64_t word = table[home].load(std::memory_order_relaxed);
  if (__builtin_expect((word & kTagMask) == tag, 1)) return static_cast<uint32_t>(word >> kRuleShift);
  word = table[home ^ 1].load(std::memory_order_relaxed);
  if ((word & kTagMask) == (tag | kPartnerBit)) return static_cast<uint32_t>(word >> kRuleShift);
  return MissRule(table, ra, generation);
}

inline uint64_t LoadWord(uint64_t address) {
  uint64_t v;
  memcpy(&v, reinterpret_cast<const void*>(address), sizeof v);
  return v;
}

}  // namespace

bool InitFastUnwinder() {
  if (g_table.load(std::memory_order_acquire)) return true;
  auto* fresh = static_cast<std::atomic<uint64_t>*>(MapPages(kSlots * sizeof(uint64_t)));
  if (!fresh) return false;
  std::atomic<uint64_t>* expected = nullptr;
  if (!g_table.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel))
    UnmapPages(fresh, kSlots * sizeof(uint64_t));  // another thread was first
  return true;
}

void InvalidateFastUnwinder() {
  // A new generation first: an entry computed before the unload and stored
  // after it never matches. Then drop the pages (they read back as zeros).
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  if (auto* table = g_table.load(std::memory_order_acquire)) madvise(table, kSlots * sizeof(uint64_t), MADV_DONTNEED);
}

void PrefaultFastUnwinder() {
  if (auto* table = g_table.load(std::memory_order_acquire)) PrefaultPages(table, kSlots * sizeof(uint64_t));
}

namespace {
// Where a traced walk notes what it reads (no-ops when not tracing).
template <bool kTrace>
struct TraceWriter {
  WalkTrace::Read* next = nullptr;
  void Note(uint64_t address, uint64_t value) {
    if constexpr (kTrace) *next++ = {address, value};
  }
};

// Unwinds from the frame that has frame pointer `frame`: its saved rbp at
// frame[0], its return address at frame[1], its caller's rsp just above.
// kTrace: also notes every word the frames depend on (WalkTrace), `trace`
// then being non-null.
template <bool kTrace>
__attribute__((always_inline)) inline int WalkFrom(const uint64_t* fp, void** raw, int size, WalkTrace* trace) {
  std::atomic<uint64_t>* table = g_table.load(std::memory_order_acquire);
  if (__builtin_expect(!table || size <= 0, 0)) return -1;
  uint64_t rip = fp[1];
  uint64_t rsp = reinterpret_cast<uint64_t>(fp) + 16;
  uint64_t rbp = fp[0];
  const bool on_stack = rsp >= t_stack_low && rsp < t_stack_high;
  const uint64_t max_cfa = on_stack ? t_stack_high : rsp + kMaxStackSpan;
  const uint32_t full_generation = g_generation.load(std::memory_order_relaxed);
  const uint64_t generation = full_generation & kGenMask;
  // The cache word a frame-pointer frame's return address has, less the
  // address's own tag bits: one compare finds both the entry and its rule.
  const uint64_t fp_word_base = generation << kGenShift | uint64_t{kFramePointerRule} << kRuleShift;
  TraceWriter<kTrace> notes;
  // Where the current rbp was read (a frame that takes its CFA from rbp
  // depends on that word).
  uint64_t rbp_from = reinterpret_cast<uint64_t>(fp);
  if constexpr (kTrace) {
    trace->frame = 0;
    if (!on_stack || size > WalkTrace::kMaxFrames) return WalkFrom<false>(fp, raw, size, nullptr);
    notes.next = trace->read;
    notes.Note(reinterpret_cast<uint64_t>(fp) + 8, rip);
  }
  if (__builtin_expect(rip >> 47, 0)) return -1;  // the cache's tag holds 47-bit addresses
  int n = 0;
  for (;;) {
    raw[n++] = reinterpret_cast<void*>(rip);
    if (n == size) break;
    const uint64_t home = HomeSlot(rip);
    const uint64_t word = table[home].load(std::memory_order_relaxed);
    uint64_t cfa;
    if (__builtin_expect(word == (fp_word_base | rip >> 16), 1)) {
      // Saved rbp and return address sit just below CFA = rbp + 16.
      if (rbp < rsp || rbp > max_cfa - 16) return -1;
      notes.Note(rbp_from, rbp);
      cfa = rbp + 16;
      rip = LoadWord(cfa - 8);
      rbp = LoadWord(cfa - 16);
      rbp_from = cfa - 16;
    } else {
      const uint32_t rule = RuleFor(table, rip, generation);
      if ((rule & 3) == kStandard) {
        uint64_t base = rsp;
        if (rule & kCfaRbpBit) {
          base = rbp;
          notes.Note(rbp_from, rbp);
        }
        cfa = base + ((rule >> kCfaOffsetShift) & kCfaOffsetMax);
        if (cfa < rsp + 8 || cfa > max_cfa) return -1;
        rip = LoadWord(cfa - 8);
        uint64_t rbp_slots = rule >> kRbpShift;
        if (rbp_slots) {
          uint64_t at = cfa - 8 * rbp_slots;
          if (at < rsp) return -1;
          rbp = LoadWord(at);
          rbp_from = at;
        }
      } else if (rule == kLastFrame) {
        break;
      } else {
        return -1;
      }
    }
    notes.Note(cfa - 8, rip);
    rsp = cfa;
    // libunwind stops without recording below kMinReturnAddress; rare
    // enough to leave to it. At or above 2^47 (which the cache's tag cannot
    // hold) too, though a walk that ends at this frame would not look it up.
    if (__builtin_expect(rip - kMinReturnAddress >= (uint64_t{1} << 47) - kMinReturnAddress, 0)) return -1;
  }
  if constexpr (kTrace) {
    trace->reads = static_cast<int>(notes.next - trace->read);
    trace->return_address = fp[1];
    trace->generation = full_generation;
    trace->size = size;
    trace->frame = reinterpret_cast<uint64_t>(fp);
  }
  return n;
}
}  // namespace

__attribute__((noinline)) int FastBacktrace(void** raw, int size) {
  // Our own frame has a frame pointer (__builtin_frame_address forces one):
  // the caller's registers follow from it exactly.
  return WalkFrom<false>(static_cast<const uint64_t*>(__builtin_frame_address(0)), raw, size, nullptr);
}

int FastBacktraceFrom(const void* frame, void** raw, int size) {
  return WalkFrom<false>(static_cast<const uint64_t*>(frame), raw, size, nullptr);
}

int FastBacktraceFrom(const void* frame, void** raw, int size, WalkTrace* trace) {
  return WalkFrom<true>(static_cast<const uint64_t*>(frame), raw, size, trace);
}

int RepeatedWalk(const WalkTrace* traces, int count, const void* frame, int size) {
  const auto start = reinterpret_cast<uint64_t>(frame);
  // A traced walk read only between its start and the top of the thread's
  // stack. (A thread's buffer, and so its traces, start afresh when a new
  // thread takes it over.)
  if (start < t_stack_low || start >= t_stack_high) return -1;
  const uint64_t return_address = LoadWord(start + 8);
  const uint32_t generation = g_generation.load(std::memory_order_relaxed);
  for (int t = 0; t < count; ++t) {
    const WalkTrace& trace = traces[t];
    if (trace.frame != start || trace.return_address != return_address || trace.size != size ||
        trace.generation != generation)
      continue;
    // In the walk's order, stopping at the first word that differs: each
    // address is then one the walk itself would read now, so this reads
    // nothing a walk would not (the stack below a thread's known top may
    // be another, smaller one than the trace's, such as a fiber's). The
    // loads do not wait on one another as a walk's do.
    const WalkTrace::Read* read = trace.read + 1;
    const WalkTrace::Read* const end = trace.read + trace.reads;
    while (read != end && LoadWord(read->address) == read->value) ++read;
    if (read == end) return t;
  }
  return -1;
}

void NoteThreadStack() {
  if (t_stack_high) return;
  t_stack_high = 1;
  // No pthread_getattr_np: it allocates (its cpuset, and /proc/self/maps
  // through fopen on the main thread) and takes the thread's lock, and this
  // runs inside hooks, where a program's own allocator may be waiting on a
  // lock of its own (a statically linked jemalloc maps its first pages inside
  // its init lock). The bounds come from what is already in memory instead:
  // glibc puts a thread's descriptor (pthread_self) at the top of the
  // thread's stack mapping, above its static TLS, so [rsp, self) is mapped;
  // the main thread's stack ends at the loader's __libc_stack_end (argc, with
  // argv and the environment above it in the same mapping).
  uint64_t rsp = reinterpret_cast<uint64_t>(__builtin_frame_address(0));
  uint64_t high = syscall(SYS_gettid) == syscall(SYS_getpid)
                      ? (reinterpret_cast<uint64_t>(__libc_stack_end) + 4095) & ~uint64_t{4095}
                      : static_cast<uint64_t>(pthread_self());
  // Not this stack (a thread made without glibc, a raw fork's child of a
  // worker thread, a first hook on a fiber): leave it unknown.
  if (high <= rsp || high - rsp > kMaxStackSpan) return;
  t_stack_low = high > kMaxStackSpan ? high - kMaxStackSpan : 0;
  t_stack_high = high;
}

#else  // not x86_64: always libunwind

bool InitFastUnwinder() { return false; }
void InvalidateFastUnwinder() {}
void PrefaultFastUnwinder() {}
int FastBacktrace(void**, int) { return -1; }
int FastBacktraceFrom(const void*, void**, int) { return -1; }
int FastBacktraceFrom(const void*, void**, int, WalkTrace* trace) {
  trace->frame = 0;
  return -1;
}
int RepeatedWalk(const WalkTrace*, int, const void*, int) { return -1; }
void NoteThreadStack() {}

#endif

}  // namespace memframe::agent
