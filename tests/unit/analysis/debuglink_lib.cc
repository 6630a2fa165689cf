// A library shipped the way distributions ship them: stripped, with its
// debug info in a separate file found through .gnu_debuglink (the build
// splits it; see CMakeLists.txt).
extern "C" __attribute__((noinline)) int debuglink_function(int x) {
  return x * 7 + 3;  // DEBUGLINK_LINE
}
