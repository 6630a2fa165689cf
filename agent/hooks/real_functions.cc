#include "hooks/real_functions.h"

#include <dlfcn.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>

#include "hooks/elf_symbols.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

RealFunctions g_real;
std::atomic<int> g_real_functions_state{0};

namespace {
__thread bool t_resolving __attribute__((tls_model("initial-exec"))) = false;

std::atomic<DlsymFn> g_dlsym{nullptr};
std::atomic<DlvsymFn> g_dlvsym{nullptr};

bool g_global_first = false;

template <typename T>
void Resolve(T* slot, const char* name, bool required) {
  *slot = g_global_first ? reinterpret_cast<T>(RealDlsym()(RTLD_DEFAULT, name)) : nullptr;
  if (!*slot) *slot = reinterpret_cast<T>(RealDlsym()(RTLD_NEXT, name));
  if (!*slot && required) {
    // Without the real allocator nothing can run; say why before dying.
    Warn("cannot find the real '%s' (dlsym: %s); the program cannot run with memframe", name, dlerror());
    abort();
  }
}
}  // namespace

DlsymFn RealDlsym() noexcept {
  DlsymFn fn = g_dlsym.load(std::memory_order_acquire);
  if (!fn) {
    // glibc >= 2.34 has dlsym in libc; older ones in libdl.
    fn = reinterpret_cast<DlsymFn>(FindLibrarySymbol("libc.so.6", "dlsym"));
    if (!fn) fn = reinterpret_cast<DlsymFn>(FindLibrarySymbol("libdl.so.2", "dlsym"));
    if (!fn) fn = &dlsym;  // last resort; only reached on an unusual libc
    g_dlsym.store(fn, std::memory_order_release);
  }
  return fn;
}

DlvsymFn RealDlvsym() noexcept {
  DlvsymFn fn = g_dlvsym.load(std::memory_order_acquire);
  if (!fn) {
    fn = reinterpret_cast<DlvsymFn>(FindLibrarySymbol("libc.so.6", "dlvsym"));
    if (!fn) fn = reinterpret_cast<DlvsymFn>(FindLibrarySymbol("libdl.so.2", "dlvsym"));
    g_dlvsym.store(fn, std::memory_order_release);
  }
  return fn;
}

void* NextSymbol(const char* name) { return RealDlsym()(RTLD_NEXT, name); }

bool ResolvingRealFunctions() { return t_resolving; }

void ResolveRealFunctionsGlobalFirst() {
  g_global_first = true;
  ResolveRealFunctions();
}

void ResolveRealFunctions() {
  int expected = 0;
  if (!g_real_functions_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    // Another thread resolves; wait for it (this happens at most once, at
    // start-up, and the bootstrap pool serves the resolving thread).
    while (g_real_functions_state.load(std::memory_order_acquire) != 2) sched_yield();
    return;
  }
  t_resolving = true;
  RealFunctions r{};
  // Required: the malloc family every program has.
  Resolve(&r.malloc, "malloc", true);
  Resolve(&r.calloc, "calloc", true);
  Resolve(&r.realloc, "realloc", true);
  Resolve(&r.free, "free", true);
  // Optional: a missing one is passed over; its hook then fails as the
  // function would (null / ENOMEM).
  Resolve(&r.reallocarray, "reallocarray", false);
  Resolve(&r.posix_memalign, "posix_memalign", false);
  Resolve(&r.aligned_alloc, "aligned_alloc", false);
  Resolve(&r.memalign, "memalign", false);
  Resolve(&r.valloc, "valloc", false);
  Resolve(&r.pvalloc, "pvalloc", false);
  // operator new/delete live in libstdc++, which the agent itself needs, so
  // they are always there.
  Resolve(&r.op_new, "_Znwm", true);
  Resolve(&r.op_new_array, "_Znam", true);
  Resolve(&r.op_new_nothrow, "_ZnwmRKSt9nothrow_t", true);
  Resolve(&r.op_new_array_nothrow, "_ZnamRKSt9nothrow_t", true);
  Resolve(&r.op_new_aligned, "_ZnwmSt11align_val_t", true);
  Resolve(&r.op_new_array_aligned, "_ZnamSt11align_val_t", true);
  Resolve(&r.op_new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t", true);
  Resolve(&r.op_new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t", true);
  Resolve(&r.op_delete, "_ZdlPv", true);
  Resolve(&r.op_delete_array, "_ZdaPv", true);
  Resolve(&r.op_delete_sized, "_ZdlPvm", true);
  Resolve(&r.op_delete_array_sized, "_ZdaPvm", true);
  Resolve(&r.op_delete_aligned, "_ZdlPvSt11align_val_t", true);
  Resolve(&r.op_delete_array_aligned, "_ZdaPvSt11align_val_t", true);
  Resolve(&r.op_delete_sized_aligned, "_ZdlPvmSt11align_val_t", true);
  Resolve(&r.op_delete_array_sized_aligned, "_ZdaPvmSt11align_val_t", true);
  Resolve(&r.mmap, "mmap", false);
  Resolve(&r.munmap, "munmap", false);
  Resolve(&r.mremap, "mremap", false);
  g_real = r;
  t_resolving = false;
  g_real_functions_state.store(2, std::memory_order_release);
}

}  // namespace memframe::agent
