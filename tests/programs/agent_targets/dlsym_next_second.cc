// libdlsym_next_second.so: the next which() after the first library's.
extern "C" int which() { return 2; }
