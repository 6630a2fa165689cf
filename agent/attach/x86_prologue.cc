#include "attach/x86_prologue.h"

#include <sys/uio.h>
#include <unistd.h>

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

bool IsLegacyPrefix(uint8_t b) {
  switch (b) {
    case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x3e: case 0x26: case 0x36: case 0x64:
    case 0x65:
      return true;
    default:
      return false;
  }
}

// ModRM, SIB and displacement at code[at]; returns the bytes they take.
size_t ModRmBytes(const uint8_t* code, size_t at, Instruction* insn) {
  const uint8_t modrm = code[at];
  const uint8_t mod = modrm >> 6, rm = modrm & 7;
  if (mod == 3) return 1;
  size_t n = 1;
  if (rm == 4) {
    const uint8_t sib = code[at + 1];
    ++n;
    if (mod == 0 && (sib & 7) == 5) return n + 4;  // no base: disp32
  } else if (mod == 0 && rm == 5) {
    insn->rip_relative = true;
    insn->displacement_at = at + n;
    return n + 4;
  }
  return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

// Two-byte opcodes (0f xx) with a ModRM and no immediate that compilers put
// in prologues: endbr64 and multi-byte nops, cmov, setcc, movzx/movsx,
// imul, and the SSE moves and arithmetic that save or clear registers.
bool IsPlainTwoByteOpcode(uint8_t op) {
  if ((op >= 0x40 && op <= 0x4f) || (op >= 0x90 && op <= 0x9f)) return true;
  switch (op) {
    case 0x1e: case 0x1f: case 0x10: case 0x11: case 0x28: case 0x29: case 0x2e: case 0x2f: case 0x54: case 0x57:
    case 0x58: case 0x59: case 0x5c: case 0x5e: case 0x6e: case 0x6f: case 0x7e: case 0x7f: case 0xaf: case 0xb6:
    case 0xb7: case 0xbe: case 0xbf: case 0xd6: case 0xef:
      return true;
    default:
      return false;
  }
}

// Length and kind of the instruction at `code` (at least 16 readable bytes).
Instruction Decode(const uint8_t* code) {
  Instruction insn;
  size_t at = 0;
  bool operand16 = false, address32 = false;
  while (at < 4 && IsLegacyPrefix(code[at])) {
    operand16 |= code[at] == 0x66;
    address32 |= code[at] == 0x67;
    ++at;
  }
  bool rex_w = false;
  if ((code[at] & 0xf0) == 0x40) rex_w = (code[at++] & 8) != 0;
  const size_t imm = operand16 && !rex_w ? 2 : 4;  // an immediate sized by the operand
  const uint8_t op = code[at++];
  auto with_modrm = [&](size_t immediate) {
    at += ModRmBytes(code, at, &insn);
    at += immediate;
  };
  auto refuse = [&](const char* why) {
    insn.refusal = why;
    return insn;
  };
  if (op == 0x0f) {
    const uint8_t op2 = code[at++];
    if (op2 >= 0x80 && op2 <= 0x8f) {
      insn.branch = Branch::kConditional32;
      insn.condition = op2 & 0x0f;
      at += 4;
    } else if (IsPlainTwoByteOpcode(op2)) {
      with_modrm(0);
    } else {
      return refuse("an instruction the relocator does not know (0f xx)");
    }
  } else if (op < 0x40 && (op & 7) <= 3) {
    with_modrm(0);  // add, or, adc, sbb, and, sub, xor, cmp with a ModRM
  } else if (op < 0x40 && (op & 7) == 4) {
    at += 1;  // the same on al, imm8
  } else if (op < 0x40 && (op & 7) == 5) {
    at += imm;  // on eax/rax, imm32
  } else if (op >= 0x50 && op <= 0x5f) {
    // push / pop a register
  } else if (op == 0x63 || (op >= 0x84 && op <= 0x8b) || op == 0x8d || op == 0x8f || (op >= 0xd0 && op <= 0xd3) ||
             op == 0xfe) {
    with_modrm(0);  // movsxd, test, xchg, mov, lea, pop r/m, shifts, inc/dec
  } else if (op == 0x68) {
    at += imm;
  } else if (op == 0x6a || op == 0xa8 || (op >= 0xb0 && op <= 0xb7)) {
    at += 1;
  } else if (op == 0x69 || op == 0x81 || op == 0xc7) {
    with_modrm(imm);
  } else if (op == 0x6b || op == 0x80 || op == 0x83 || op == 0xc0 || op == 0xc1 || op == 0xc6) {
    with_modrm(1);
  } else if (op >= 0x70 && op <= 0x7f) {
    insn.branch = Branch::kConditional8;
    insn.condition = op & 0x0f;
    at += 1;
  } else if ((op >= 0x90 && op <= 0x99) || op == 0xc9) {
    // nop / xchg with eax, cwde / cdq, leave
  } else if (op == 0xa9) {
    at += imm;
  } else if (op >= 0xb8 && op <= 0xbf) {
    at += rex_w ? 8 : imm;
  } else if (op == 0xc3) {
    insn.ends_flow = true;
  } else if (op == 0xc2) {
    at += 2;
    insn.ends_flow = true;
  } else if (op == 0xe9) {
    insn.branch = Branch::kJump32;
    insn.ends_flow = true;
    at += 4;
  } else if (op == 0xeb) {
    insn.branch = Branch::kJump8;
    insn.ends_flow = true;
    at += 1;
  } else if (op == 0xf6 || op == 0xf7) {
    const uint8_t reg = (code[at] >> 3) & 7;  // /0 and /1 are test with an immediate
    with_modrm(reg < 2 ? (op == 0xf6 ? 1 : imm) : 0);
  } else if (op == 0xff) {
    const uint8_t reg = (code[at] >> 3) & 7;
    if (reg == 2 || reg == 3) return refuse("a call (a thread inside the callee would return into the patch)");
    if (reg == 5 || reg == 7) return refuse("an instruction the relocator does not know (ff /5)");
    insn.ends_flow = reg == 4;  // jmp r/m
    with_modrm(0);
  } else if (op == 0xe8) {
    return refuse("a call (a thread inside the callee would return into the patch)");
  } else if (op == 0xcc) {
    return refuse("a breakpoint (a debugger's int3)");
  } else {
    return refuse("an instruction the relocator does not know");
  }
  if (address32 && insn.rip_relative) return refuse("a 32-bit RIP-relative operand");
  if (at > 15) return refuse("an instruction longer than 15 bytes");
  insn.length = at;
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
  while (taken < min_bytes) {
    if (ended) return Refuse(moved, "the function ends within the bytes the patch overwrites");
    const Instruction insn = Decode(entry + taken);
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
