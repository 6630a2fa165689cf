// Every replaceable operator new and delete. Each forwards to libstdc++'s own
// (found with dlsym), so the standard's behaviour stays exactly as it was:
// the new_handler loop, std::bad_alloc, null from the nothrow forms; what
// the new_handler allocates and frees, and the exception object of a
// std::bad_alloc, are recorded as the game's (recursion_guard.h OuterNew). The
// family (new vs new[]) is recorded so mismatched deletes can be reported.
#include <new>

#include "hooks/tracked_call.h"
#include "memframe/format.h"
#include "memframe.pb.h"

using namespace memframe::agent;

namespace {

// What libstdc++'s operator new asks its allocator for: malloc(max(size,
// 1)), or aligned_alloc of that rounded up to the alignment (at least a
// pointer's). Its other inner calls are the game's (OuterNew).
OuterNew BlockRequest(size_t size, size_t align) {
  const size_t asked = size ? size : 1;
  const size_t to = align > sizeof(void*) ? align : sizeof(void*);
  return {asked, align ? (asked + to - 1) & ~(to - 1) : asked};
}

template <typename Call>
void* New(size_t size, uint32_t kind, Call call, std::align_val_t align = std::align_val_t{0}) {
  EnsureRealFunctions();
  return TrackedAlloc<false, HookKind::kHeapAlloc, true>(size, kind, call,
                                                         BlockRequest(size, static_cast<size_t>(align)));
}

template <typename Call>
void Delete(void* block, size_t size, uint32_t kind, Call call) {
  if (!block) return;
  EnsureRealFunctions();
  TrackedFree<false, HookKind::kHeapFree, true>(block, size, kind, call);
}
}  // namespace

MEMFRAME_EXPORT_CXX void* operator new(size_t size) {
  return New(size, kNewKind, [&] { return g_real.op_new(size); });
}
MEMFRAME_EXPORT_CXX void* operator new[](size_t size) {
  return New(size, kNewArrayKind, [&] { return g_real.op_new_array(size); });
}
MEMFRAME_EXPORT_CXX void* operator new(size_t size, const std::nothrow_t& tag) noexcept {
  return New(size, kNewKind, [&] { return g_real.op_new_nothrow(size, tag); });
}
MEMFRAME_EXPORT_CXX void* operator new[](size_t size, const std::nothrow_t& tag) noexcept {
  return New(size, kNewArrayKind, [&] { return g_real.op_new_array_nothrow(size, tag); });
}
MEMFRAME_EXPORT_CXX void* operator new(size_t size, std::align_val_t align) {
  return New(size, kNewKind, [&] { return g_real.op_new_aligned(size, align); }, align);
}
MEMFRAME_EXPORT_CXX void* operator new[](size_t size, std::align_val_t align) {
  return New(size, kNewArrayKind, [&] { return g_real.op_new_array_aligned(size, align); }, align);
}
MEMFRAME_EXPORT_CXX void* operator new(size_t size, std::align_val_t align, const std::nothrow_t& tag) noexcept {
  return New(size, kNewKind, [&] { return g_real.op_new_aligned_nothrow(size, align, tag); }, align);
}
MEMFRAME_EXPORT_CXX void* operator new[](size_t size, std::align_val_t align, const std::nothrow_t& tag) noexcept {
  return New(size, kNewArrayKind, [&] { return g_real.op_new_array_aligned_nothrow(size, align, tag); }, align);
}

MEMFRAME_EXPORT_CXX void operator delete(void* block) noexcept {
  Delete(block, 0, kDeleteKind, [&] { g_real.op_delete(block); });
}
MEMFRAME_EXPORT_CXX void operator delete[](void* block) noexcept {
  Delete(block, 0, kDeleteArrayKind, [&] { g_real.op_delete_array(block); });
}
MEMFRAME_EXPORT_CXX void operator delete(void* block, size_t size) noexcept {
  Delete(block, size, kDeleteKind, [&] { g_real.op_delete_sized(block, size); });
}
MEMFRAME_EXPORT_CXX void operator delete[](void* block, size_t size) noexcept {
  Delete(block, size, kDeleteArrayKind, [&] { g_real.op_delete_array_sized(block, size); });
}
// The nothrow deletes are only called when a nothrow new's constructor
// throws; libstdc++ implements them as the plain ones.
MEMFRAME_EXPORT_CXX void operator delete(void* block, const std::nothrow_t&) noexcept {
  Delete(block, 0, kDeleteKind, [&] { g_real.op_delete(block); });
}
MEMFRAME_EXPORT_CXX void operator delete[](void* block, const std::nothrow_t&) noexcept {
  Delete(block, 0, kDeleteArrayKind, [&] { g_real.op_delete_array(block); });
}
MEMFRAME_EXPORT_CXX void operator delete(void* block, std::align_val_t align) noexcept {
  Delete(block, 0, kDeleteKind, [&] { g_real.op_delete_aligned(block, align); });
}
MEMFRAME_EXPORT_CXX void operator delete[](void* block, std::align_val_t align) noexcept {
  Delete(block, 0, kDeleteArrayKind, [&] { g_real.op_delete_array_aligned(block, align); });
}
MEMFRAME_EXPORT_CXX void operator delete(void* block, size_t size, std::align_val_t align) noexcept {
  Delete(block, size, kDeleteKind, [&] { g_real.op_delete_sized_aligned(block, size, align); });
}
MEMFRAME_EXPORT_CXX void operator delete[](void* block, size_t size, std::align_val_t align) noexcept {
  Delete(block, size, kDeleteArrayKind, [&] { g_real.op_delete_array_sized_aligned(block, size, align); });
}
MEMFRAME_EXPORT_CXX void operator delete(void* block, std::align_val_t align, const std::nothrow_t&) noexcept {
  Delete(block, 0, kDeleteKind, [&] { g_real.op_delete_aligned(block, align); });
}
MEMFRAME_EXPORT_CXX void operator delete[](void* block, std::align_val_t align, const std::nothrow_t&) noexcept {
  Delete(block, 0, kDeleteArrayKind, [&] { g_real.op_delete_array_aligned(block, align); });
}
