/* native: the GPUs of this machine, as `clang --offload-arch=native`
 * finds them.  AMD from the KFD topology the amdgpu driver publishes
 * (/sys/class/kfd/kfd/topology/nodes/N/properties: gfx_target_version
 * 90010 is gfx90a, major * 10000 + minor * 100 + stepping, the last two
 * in hex; a node with 0 is a CPU); NVIDIA's compute capability from the
 * driver's NVML (libnvidia-ml.so.1, opened with dlopen where it is
 * installed: "sm_86").  $OFFLOAD_SYSFS stands in for /sys (tests). */
#ifndef CORE_NATIVE_H
#define CORE_NATIVE_H

#include <stddef.h>

#include "err.h"

/* The target IDs of the GPUs found, each once, AMD ones first in node
 * order, as one comma-separated list ("gfx90a,sm_86"), malloc'd.  No GPU
 * at all: -1 with e saying so (ERR_NOTHING) and where it looked. */
int native_targets(char **list, struct err *e);

#endif
