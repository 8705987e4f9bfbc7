#include "config.h"
#include "ts-cli-private.h"
int ts_cli_audit (int argc, char **argv) { g_printerr ("audit: not built yet\n"); return 2; }
