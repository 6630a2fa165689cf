// The names agent/exports.map makes global, for the tests that hold the
// agent's other lists against it.
#pragma once

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace memframe::test {

// Every name exports.map makes global: C names as written, C++ operators as
// their quoted demangled form.
inline std::set<std::string> ExportsMapNames(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string map = text.str();
  for (size_t at; (at = map.find("/*")) != std::string::npos;) map.erase(at, map.find("*/", at) + 2 - at);
  map = map.substr(map.find("global:") + 7);
  map = map.substr(0, map.find("local:"));
  std::set<std::string> names;
  const size_t cxx = map.find("extern \"C++\"");
  const size_t cxx_end = map.find("};", cxx);
  for (size_t at = map.find('"', cxx + 12); at < cxx_end; at = map.find('"', map.find('"', at + 1) + 1)) {
    const size_t end = map.find('"', at + 1);
    names.insert(map.substr(at + 1, end - at - 1));
  }
  map.erase(cxx, cxx_end + 2 - cxx);
  std::string name;
  for (char c : map) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      name += c;
    } else if (!name.empty()) {
      names.insert(name);
      name.clear();
    }
  }
  return names;
}

}  // namespace memframe::test
