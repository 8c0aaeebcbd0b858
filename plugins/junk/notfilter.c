/* An HDF5 plugin of another type (1, a VOL connector in HDF5): skipped. A
 * codec in the same library with a different id would be refused too. */
#include <stddef.h>

#include "../nczplugin.h"

static const nczp_h5z_class2 cls = {NCZP_H5Z_CLASS_T_VERS, 40305, 1, 1, "notfilter", NULL, NULL, NULL};

int H5PLget_plugin_type(void) { return 1; }
const void *H5PLget_plugin_info(void) { return &cls; }
