// Every replaceable operator new and delete. Each forwards to libstdc++'s own
// (found with dlsym), so the standard's behaviour stays exactly as it was:
// the new_handler loop, std::bad_alloc, null from the nothrow forms. The
// family (new vs new[]) is recorded so mismatched deletes can be reported.
#include <new>

#include "hooks/tracked_call.h"
#include "memframe/format.h"
#include "memframe.pb.h"

using namespace memframe::agent;

namespace {

template <typename Call>
void* New(size_t size, uint32_t kind, Call call) {
  EnsureRealFunctions();
  return TrackedAlloc<false, HookKind::kHeapAlloc, true>(size, kind, call);
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
  return New(size, kNewKind, [&] { return g_real.op_new_aligned(size, align); });
}
MEMFRAME_EXPORT_CXX void* operator new[](size_t size, std::align_val_t align) {
  return New(size, kNewArrayKind, [&] { return g_real.op_new_array_aligned(size, align); });
}
MEMFRAME_EXPORT_CXX void* operator new(size_t size, std::align_val_t align, const std::nothrow_t& tag) noexcept {
  return New(size, kNewKind, [&] { return g_real.op_new_aligned_nothrow(size, align, tag); });
}
MEMFRAME_EXPORT_CXX void* operator new[](size_t size, std::align_val_t align, const std::nothrow_t& tag) noexcept {
  return New(size, kNewArrayKind, [&] { return g_real.op_new_array_aligned_nothrow(size, align, tag); });
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
