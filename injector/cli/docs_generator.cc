#include "docs_generator.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "cli_common.h"
#include "commands.h"
#include "memframe/man_page.h"
#ifdef MEMFRAME_WITH_ANALYSIS
#include "memframe/report/report_registry.h"
#endif

namespace memframe::injector {

namespace {

void Header(const std::string& page, const std::string& summary, std::ostream& out) {
  WriteManHeader(page, summary, kMemframeVersion, out);
}

std::string UsageOf(const Command& command) {
  std::ostringstream usage;
  command.usage(usage);
  return usage.str();
}

std::string Words(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) line += (line.empty() ? "" : " ") + word;
  return line;
}

}  // namespace

std::vector<std::string> OptionsInUsage(const Command& command) {
  // The "options:" section only, up to its blank line: the prose around it
  // names options of other commands and programs ("command -v").
  const std::string usage = UsageOf(command);
  const size_t start = usage.find("\noptions:\n");
  if (start == std::string::npos) return {};
  const size_t end = usage.find("\n\n", start + 1);
  const std::string section = usage.substr(start, end == std::string::npos ? std::string::npos : end - start);
  std::vector<std::string> options;
  static const std::regex option(R"((^|[\s,\[])(--?[a-zA-Z][a-zA-Z0-9-]*))");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), option); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[2];
    if (std::find(options.begin(), options.end(), name) == options.end()) options.push_back(name);
  }
  return options;
}

bool WriteManPage(const std::string& name, std::ostream& out) {
  if (name.empty()) {
    Header("memframe", "per-frame memory profiler for games", out);
    out << ".SH SYNOPSIS\n.B memframe\nCOMMAND [ARGS...]\n.SH DESCRIPTION\n"
           "memframe preloads its agent into an unmodified game, records every allocation frame by frame into a "
           "capture file, and reports on it.\n.SH COMMANDS\n";
    for (const Command& command : Commands())
      out << ".TP\n.B memframe " << command.name << " " << Troff(command.synopsis) << "\n" << Troff(command.summary)
          << ". See memframe\\-" << command.name << "(1).\n";
    out << ".TP\n.B memframe help [COMMAND]\nshow help\n.TP\n.B memframe \\-\\-version\nshow the version\n"
           ".SH EXIT STATUS\n"
           "2 for memframe's own failures, except memframe run, which exits with the program's status, and with "
        << kExitRunFailed << " (memframe failed), " << kExitRunCannotExecute
        << " (the program cannot be run) or " << kExitRunNotFound << " (the program was not found) for its own.\n"
        << ".SH SEE ALSO\nmemframe\\-viewer(1)";
    for (const Command& command : Commands()) out << ", memframe\\-" << command.name << "(1)";
    out << "\n";
    return true;
  }
  const Command* command = FindCommand(name);
  if (!command) return false;
  Header("memframe-" + command->name, command->summary, out);
  out << ".SH SYNOPSIS\n.B memframe " << command->name << "\n" << Troff(command->synopsis) << "\n"
      << ".SH DESCRIPTION\n.nf\n" << Troff(UsageOf(*command)) << ".fi\n";
#ifdef MEMFRAME_WITH_ANALYSIS
  if (command->name == "report") {
    out << ".SH REPORTS\n";
    for (const analysis::ReportDef& report : analysis::ReportRegistry()) {
      std::ostringstream help;
      analysis::PrintReportHelp(report, help);
      out << ".SS " << report.name << "\n.nf\n" << Troff(help.str()) << ".fi\n";
    }
  }
#endif
  out << ".SH SEE ALSO\nmemframe(1)\n";
  return true;
}

void WriteBashCompletion(std::ostream& out) {
  std::vector<std::string> names;
  for (const Command& command : Commands()) names.push_back(command.name);
  out << "# bash completion for memframe (memframe --generate-completion bash)\n"
         "_memframe() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} opts=\"\"\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=($(compgen -W \"" << Words(names) << " help --version --help\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  case \"${COMP_WORDS[1]}\" in\n"
         "    help) COMPREPLY=($(compgen -W \"" << Words(names) << "\" -- \"$cur\")); return ;;\n";
  for (const Command& command : Commands()) {
#ifdef MEMFRAME_WITH_ANALYSIS
    if (command.name == "report") {
      std::vector<std::string> reports;
      for (const analysis::ReportDef& report : analysis::ReportRegistry()) reports.push_back(report.name);
      out << "    report)\n"
             "      if [ \"$COMP_CWORD\" -eq 3 ] && [[ \"$cur\" != -* ]]; then\n"
             "        COMPREPLY=($(compgen -W \"" << Words(reports) << "\" -- \"$cur\")); return\n"
             "      fi\n"
             "      case \"${COMP_WORDS[3]}\" in\n";
      for (const analysis::ReportDef& report : analysis::ReportRegistry()) {
        std::vector<std::string> options = {"--json", "--progress", "--help"};
        for (const analysis::ReportOptionDef* option : analysis::OptionsOf(report)) options.push_back(option->name);
        out << "        " << (report.name == "summary" ? "summary|-*" : report.name) << ") opts=\"" << Words(options)
            << "\" ;;\n";
      }
      out << "      esac ;;\n";
      continue;
    }
#endif
    out << "    " << command.name << ") opts=\"" << Words(OptionsInUsage(command)) << "\" ;;\n";
  }
  out << "  esac\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _memframe memframe\n";
}

bool WriteDocs(const std::string& dir, std::string* error) {
  namespace fs = std::filesystem;
  const fs::path man = fs::path(dir) / "man" / "man1";
  const fs::path completions = fs::path(dir) / "bash-completion" / "completions";
  std::error_code ec;
  fs::create_directories(man, ec);
  if (!ec) fs::create_directories(completions, ec);
  if (ec) {
    *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  auto write = [&](const fs::path& path, const std::function<void(std::ostream&)>& fill) {
    std::ofstream out(path);
    fill(out);
    out.close();
    if (!out) *error = "cannot write " + path.string();
    return static_cast<bool>(out);
  };
  if (!write(man / "memframe.1", [](std::ostream& out) { WriteManPage("", out); })) return false;
  for (const Command& command : Commands()) {
    if (!write(man / ("memframe-" + command.name + ".1"), [&](std::ostream& out) { WriteManPage(command.name, out); }))
      return false;
  }
  return write(completions / "memframe", WriteBashCompletion);
}

}  // namespace memframe::injector
