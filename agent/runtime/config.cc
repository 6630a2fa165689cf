#include "runtime/config.h"

#include <cstdlib>

namespace memframe::agent {

Config ReadConfig() {
  return ReadConfigWith([](const char* name, void*) -> const char* { return getenv(name); }, nullptr);
}

Config ReadConfigWith(const char* (*lookup)(const char* name, void* context), void* context) {
  Config c = wire::ParseAgentSettings([&](const char* name) { return lookup(name, context); });
  if (c.socket_path && !*c.socket_path) c.socket_path = nullptr;
  return c;
}

}  // namespace memframe::agent
