/* lone_code.c: a file that is one code object, told by its header (an
 * AMDGPU code object names its target there: the rest of a large file is
 * not read) or by its kernels' parse (a cubin, PTX). */
#include <stdio.h>
#include <string.h>

#include "lone_code.h"
#include "../formats/amdgpu_target.h"
#include "../formats/kernels.h"
#include "../formats/kernels_parse.h"

int lone_code_of(const uint8_t *buf, size_t len, struct lone_code *lc)
{
	struct kernel_list kl;
	const char *t;
	struct err e;

	memset(lc, 0, sizeof(*lc));
	if (amdgpu_target_of(buf, len, lc->name, sizeof(lc->name)) == 1) {
		lc->triple = "amdgcn-amd-amdhsa";
		lc->found = true;
		return 1;
	}
	switch (kernels_parse(buf, len, &kl, &e)) {
	case 1:
		break;
	case -1:
		/* A damaged code object is none; out of memory, nothing can
		 * be said. */
		return e.code == ERR_NOMEM ? -1 : 0;
	default:
		return 0;
	}
	t = kl.target[0] ? kl.target : kl.processor;
	if (strstr(t, "--"))
		t = strstr(t, "--") + 2;
	if (kl.source == KERNELS_PTX && !strncmp(t, "sm_", 3))
		snprintf(lc->name, sizeof(lc->name), "compute_%s", t + 3);
	else
		snprintf(lc->name, sizeof(lc->name), "%s", *t ? t : "?");
	lc->triple = kl.source == KERNELS_AMDGPU ? "amdgcn-amd-amdhsa"
						 : "nvptx64-nvidia-cuda";
	lc->found = true;
	kernels_free(&kl);
	return 1;
}
