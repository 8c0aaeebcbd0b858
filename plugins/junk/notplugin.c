/* A valid shared library that is not a plugin: the loader must skip it. */
int nczp_not_a_plugin(void);
int nczp_not_a_plugin(void) { return 42; }
