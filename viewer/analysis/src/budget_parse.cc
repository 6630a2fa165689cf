// ParseBudget (budget.h): strict, so that a typo in a budget is an error
// rather than a budget silently not checked.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "memframe/analysis/budget.h"

namespace memframe::analysis {

namespace {

using nlohmann::json;

struct BadBudget {
  std::string message;
};

[[noreturn]] void Fail(const std::string& key, const std::string& what) { throw BadBudget{key + ": " + what}; }

std::string Key(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

uint64_t Count(const json& value, const std::string& key) {
  if (!value.is_number_unsigned()) Fail(key, "must be a whole number of at least 0");
  return value.get<uint64_t>();
}

void OnlyKeys(const json& object, const std::string& prefix, const std::vector<const char*>& allowed) {
  if (!object.is_object()) Fail(prefix.empty() ? "budget" : prefix, "must be an object");
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) Fail(Key(prefix, key), "unknown key");
  }
}

FrameLimit Limit(const json& object, const std::string& prefix, std::initializer_list<const char*> also = {}) {
  std::vector<const char*> keys = {"allocations", "bytes"};
  keys.insert(keys.end(), also.begin(), also.end());
  OnlyKeys(object, prefix, keys);
  FrameLimit limit;
  if (object.contains("allocations")) limit.allocations = Count(object["allocations"], Key(prefix, "allocations"));
  if (object.contains("bytes")) limit.bytes = Count(object["bytes"], Key(prefix, "bytes"));
  return limit;
}

ModuleClass Class(const json& name, const std::string& key) {
  ModuleClass c;
  if (!name.is_string() || !ParseModuleClass(name.get<std::string>(), &c))
    Fail(key, "not a module class (game, engine, driver, system)");
  return c;
}

// "steady_frame" and "steady_worst_frame" share their shape.
SteadyLimits Steady(const json& s, const std::string& prefix) {
  OnlyKeys(s, prefix, {"allocations", "bytes", "module_classes", "sites"});
  json limits = s;
  limits.erase("module_classes");
  limits.erase("sites");
  SteadyLimits steady;
  steady.all = Limit(limits, prefix);
  if (s.contains("module_classes")) {
    const json& classes = s["module_classes"];
    if (!classes.is_object()) Fail(prefix + ".module_classes", "must be an object of class: limits");
    for (const auto& [name, limit] : classes.items()) {
      const std::string key = prefix + ".module_classes." + name;
      steady.module_classes.emplace_back(Class(name, key), Limit(limit, key));
    }
  }
  if (s.contains("sites")) {
    const json& sites = s["sites"];
    if (!sites.is_array()) Fail(prefix + ".sites", "must be an array");
    for (size_t i = 0; i < sites.size(); ++i) {
      const std::string key = prefix + ".sites[" + std::to_string(i) + "]";
      SiteBudget site;
      site.limit = Limit(sites[i], key, {"pattern"});
      if (!sites[i].contains("pattern") || !sites[i]["pattern"].is_string() ||
          sites[i]["pattern"].get<std::string>().empty())
        Fail(key + ".pattern", "needs a glob naming a function or file:line");
      site.pattern = sites[i]["pattern"];
      steady.sites.push_back(site);
    }
  }
  return steady;
}

void ParseLeaks(const json& l, Budget* b) {
  OnlyKeys(l, "leaks", {"blocks", "bytes", "module_classes"});
  if (l.contains("blocks")) b->leak_blocks = Count(l["blocks"], "leaks.blocks");
  if (l.contains("bytes")) b->leak_bytes = Count(l["bytes"], "leaks.bytes");
  if (l.contains("module_classes")) {
    const json& classes = l["module_classes"];
    if (!classes.is_array() || classes.empty()) Fail("leaks.module_classes", "must be a non-empty array of classes");
    b->leak_classes.kept = 0;
    for (size_t i = 0; i < classes.size(); ++i)
      b->leak_classes.Set(Class(classes[i], "leaks.module_classes[" + std::to_string(i) + "]"), true);
  }
}

// The first key an object of `text` holds twice, by its path
// ("steady_frame.sites[0].pattern"), or "": JSON keeps the last of them
// silently, and a budget whose limit was edited in one place but not the
// other would check the one nobody meant.
std::string DuplicateKey(const std::string& text) {
  struct Level {
    bool array = false;
    std::set<std::string> keys;
    std::string key;  // the current member's, in an object
    int index = -1;   // the current element's, in an array
  };
  std::vector<Level> levels;
  std::string duplicate;
  auto path = [&levels] {
    std::string p;
    for (const Level& l : levels) {
      if (l.array) p += "[" + std::to_string(l.index) + "]";
      else if (!l.key.empty()) p += (p.empty() ? "" : ".") + l.key;
    }
    return p;
  };
  auto element = [&levels] {
    if (!levels.empty() && levels.back().array) ++levels.back().index;
  };
  json::parser_callback_t note = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        element();
        levels.push_back({event == json::parse_event_t::array_start, {}, {}, -1});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!levels.empty()) levels.pop_back();
        break;
      case json::parse_event_t::key:
        if (!levels.empty()) {
          levels.back().key = parsed.get<std::string>();
          if (!levels.back().keys.insert(levels.back().key).second && duplicate.empty()) duplicate = path();
        }
        break;
      case json::parse_event_t::value:
        element();
        break;
    }
    return true;
  };
  // Parsed for the callback's sake: the document itself is ParseBudget's.
  [[maybe_unused]] const json parsed = json::parse(text, note, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  return duplicate;
}

void ParseGpu(const json& g, Budget* b) {
  OnlyKeys(g, "gpu", {"load_live_bytes", "steady_frame_bytes"});
  if (g.contains("load_live_bytes")) b->gpu_load_live_bytes = Count(g["load_live_bytes"], "gpu.load_live_bytes");
  if (g.contains("steady_frame_bytes"))
    b->gpu_steady_frame_bytes = Count(g["steady_frame_bytes"], "gpu.steady_frame_bytes");
}

}  // namespace

bool ParseBudget(const std::string& text, Budget* budget, std::string* error) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (doc.is_discarded()) {
    *error = "not valid JSON";
    return false;
  }
  if (std::string key = DuplicateKey(text); !key.empty()) {
    *error = key + ": given twice";
    return false;
  }
  Budget b;
  try {
    OnlyKeys(doc, "",
             {"steady_frame", "steady_worst_frame", "allocator_time_p99_ns", "load_live_bytes", "loads", "unloads",
              "leaks", "mismatches", "gpu"});
    if (doc.contains("steady_frame")) b.steady_frame = Steady(doc["steady_frame"], "steady_frame");
    if (doc.contains("steady_worst_frame"))
      b.steady_worst_frame = Steady(doc["steady_worst_frame"], "steady_worst_frame");
    auto count = [&](const char* key, std::optional<uint64_t>* into) {
      if (doc.contains(key)) *into = Count(doc[key], key);
    };
    count("allocator_time_p99_ns", &b.allocator_time_p99_ns);
    count("load_live_bytes", &b.load_live_bytes);
    count("loads", &b.loads);
    count("unloads", &b.unloads);
    if (doc.contains("leaks")) ParseLeaks(doc["leaks"], &b);
    if (doc.contains("mismatches")) b.mismatches = Count(doc["mismatches"], "mismatches");
    if (doc.contains("gpu")) ParseGpu(doc["gpu"], &b);
  } catch (const BadBudget& bad) {
    *error = bad.message;
    return false;
  }
  *budget = std::move(b);
  return true;
}

}  // namespace memframe::analysis
