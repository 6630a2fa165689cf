// A stand-in for libglfw's present (dlerror_state.cc): the agent's
// glfwSwapBuffers hook finds this one after it and calls it.
extern "C" __attribute__((visibility("default"))) void glfwSwapBuffers(void*) {}
