#include "attach/x86_prologue.h"

#include <sys/uio.h>
#include <unistd.h>

#include <Zydis/Decoder.h>

#include <cstring>

namespace memframe::agent {

namespace {

enum class Branch { kNone, kConditional8, kConditional32, kJump8, kJump32 };

struct Instruction {
  size_t length = 0;
  Branch branch = Branch::kNone;
  uint8_t condition = 0;        // the jcc's condition code
  bool rip_relative = false;
  size_t displacement_at = 0;   // offset of the RIP-relative disp32
  bool ends_flow = false;       // ret, jmp: what follows is not on this path
  const char* refusal = nullptr;
};

int32_t Read32(const uint8_t* p) {
  int32_t value;
  memcpy(&value, p, sizeof(value));
  return value;
}

constexpr const char* kCallRefusal = "a call (a thread inside the callee would return into the patch)";

// What the relocator needs of a relative branch Zydis decoded: jmp and jcc
// with an 8- or 32-bit offset as their last bytes (a branch hint or bnd
// prefix is dropped by the rewrite, harmlessly); any other (loop, jrcxz,
// xbegin, a 16-bit offset) is refused.
Instruction RelativeBranch(const ZydisDecodedInstruction& decoded, Instruction insn) {
  const auto& offset = decoded.raw.imm[0];
  const bool short_form = offset.size == 8;
  if (!offset.is_relative || (offset.size != 8 && offset.size != 32) ||
      offset.offset + offset.size / 8 != decoded.length) {
    insn.refusal = "a relative branch the relocator cannot move";
    return insn;
  }
  if (decoded.mnemonic == ZYDIS_MNEMONIC_JMP) {
    insn.branch = short_form ? Branch::kJump8 : Branch::kJump32;
    insn.ends_flow = true;
    return insn;
  }
  const bool jcc8 = decoded.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && (decoded.opcode & 0xf0) == 0x70;
  const bool jcc32 = decoded.opcode_map == ZYDIS_OPCODE_MAP_0F && (decoded.opcode & 0xf0) == 0x80;
  if (decoded.meta.category == ZYDIS_CATEGORY_COND_BR && (jcc8 || jcc32)) {
    insn.branch = jcc8 ? Branch::kConditional8 : Branch::kConditional32;
    insn.condition = decoded.opcode & 0x0f;
    return insn;
  }
  insn.refusal = "a relative branch the relocator cannot move (loop, jrcxz, xbegin)";
  return insn;
}

// Length and kind of the instruction at `code` (at least 16 readable bytes),
// decoded by Zydis (allocation-free, no locks); memframe's policy on top:
// what is position-dependent is understood or refused, and instructions
// that have no business in a function's first bytes are refused.
Instruction Decode(const ZydisDecoder& decoder, const uint8_t* code) {
  Instruction insn;
  ZydisDecodedInstruction decoded;
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&decoder, nullptr, code, 16, &decoded))) {
    insn.refusal = "bytes that are no valid instruction";
    return insn;
  }
  insn.length = decoded.length;
  switch (decoded.meta.category) {
    case ZYDIS_CATEGORY_CALL:
      insn.refusal = kCallRefusal;
      return insn;
    case ZYDIS_CATEGORY_INTERRUPT:
      insn.refusal = decoded.mnemonic == ZYDIS_MNEMONIC_INT3 ? "a breakpoint (a debugger's int3)"
                                                              : "an instruction the relocator does not move (int)";
      return insn;
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_SYSTEM:
      insn.refusal = "an instruction the relocator does not move (a system call or a system instruction)";
      return insn;
    case ZYDIS_CATEGORY_RET:
      insn.ends_flow = true;
      return insn;
    case ZYDIS_CATEGORY_UNCOND_BR:
      insn.ends_flow = true;  // jmp r/m here; a relative jmp below
      break;
    default:
      break;
  }
  if (decoded.raw.imm[0].is_relative || decoded.raw.imm[1].is_relative) return RelativeBranch(decoded, insn);
  const bool has_modrm = (decoded.attributes & ZYDIS_ATTRIB_HAS_MODRM) != 0;
  if (has_modrm && decoded.raw.modrm.mod == 0 && decoded.raw.modrm.rm == 5) {
    if (decoded.address_width != 64) {
      insn.refusal = "a 32-bit RIP-relative operand";
      return insn;
    }
    if (decoded.raw.disp.size != 32) {
      insn.refusal = "a RIP-relative operand the relocator does not know";
      return insn;
    }
    insn.rip_relative = true;
    insn.displacement_at = decoded.raw.disp.offset;
    return insn;
  }
  if (decoded.attributes & ZYDIS_ATTRIB_IS_RELATIVE) insn.refusal = "a relative operand the relocator does not know";
  return insn;
}

bool Fits32(int64_t value) { return value >= INT32_MIN && value <= INT32_MAX; }

bool Refuse(MovedPrologue* moved, const char* why) {
  moved->refusal = why;
  return false;
}

bool ReadMemory(uintptr_t address, void* out, size_t size) {
  iovec local{out, size}, remote{reinterpret_cast<void*>(address), size};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

}  // namespace

