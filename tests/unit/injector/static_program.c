/* Linked with -static: memframe must refuse to launch it. */
int main(void) { return 0; }
