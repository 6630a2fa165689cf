#include "memframe/analysis/site_origin.h"

#include <string_view>

#include "memframe/paths.h"

namespace memframe::analysis {

namespace {

// The first index in [from, end) that `take` accepts, preferring one that is
// not standard-library code; stack.size() when none.
template <typename Take>
size_t FirstFrame(const std::vector<SourceFrame>& stack, size_t from, Take take) {
  size_t any = stack.size();
  for (size_t i = from; i < stack.size(); ++i) {
    if (!take(stack[i])) continue;
    if (any == stack.size()) any = i;
    if (!IsStandardLibraryCode(stack[i])) return i;
  }
  return any;
}

// "ns::Draw(Entities const&) const" -> "ns::Draw": the via part of a name
// says where, the stack says the rest. "(anonymous namespace)" stays.
std::string WithoutParameters(const std::string& function) {
  int angle = 0;
  for (size_t i = 0; i < function.size(); ++i) {
    const char c = function[i];
    if (c == '<') ++angle;
    if (c == '>' && angle > 0) --angle;
    if (c == '(' && angle == 0 && i > 0 && !std::string_view(function).substr(i).starts_with("(anonymous namespace)"))
      return function.substr(0, i);
  }
  return function;
}

// An inlined function of memframe's annotation header (memframe_custom_alloc
// inside the game's own allocator): memframe's code, not the game's.
bool IsAnnotationHeader(const SourceFrame& frame) {
  return std::string_view(frame.file).ends_with("memframe/annotate.h");
}

}  // namespace

// "std::vector<int>::push_back(int const&)" or, with the return type that
// the demangler prints for templates, "void std::__cxx11::basic_string<...>".
// Inlined constructors carry no linkage name ("thread<lambda>"), so code
// from the system's headers counts too.
bool IsStandardLibraryCode(const SourceFrame& frame) {
  if (frame.file.rfind("/usr/include/", 0) == 0) return true;
  std::string_view name = frame.function;
  size_t space = name.find(' ');
  size_t bracket = name.find_first_of("<(");
  if (space != std::string_view::npos && space < bracket) name.remove_prefix(space + 1);
  return name.rfind("std::", 0) == 0 || name.rfind("__gnu_cxx::", 0) == 0;
}

SiteOrigin FindSiteOrigin(const std::vector<SourceFrame>& stack) {
  SiteOrigin o;
  const size_t none = stack.size();
  o.alloc = FirstFrame(stack, 0,
                       [](const SourceFrame& f) { return !IsRuntimeModule(f.module) && !IsAnnotationHeader(f); });
  o.game = o.alloc == none ? none : FirstFrame(stack, o.alloc, [](const SourceFrame& f) {
    return f.module_class == ModuleClass::kGame && !IsRuntimeModule(f.module) && !IsAnnotationHeader(f);
  });
  if (o.alloc == none) {
    o.user = 0;  // every frame is runtime code (or the stack is empty)
  } else if (stack[o.alloc].module_class != ModuleClass::kGame && o.game != none) {
    o.user = o.game;
  } else {
    o.user = o.alloc;
  }
  if (stack.empty()) return o;
  const SourceFrame& allocating = stack[o.alloc != none ? o.alloc : o.user];
  o.module_class = allocating.module_class;
  o.module = Basename(allocating.module);
  return o;
}

size_t UserFrameIndex(const std::vector<SourceFrame>& stack) { return FindSiteOrigin(stack).user; }

bool OriginSettled(const std::vector<SourceFrame>& stack, const SiteOrigin& origin) {
  return origin.user < stack.size() && stack[origin.user].module_class == ModuleClass::kGame &&
         !IsRuntimeModule(stack[origin.user].module) && !IsStandardLibraryCode(stack[origin.user]);
}

std::string SiteName(const std::vector<SourceFrame>& stack, const SiteOrigin& origin) {
  if (origin.user >= stack.size()) return "";
  const SourceFrame& user = stack[origin.user];
  if (origin.alloc >= stack.size() || stack[origin.alloc].module == user.module) return user.function;
  std::string location = LineLocation(user);
  return origin.module + " (via " + WithoutParameters(user.function) + (location.empty() ? "" : " " + location) + ")";
}

}  // namespace memframe::analysis
