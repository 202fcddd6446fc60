/* native: the GPUs of this machine; see native.h. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

struct list {
	char *s;
	size_t len;
};

static int list_add(struct list *l, const char *id)
{
	size_t n = strlen(id);
	char *s;

	/* Each once: ",gfx90a," is looked for in ",<list>,". */
	for (const char *p = l->s; p && (p = strstr(p, id)); p++)
		if ((p == l->s || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 0;
	if (!(s = realloc(l->s, l->len + n + 2)))
		return -1;
	if (l->len)
		s[l->len++] = ',';
	memcpy(s + l->len, id, n + 1);
	l->s = s;
	l->len += n;
	return 0;
}

/* "gfx_target_version 90010" in a node's properties, or 0. */
static uint64_t node_version(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[256];
	uint64_t v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "gfx_target_version %" SCNu64, &v) == 1)
			break;
	fclose(f);
	return v;
}

static int by_number(const struct dirent **a, const struct dirent **b)
{
	unsigned long x = strtoul((*a)->d_name, NULL, 10);
	unsigned long y = strtoul((*b)->d_name, NULL, 10);

	return x < y ? -1 : x > y;
}

static int numbered(const struct dirent *d)
{
	return d->d_name[0] >= '0' && d->d_name[0] <= '9';
}

static int amd(struct list *l, const char *sys)
{
	char dir[4096], path[4608], id[32];
	struct dirent **node;
	int n, rc = 0;

	snprintf(dir, sizeof(dir), "%s/class/kfd/kfd/topology/nodes", sys);
	if ((n = scandir(dir, &node, numbered, by_number)) < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		uint64_t v;

		snprintf(path, sizeof(path), "%s/%s/properties", dir,
			 node[i]->d_name);
		v = node_version(path);
		if (v && rc == 0 && v < 1000000) {
			snprintf(id, sizeof(id), "gfx%u%x%x",
				 (unsigned)(v / 10000),
				 (unsigned)(v / 100 % 100), (unsigned)(v % 100));
			rc = list_add(l, id);
		}
		free(node[i]);
	}
	free(node);
	return rc;
}

/* NVML's calls we make, as nvml.h declares them (0 is NVML_SUCCESS). */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_count_fn)(unsigned *);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_cc_fn)(void *, int *, int *);

static int nvidia(struct list *l)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvml_init_fn init, shutdown;
	nvml_count_fn count;
	nvml_handle_fn handle;
	nvml_cc_fn cc;
	unsigned n = 0;
	int rc = 0;

	if (!lib)
		return 0;
	*(void **)&init = dlsym(lib, "nvmlInit_v2");
	*(void **)&shutdown = dlsym(lib, "nvmlShutdown");
	*(void **)&count = dlsym(lib, "nvmlDeviceGetCount_v2");
	*(void **)&handle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&cc = dlsym(lib, "nvmlDeviceGetCudaComputeCapability");
	if (init && shutdown && count && handle && cc && init() == 0) {
		if (count(&n) != 0)
			n = 0;
		for (unsigned i = 0; i < n && rc == 0; i++) {
			void *dev;
			int major, minor;
			char id[32];

			if (handle(i, &dev) != 0 || cc(dev, &major, &minor) != 0 ||
			    major < 1 || major > 99 || minor < 0 || minor > 9)
				continue;
			snprintf(id, sizeof(id), "sm_%d%d", major, minor);
			rc = list_add(l, id);
		}
		shutdown();
	}
	dlclose(lib);
	return rc;
}

int native_targets(char **out, struct err *e)
{
	const char *sys = getenv("OFFLOAD_SYSFS");
	struct list l = { 0 };

	if (!sys || !*sys)
		sys = "/sys";
	if (amd(&l, sys) < 0 || nvidia(&l) < 0) {
		free(l.s);
		return err_sys(e, "", ENOMEM);
	}
	if (!l.s)
		return err_code_set(e, ERR_NOTHING, "no GPU found (no AMD GPU "
				    "in %s/class/kfd/kfd/topology, no NVIDIA "
				    "driver's libnvidia-ml.so.1)", sys);
	*out = l.s;
	return 0;
}
