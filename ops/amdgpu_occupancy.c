/* amdgpu_occupancy: how many waves of a kernel fit on one SIMD of its
 * processor, by the limits LLVM's AMDGPU backend uses when it prints
 * "Occupancy [waves/SIMD]" (-Rpass-analysis=kernel-resource-usage): the
 * smallest of what the workgroup size and LDS allow, what the SGPRs allow
 * (before GFX10) and what the VGPRs (with AGPRs) allow.  Written from
 * the AMDGPU backend's documented behaviour and checked against clang-22's
 * own report in test/kernels.test; see amdgpu_occupancy.h. */
#include <string.h>

#include "amdgpu_occupancy.h"

enum {
	F_90A = 1 << 0,		/* gfx90a-style unified VGPR/AGPR file */
	F_GFX10_3 = 1 << 1,	/* GFX10.3 and later: larger VGPR granule */
	F_VGPR_1_5X = 1 << 2,	/* one and a half times the VGPRs */
	F_AGPR_APART = 1 << 3,	/* gfx908: AGPRs in a file of their own */
};

struct proc {
	const char *name;
	unsigned gen;		/* 8, 9, 10, 11, 12 */
	unsigned flags;
	unsigned lds;		/* bytes a workgroup can address */
};

static const struct proc procs[] = {
	{ "gfx801", 8, 0, 65536 }, { "gfx802", 8, 0, 65536 },
	{ "gfx803", 8, 0, 65536 }, { "gfx805", 8, 0, 65536 },
	{ "gfx810", 8, 0, 65536 },
	{ "gfx900", 9, 0, 65536 }, { "gfx902", 9, 0, 65536 },
	{ "gfx904", 9, 0, 65536 }, { "gfx906", 9, 0, 65536 },
	{ "gfx908", 9, F_AGPR_APART, 65536 }, { "gfx909", 9, 0, 65536 },
	{ "gfx90c", 9, 0, 65536 }, { "gfx9-generic", 9, 0, 65536 },
	{ "gfx90a", 9, F_90A, 65536 }, { "gfx940", 9, F_90A, 65536 },
	{ "gfx941", 9, F_90A, 65536 }, { "gfx942", 9, F_90A, 65536 },
	{ "gfx9-4-generic", 9, F_90A, 65536 },
	{ "gfx950", 9, F_90A, 163840 },
	{ "gfx1010", 10, 0, 65536 }, { "gfx1011", 10, 0, 65536 },
	{ "gfx1012", 10, 0, 65536 }, { "gfx1013", 10, 0, 65536 },
	{ "gfx10-1-generic", 10, 0, 65536 },
	{ "gfx1030", 10, F_GFX10_3, 65536 }, { "gfx1031", 10, F_GFX10_3, 65536 },
	{ "gfx1032", 10, F_GFX10_3, 65536 }, { "gfx1033", 10, F_GFX10_3, 65536 },
	{ "gfx1034", 10, F_GFX10_3, 65536 }, { "gfx1035", 10, F_GFX10_3, 65536 },
	{ "gfx1036", 10, F_GFX10_3, 65536 },
	{ "gfx10-3-generic", 10, F_GFX10_3, 65536 },
	{ "gfx1100", 11, F_GFX10_3 | F_VGPR_1_5X, 65536 },
	{ "gfx1101", 11, F_GFX10_3 | F_VGPR_1_5X, 65536 },
	{ "gfx1102", 11, F_GFX10_3, 65536 }, { "gfx1103", 11, F_GFX10_3, 65536 },
	{ "gfx1150", 11, F_GFX10_3, 65536 },
	{ "gfx1151", 11, F_GFX10_3 | F_VGPR_1_5X, 65536 },
	{ "gfx1152", 11, F_GFX10_3, 65536 }, { "gfx1153", 11, F_GFX10_3, 65536 },
	{ "gfx11-generic", 11, F_GFX10_3, 65536 },
	{ "gfx1200", 12, F_GFX10_3 | F_VGPR_1_5X, 65536 },
	{ "gfx1201", 12, F_GFX10_3 | F_VGPR_1_5X, 65536 },
	{ "gfx12-generic", 12, F_GFX10_3, 65536 },
};

static unsigned div_up(unsigned a, unsigned b)
{
	return (a + b - 1) / b;
}

static unsigned align_up(unsigned a, unsigned b)
{
	return div_up(a, b) * b;
}

