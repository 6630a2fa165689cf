#include "memframe/man_page.h"

#include <algorithm>
#include <cctype>

namespace memframe {

std::string Troff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    line_start = c == '\n';
  }
  return out;
}

void WriteManHeader(const std::string& page, const std::string& summary, const std::string& version,
                    std::ostream& out) {
  std::string upper = page;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  out << ".TH " << upper << " 1 \"\" \"memframe " << version << "\" \"memframe manual\"\n"
      << ".SH NAME\n" << page << " \\- " << Troff(summary) << "\n";
}

std::string OptionSynopsis(const CommandOption& option) {
  std::string names;
  for (const std::string& name : OptionNames(option)) names += (names.empty() ? "" : ", ") + name;
  return names + (option.value.empty() ? "" : " " + option.value);
}

void WriteManOptions(const std::vector<CommandOption>& options, std::ostream& out) {
  out << ".SH OPTIONS\n";
  for (const CommandOption& option : options) {
    if (option.help.empty()) continue;
    out << ".TP\n.B " << Troff(OptionSynopsis(option)) << "\n" << Troff(option.help) << "\n";
  }
}

void WriteHelpOptions(const std::vector<CommandOption>& options, std::ostream& out, size_t column) {
  constexpr size_t kWidth = 100;
  for (const CommandOption& option : options) {
    if (option.help.empty()) continue;
    std::string line = "  " + OptionSynopsis(option);
    line += line.size() + 1 < column ? std::string(column - line.size(), ' ') : "\n" + std::string(column, ' ');
    // The help in words, wrapped under its column.
    size_t line_start = line.rfind('\n') == std::string::npos ? 0 : line.rfind('\n') + 1;
    size_t at = 0;
    bool first_word = true;
    while (at < option.help.size()) {
      size_t space = option.help.find(' ', at);
      if (space == std::string::npos) space = option.help.size();
      const std::string word = option.help.substr(at, space - at);
      if (!first_word && line.size() - line_start + 1 + word.size() > kWidth) {
        line += "\n" + std::string(column, ' ');
        line_start = line.size() - column;
      } else if (!first_word) {
        line += ' ';
      }
      line += word;
      first_word = false;
      at = space + 1;
    }
    out << line << '\n';
  }
}

}  // namespace memframe
