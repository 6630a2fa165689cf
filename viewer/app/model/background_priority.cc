#include "background_priority.h"

#include <sys/resource.h>
#include <unistd.h>

namespace memframe::viewer {

void LowerThisThreadsPriority() {
  // PRIO_PROCESS with a thread id names that thread alone (Linux).
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
}

}  // namespace memframe::viewer