static unsigned clamp(unsigned v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static unsigned max_waves_per_simd(const struct proc *p)
{
	if (p->flags & F_90A)
		return 8;
	if (p->gen < 10)
		return 10;
	return p->flags & F_GFX10_3 ? 16 : 20;
}

/* SIMDs that share a workgroup's resources: four in a GFX9 CU, four in a
 * GFX10+ WGP (the default mode; the CU mode, two, is not recorded in a
 * code object). */
enum { SIMDS = 4 };

/* Workgroups of wg_size items one CU holds at once, by its barriers and
 * wave slots. */
static unsigned workgroups_per_cu(const struct proc *p, unsigned wave,
				  unsigned wg_size)
{
	unsigned slots = max_waves_per_simd(p) * SIMDS;
	unsigned waves = div_up(wg_size, wave);
	unsigned barriers = p->gen >= 10 ? 32 : 16;

	if (waves == 1)
		return slots;	/* one-wave groups need no barrier */
	return slots / waves < barriers ? slots / waves : barriers;
}

/* The most waves per SIMD that workgroups of min_wg to max_wg items,
 * each using lds bytes, let the CU hold. */
static unsigned occupancy_by_groups(const struct proc *p, unsigned wave,
				    unsigned lds, unsigned min_wg,
				    unsigned max_wg)
{
	/* In WGP mode (the default on GFX10 and later), a workgroup's
	 * waves may use both CUs of the WGP, and the LDS of both. */
	unsigned per_lds = (p->gen >= 10 ? 2 * p->lds : p->lds) / (lds ? lds : 1);
	unsigned slots = max_waves_per_simd(p) * SIMDS;
	unsigned small_waves, small_groups, many, big_waves, big_groups, few;

	if (!per_lds)
		return 1;
	small_waves = div_up(min_wg, wave);
	small_groups = workgroups_per_cu(p, wave, min_wg);
	if (small_groups > per_lds)
		small_groups = per_lds;
	many = small_waves * small_groups;
	big_waves = div_up(max_wg, wave);
	big_groups = workgroups_per_cu(p, wave, max_wg);
	if (big_groups > per_lds)
		big_groups = per_lds;
	few = big_waves * big_groups;
	if (few >= many) {
		many = few;
	} else {
		/* A group size between the two may fill the slots the
		 * smallest leaves free, with the same number of groups. */
		unsigned spare = (slots - small_groups * small_waves) /
				 small_groups;
		unsigned room = (max_wg - 1) / wave + 1 - small_waves;

		many += small_groups * (spare < room ? spare : room);
	}
	return clamp(div_up(many, SIMDS), 1, max_waves_per_simd(p));
}

static unsigned occupancy_by_sgprs(const struct proc *p, unsigned sgprs)
{
	if (p->gen >= 10)
		return max_waves_per_simd(p);
	return sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7;
}

static unsigned occupancy_by_vgprs(const struct proc *p, unsigned wave,
				   unsigned vgprs)
{
	bool w32 = wave == 32;
	unsigned total, granule, most = max_waves_per_simd(p);

	if (p->flags & F_90A) {
		total = 512, granule = 8;
	} else if (p->gen < 10) {
		total = 256, granule = 4;
	} else if (p->flags & F_VGPR_1_5X) {
		total = w32 ? 1536 : 768, granule = w32 ? 24 : 12;
	} else if (p->flags & F_GFX10_3) {
		total = w32 ? 1024 : 512, granule = w32 ? 16 : 8;
	} else {
		total = w32 ? 1024 : 512, granule = w32 ? 8 : 4;
	}
	if (vgprs < granule)
		return most;
	vgprs = align_up(vgprs, granule);
	return clamp(total / vgprs, 1, most);
}

unsigned amdgpu_occupancy(const char *processor, const struct kernel *k)
{
	const struct proc *p = NULL;
	unsigned occ, by, vgprs, agprs, min_wg = 1, max_wg;

	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (!strcmp(procs[i].name, processor))
			p = &procs[i];
	if (!p || k->wavefront == KERNEL_NONE ||
	    (k->wavefront != 32 && k->wavefront != 64) ||
	    k->sgprs == KERNEL_NONE || k->vgprs == KERNEL_NONE ||
	    k->lds == KERNEL_NONE)
		return 0;
	max_wg = k->max_flat_wg == KERNEL_NONE || !k->max_flat_wg ||
		 k->max_flat_wg > 1024 ? 1024 : k->max_flat_wg;
	if (k->reqd_wg != KERNEL_NONE && k->reqd_wg <= max_wg)
		min_wg = max_wg = k->reqd_wg;
	occ = occupancy_by_groups(p, k->wavefront, k->lds, min_wg, max_wg);
	by = occupancy_by_sgprs(p, k->sgprs);
	if (by < occ)
		occ = by;
	vgprs = k->vgprs;
	agprs = k->agprs == KERNEL_NONE ? 0 : k->agprs;
	/* gfx90a and later: .vgpr_count already counts the one file the
	 * VGPRs (rounded up to 4) and AGPRs share. */
	if (p->flags & F_AGPR_APART)
		vgprs = agprs > vgprs ? agprs : vgprs;
	by = occupancy_by_vgprs(p, k->wavefront, vgprs);
	return by < occ ? by : occ;
}

void amdgpu_occupancy_fill(struct kernel_list *l)
{
	if (l->source != KERNELS_AMDGPU)
		return;
	for (size_t i = 0; i < l->n; i++)
		l->v[i].occupancy = amdgpu_occupancy(l->processor, &l->v[i]);
}