void WriteAbsoluteJump(uint8_t* out, uintptr_t target) {
  const uint8_t jump[6] = {0xff, 0x25, 0, 0, 0, 0};  // jmp *0(%rip): the address follows
  memcpy(out, jump, sizeof(jump));
  memcpy(out + sizeof(jump), &target, sizeof(target));
}

bool RelocatePrologue(const uint8_t* entry, size_t min_bytes, uint8_t* out, size_t capacity, MovedPrologue* moved) {
  *moved = MovedPrologue{};
  const auto from = reinterpret_cast<uintptr_t>(entry);
  // Branch targets seen, checked against the final extent of what was taken.
  uintptr_t targets[16];
  size_t target_count = 0;
  bool ended = false;
  size_t taken = 0, written = 0;
  ZydisDecoder decoder;
  if (!ZYAN_SUCCESS(ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
    return Refuse(moved, "the disassembler could not start");
  while (taken < min_bytes) {
    if (ended) return Refuse(moved, "the function ends within the bytes the patch overwrites");
    const Instruction insn = Decode(decoder, entry + taken);
    if (insn.refusal) return Refuse(moved, insn.refusal);
    const uintptr_t next = from + taken + insn.length;
    uint8_t* to = out + written;
    const auto to_address = reinterpret_cast<uintptr_t>(to);
    if (written + insn.length + kAbsoluteJumpBytes + 6 > capacity)
      return Refuse(moved, "the moved prologue is too long");
    if (insn.branch != Branch::kNone) {
      const bool short_form = insn.branch == Branch::kConditional8 || insn.branch == Branch::kJump8;
      const int64_t offset = short_form ? static_cast<int8_t>(entry[taken + insn.length - 1])
                                        : Read32(entry + taken + insn.length - 4);
      const uintptr_t target = next + offset;
      if (target_count == sizeof(targets) / sizeof(targets[0])) return Refuse(moved, "too many branches");
      targets[target_count++] = target;
      if (insn.branch == Branch::kJump8 || insn.branch == Branch::kJump32) {
        WriteAbsoluteJump(to, target);
        written += kAbsoluteJumpBytes;
      } else {
        const int64_t rel = static_cast<int64_t>(target - (to_address + 6));
        if (!Fits32(rel)) return Refuse(moved, "a branch that cannot reach its target from the moved prologue");
        const int32_t rel32 = static_cast<int32_t>(rel);
        to[0] = 0x0f;
        to[1] = static_cast<uint8_t>(0x80 | insn.condition);
        memcpy(to + 2, &rel32, sizeof(rel32));
        written += 6;
      }
    } else {
      memcpy(to, entry + taken, insn.length);
      if (insn.rip_relative) {
        const uintptr_t target = next + Read32(entry + taken + insn.displacement_at);
        const int64_t rel = static_cast<int64_t>(target - (to_address + insn.length));
        if (!Fits32(rel)) return Refuse(moved, "a RIP-relative operand out of reach of the moved prologue");
        const int32_t rel32 = static_cast<int32_t>(rel);
        memcpy(to + insn.displacement_at, &rel32, sizeof(rel32));
      }
      written += insn.length;
    }
    taken += insn.length;
    ended = insn.ends_flow;
  }
  for (size_t i = 0; i < target_count; ++i)
    if (targets[i] >= from && targets[i] < from + taken)
      return Refuse(moved, "a branch back into the bytes the patch overwrites");
  if (!ended) {
    WriteAbsoluteJump(out + written, from + taken);
    written += kAbsoluteJumpBytes;
  }
  moved->taken = taken;
  moved->written = written;
  return true;
}

uintptr_t FollowForwarders(uintptr_t entry) {
  for (int hop = 0; hop < 4; ++hop) {
    uint8_t code[16];
    if (!ReadMemory(entry, code, sizeof(code))) return entry;
    const bool endbr = code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa;
    const uint8_t* p = code + (endbr ? 4 : 0);
    const uintptr_t pc = entry + (endbr ? 4 : 0);
    uintptr_t next = 0;
    if (p[0] == 0xe9) {
      next = pc + 5 + Read32(p + 1);
    } else if (p[0] == 0xeb) {
      next = pc + 2 + static_cast<int8_t>(p[1]);
    } else if (p[0] == 0xff && p[1] == 0x25) {
      if (!ReadMemory(pc + 6 + Read32(p + 2), &next, sizeof(next))) return entry;
    } else if (p[0] == 0x48 && p[1] == 0x8b && p[2] == 0x05 && p[7] == 0xff && (p[8] == 0xa0 || p[8] == 0x60)) {
      uintptr_t table = 0;
      if (!ReadMemory(pc + 7 + Read32(p + 3), &table, sizeof(table)) || !table) return entry;
      const int64_t slot = p[8] == 0xa0 ? Read32(p + 9) : static_cast<int8_t>(p[9]);
      if (!ReadMemory(table + slot, &next, sizeof(next))) return entry;
    } else {
      return entry;
    }
    if (!next) return entry;
    entry = next;
  }
  return entry;
}

}  // namespace memframe::agent
