#include "attach/injection_stub.h"

#include <dlfcn.h>
#include <sys/syscall.h>

#include <cstring>

namespace memframe::injector {

namespace {

constexpr uint64_t kBlock = 0x340;    // the registers the stub restores, in pop order, then rip
constexpr uint64_t kStrings = 0x400;
constexpr uint64_t kPage = 4096;

uint64_t Align(uint64_t value, uint64_t to) { return (value + to - 1) & ~(to - 1); }

// The offsets of the strings and of the XSAVE area.
struct Layout {
  uint64_t agent, config, name, xstate, size;
};

Layout LayOut(const StubCalls& calls, const ThreadState& state) {
  Layout l{};
  l.agent = kStrings;
  l.config = Align(l.agent + calls.agent.size() + 1, 8);
  l.name = Align(l.config + calls.config.size() + 1, 8);
  l.xstate = Align(l.name + sizeof("memframe_attach"), 64);  // XRSTOR wants 64-byte alignment
  l.size = Align(l.xstate + state.xstate.size(), kPage);
  return l;
}

class Emitter {
 public:
  explicit Emitter(std::vector<uint8_t>* out) : out_(out) {}
  void Bytes(std::initializer_list<uint8_t> bytes) { out_->insert(out_->end(), bytes); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  size_t at() const { return out_->size(); }
  // A rel32 jump/branch's displacement slot, patched by Land.
  size_t Rel32() {
    size_t slot = at();
    U32(0);
    return slot;
  }
  void Land(size_t slot) {
    int32_t rel = static_cast<int32_t>(at() - (slot + 4));
    memcpy(out_->data() + slot, &rel, 4);
  }

 private:
  void Raw(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    out_->insert(out_->end(), b, b + n);
  }
  std::vector<uint8_t>* out_;
};

}  // namespace

uint64_t InjectionStubSize(const StubCalls& calls, const ThreadState& state) { return LayOut(calls, state).size; }

InjectionStub BuildInjectionStub(uint64_t base, const StubCalls& calls, const ThreadState& state,
                                 const user_regs_struct& resume) {
  const Layout l = LayOut(calls, state);
  std::vector<uint8_t> code;
  Emitter e(&code);
  auto store_rax = [&](uint64_t offset) { e.Bytes({0x48, 0xa3}), e.U64(base + offset); };  // movabs %rax, (addr)
  auto call = [&](uint64_t fn) { e.Bytes({0x48, 0xb8}), e.U64(fn), e.Bytes({0xff, 0xd0}); };  // movabs fn, %rax; call *%rax
  // handle = dlopen(agent, RTLD_NOW | RTLD_LOCAL)
  e.Bytes({0x48, 0xbf}), e.U64(base + l.agent);  // movabs agent, %rdi
  e.Bytes({0xbe}), e.U32(RTLD_NOW | RTLD_LOCAL);  // mov $flags, %esi
  call(calls.dlopen);
  store_rax(StubResults::kHandle);
  e.Bytes({0x48, 0x85, 0xc0, 0x0f, 0x84});  // test %rax, %rax; jz failed
  size_t to_failed = e.Rel32();
  // entry = dlsym(handle, "memframe_attach")
  e.Bytes({0x48, 0x89, 0xc7});  // mov %rax, %rdi
  e.Bytes({0x48, 0xbe}), e.U64(base + l.name);  // movabs name, %rsi
  call(calls.dlsym);
  store_rax(StubResults::kEntry);
  e.Bytes({0x48, 0x85, 0xc0, 0x0f, 0x84});  // test %rax, %rax; jz done
  size_t to_done = e.Rel32();
  // status = entry(config)
  e.Bytes({0x48, 0xbf}), e.U64(base + l.config);  // movabs config, %rdi
  e.Bytes({0xff, 0xd0});                         // call *%rax
  store_rax(StubResults::kStatus);
  e.Bytes({0xe9});  // jmp done
  size_t to_done2 = e.Rel32();
  e.Land(to_failed);
  if (calls.dlerror) {
    call(calls.dlerror);
    store_rax(StubResults::kDlerror);
  }
  e.Land(to_done);
  e.Land(to_done2);
  e.Bytes({0xb8}), e.U32(static_cast<uint32_t>(StubResults::kDone));  // mov $done, %eax
  store_rax(StubResults::kState);
  e.Bytes({0xb8}), e.U32(SYS_getpid);  // the marker: mov $getpid, %eax; syscall
  e.Bytes({0x0f, 0x05});
  InjectionStub stub;
  stub.marker_end = e.at();
  // The thread's own state back: the XSAVE area first (XRSTOR takes its
  // feature mask in edx:eax), then the registers popped off the block, the
  // flags, rsp, and a jump through the block's rip.
  e.Bytes({0x48, 0xb9}), e.U64(base + l.xstate);  // movabs xstate, %rcx
  if (state.xsave) {
    const uint64_t features = RestorableFeatures(state);
    e.Bytes({0xb8}), e.U32(static_cast<uint32_t>(features));        // mov $lo, %eax
    e.Bytes({0xba}), e.U32(static_cast<uint32_t>(features >> 32));  // mov $hi, %edx
    e.Bytes({0x48, 0x0f, 0xae, 0x29});                              // xrstor64 (%rcx)
  } else {
    e.Bytes({0x48, 0x0f, 0xae, 0x09});  // fxrstor64 (%rcx)
  }
  e.Bytes({0x48, 0xbc}), e.U64(base + kBlock);  // movabs block, %rsp
  e.Bytes({0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x41, 0x5b, 0x41, 0x5a, 0x41, 0x59, 0x41, 0x58});  // r15..r8
  e.Bytes({0x5f, 0x5e, 0x5d, 0x5b, 0x5a, 0x59, 0x58});  // rdi rsi rbp rbx rdx rcx rax
  e.Bytes({0x9d, 0x5c});                                // popfq; pop %rsp
  e.Bytes({0xff, 0x25});                                // jmp *rip_slot(%rip)
  const uint64_t rip_slot = kBlock + 17 * 8;
  e.U32(static_cast<uint32_t>(rip_slot - (e.at() + 4)));

  stub.bytes.assign(l.size, 0);
  memcpy(stub.bytes.data(), code.data(), code.size());
  const user_regs_struct& r = resume;
  const uint64_t block[18] = {r.r15, r.r14, r.r13, r.r12, r.r11, r.r10, r.r9,  r.r8,     r.rdi,
                              r.rsi, r.rbp, r.rbx, r.rdx, r.rcx, r.rax, r.eflags, r.rsp, r.rip};
  memcpy(stub.bytes.data() + kBlock, block, sizeof block);
  memcpy(stub.bytes.data() + l.agent, calls.agent.c_str(), calls.agent.size() + 1);
  memcpy(stub.bytes.data() + l.config, calls.config.c_str(), calls.config.size() + 1);
  memcpy(stub.bytes.data() + l.name, "memframe_attach", sizeof("memframe_attach"));
  memcpy(stub.bytes.data() + l.xstate, state.xstate.data(), state.xstate.size());
  return stub;
}

}  // namespace memframe::injector
