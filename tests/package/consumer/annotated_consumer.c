/* Calls every annotation once. Without memframe they do nothing; under
 * memframe run the marker and the custom block show in the capture. */
#include <memframe/annotate.h>
#include <stdio.h>

int main(void) {
  static char pool[64];
  memframe_marker("consumer_start");
  memframe_custom_alloc(pool, sizeof pool);
  memframe_custom_free(pool);
  memframe_frame_mark();
  puts("annotated consumer ran");
  return 0;
}
