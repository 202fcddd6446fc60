/* kernels: an entry's kernels and what each costs, for liboffcode
 * (include/offcode.h), read from its code (formats/kernels_parse.h) as
 * ls --kernels reads them. */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_impl.h"
#include "code.h"
#include "error.h"
#include "../ops/amdgpu_occupancy.h"
#include "../formats/kernels.h"
#include "../formats/kernels_parse.h"

struct offcode_kernel {
	const struct kernel *k;
	enum kernel_source source;
	/* demangled, or the symbol: NULL until first asked for (a listing
	 * without names, ls --no-demangle, demangles none) */
	char *name;
};

/* A list handed out, linked in its artefact till freed. */
struct lib_kernels_node {
	struct lib_kernels_node *next;
	struct kernel_list list;
	struct offcode_kernel *v;
};

struct offcode_kernels {
	struct lib_kernels_node node;
};

static void free_all(offcode_artifact *a)
{
	while (a->kernels)
		offcode_kernels_free(a, (const offcode_kernels *)a->kernels);
}

/* The kernels of the code object at code, a list of no artefact's: 1
 * with *out; 0 for bytes that are no code object the readers know; -1
 * with *er saying what is damaged; -2 out of memory. */
static int make(const uint8_t *code, uint64_t size,
		struct lib_kernels_node **out, struct err *er)
{
	struct lib_kernels_node *node;
	struct kernel_list l;
	int rc;

	if (size > SIZE_MAX)
		return 0;
	if ((rc = kernels_parse(code, (size_t)size, &l, er)) != 1)
		return rc < 0 && er->code == ERR_NOMEM ? -2 : rc;
	amdgpu_occupancy_fill(&l);
	/* The node and its kernels in one block (a listing makes one for
	 * each code object). */
	if (l.n > (SIZE_MAX - sizeof(struct offcode_kernels)) /
		  sizeof(*node->v) ||
	    !(node = malloc(sizeof(struct offcode_kernels) +
			    l.n * sizeof(*node->v)))) {
		kernels_free(&l);
		return -2;
	}
	node->next = NULL;
	node->v = (struct offcode_kernel *)((struct offcode_kernels *)node + 1);
	node->list = l;
	for (size_t i = 0; i < l.n; i++)
		node->v[i] = (struct offcode_kernel){ &node->list.v[i],
						      l.source, NULL };
	*out = node;
	return 1;
}

static void node_free(struct lib_kernels_node *node)
{
	for (size_t i = 0; i < node->list.n; i++)
		if (node->v[i].name != node->list.v[i].name)
			free(node->v[i].name);
	kernels_free(&node->list);
	free(node);
}

/* The kernels of the code object at code, handed out as a's. */
static int hand_out(offcode_artifact *a, const uint8_t *code, uint64_t size,
		    const offcode_kernels **out)
{
	struct lib_kernels_node *node;
	struct err er;

	switch (make(code, size, &node, &er)) {
	case 1:
		break;
	case -1:
		return artifact_fail(a, &er);
	case -2:
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	default:
		return artifact_fail_code(a, OFFCODE_NOTHING, "its code is no "
					  "AMDGPU code object, cubin or PTX");
	}
	node->next = a->kernels;
	a->kernels = node;
	a->free_kernels = free_all;
	*out = (const offcode_kernels *)node;
	return 0;
}

int offcode_entry_kernels(offcode_artifact *a, const offcode_entry *e,
			  const offcode_kernels **out)
{
	const uint8_t *code;
	uint64_t size;
	int rc;

	if (!a)
		return OFFCODE_INVALID;
	if (!out)
		return artifact_fail_code(a, OFFCODE_INVALID, "out is NULL");
	*out = NULL;
	if ((rc = code_at_hand(a, e, &code, &size)))
		return rc;
	return hand_out(a, code, size, out);
}

int offcode_artifact_kernels(offcode_artifact *a, const offcode_kernels **out)
{
	int rc;

	if (!a)
		return OFFCODE_INVALID;
	if (!out)
		return artifact_fail_code(a, OFFCODE_INVALID, "out is NULL");
	*out = NULL;
	/* As ls: a file in which the walk found nothing, read whole (a
	 * package's or an image's files are artefacts of their own). */
	if (a->ncontainers || a->members || a->ninputs != 1)
		return artifact_fail_code(a, OFFCODE_NOTHING, "the file holds "
					  "containers, it is no code object");
	if ((rc = artifact_file(a)))
		return rc;
	return hand_out(a, a->data, a->len, out);
}

void offcode_kernels_free(offcode_artifact *a, const offcode_kernels *k)
{
	struct lib_kernels_node **p;

	if (!a || !k)
		return;
	for (p = &a->kernels; *p; p = &(*p)->next)
		if (*p == &k->node)
			break;
	if (!*p)
		return;		/* not one of a's */
	{
		struct lib_kernels_node *node = *p;

		*p = node->next;
		node_free(node);
	}
}

int offcode_code_kernels(const void *code, size_t size, offcode_kernels **out,
			 offcode_error **err)
{
	struct lib_kernels_node *node;
	struct err er;

	if (err)
		*err = NULL;
	if (out)
		*out = NULL;
	if (!out || (!code && size))
		return error_give(error_new(OFFCODE_INVALID, !out ?
					    "out is NULL" : "code is NULL"),
				  err);
	switch (make(code, size, &node, &er)) {
	case 1:
		*out = (offcode_kernels *)node;
		return 0;
	case -1:
		return error_give(error_from(&er, NULL), err);
	case -2:
		return error_give(NULL, err);
	default:
		return OFFCODE_NOTHING;
	}
}

void offcode_code_kernels_free(offcode_kernels *k)
{
	if (k)
		node_free(&k->node);
}

static const char *or_null(const char *s)
{
	return s[0] ? s : NULL;
}

const char *offcode_kernels_source(const offcode_kernels *k)
{
	return kernels_source_name(k->node.list.source);
}

unsigned offcode_kernels_code_object_version(const offcode_kernels *k)
{
	return k->node.list.source == KERNELS_AMDGPU ? k->node.list.co_version
						     : 0;
}

const char *offcode_kernels_target(const offcode_kernels *k)
{
	return or_null(k->node.list.target);
}

const char *offcode_kernels_target_id(const offcode_kernels *k)
{
	return k->node.list.source == KERNELS_AMDGPU ?
	       or_null(k->node.list.target_id) : NULL;
}

const char *offcode_kernels_processor(const offcode_kernels *k)
{
	return or_null(k->node.list.processor);
}

const char *offcode_kernels_ptx_version(const offcode_kernels *k)
{
	return or_null(k->node.list.ptx_version);
}

size_t offcode_kernels_count(const offcode_kernels *k)
{
	return k->node.list.n;
}

const offcode_kernel *offcode_kernels_at(const offcode_kernels *k, size_t i)
{
	return i < k->node.list.n ? &k->node.v[i] : NULL;
}

const char *offcode_kernel_symbol(const offcode_kernel *k)
{
	return k->k->name;
}

const char *offcode_kernel_name(const offcode_kernel *k)
{
	/* Demangled when first asked for, kept by its list (which is the
	 * caller's own or its artefact's: one thread at a time). */
	struct offcode_kernel *m = (struct offcode_kernel *)k;

	if (!m->name) {
		char *d = cplus_demangle(k->k->name, DMGL_PARAMS | DMGL_ANSI |
					 DMGL_VERBOSE);

		m->name = d ? d : k->k->name;
	}
	return m->name;
}

const char *offcode_resource_name(enum offcode_resource r)
{
	switch (r) {
	case OFFCODE_RES_SGPRS:
		return "sgprs";
	case OFFCODE_RES_VGPRS:
		return "vgprs";
	case OFFCODE_RES_AGPRS:
		return "agprs";
	case OFFCODE_RES_SGPR_SPILLS:
		return "sgpr_spills";
	case OFFCODE_RES_VGPR_SPILLS:
		return "vgpr_spills";
	case OFFCODE_RES_LDS_BYTES:
		return "lds_bytes";
	case OFFCODE_RES_SCRATCH_BYTES_PER_LANE:
		return "scratch_bytes_per_lane";
	case OFFCODE_RES_KERNARG_BYTES:
		return "kernarg_bytes";
	case OFFCODE_RES_WAVEFRONT_SIZE:
		return "wavefront_size";
	case OFFCODE_RES_MAX_FLAT_WORKGROUP_SIZE:
		return "max_flat_workgroup_size";
	case OFFCODE_RES_DYNAMIC_STACK:
		return "dynamic_stack";
	case OFFCODE_RES_OCCUPANCY_WAVES_PER_SIMD:
		return "occupancy_waves_per_simd";
	case OFFCODE_RES_REGISTERS:
		return "registers";
	case OFFCODE_RES_STACK_BYTES:
		return "stack_bytes";
	case OFFCODE_RES_SHARED_BYTES:
		return "shared_bytes";
	case OFFCODE_RES_LOCAL_BYTES:
		return "local_bytes";
	case OFFCODE_RES_MAX_THREADS:
		return "max_threads";
	case OFFCODE_RESOURCES:
		break;
	}
	return NULL;
}

/* v, or false when the code object gives none (KERNEL_NONE). */
static bool figure(uint32_t v, uint64_t *value)
{
	if (v == KERNEL_NONE)
		return false;
	if (value)
		*value = v;
	return true;
}

bool offcode_kernel_resource(const offcode_kernel *k, enum offcode_resource r,
			     uint64_t *value)
{
	const struct kernel *x = k->k;
	bool amd = k->source == KERNELS_AMDGPU;
	bool cubin = k->source == KERNELS_CUBIN;

	switch (r) {
	case OFFCODE_RES_SGPRS:
		return amd && figure(x->sgprs, value);
	case OFFCODE_RES_VGPRS:
		return amd && figure(x->vgprs, value);
	case OFFCODE_RES_AGPRS:
		return amd && figure(x->agprs, value);
	case OFFCODE_RES_SGPR_SPILLS:
		return amd && figure(x->sgpr_spills, value);
	case OFFCODE_RES_VGPR_SPILLS:
		return amd && figure(x->vgpr_spills, value);
	case OFFCODE_RES_LDS_BYTES:
		return amd && figure(x->lds, value);
	case OFFCODE_RES_SCRATCH_BYTES_PER_LANE:
		return amd && figure(x->scratch, value);
	case OFFCODE_RES_KERNARG_BYTES:
		return amd && figure(x->kernarg_size, value);
	case OFFCODE_RES_WAVEFRONT_SIZE:
		return amd && figure(x->wavefront, value);
	case OFFCODE_RES_MAX_FLAT_WORKGROUP_SIZE:
		return amd && figure(x->max_flat_wg, value);
	case OFFCODE_RES_DYNAMIC_STACK:
		return amd && x->dynamic_stack >= 0 &&
		       figure((uint32_t)x->dynamic_stack, value);
	case OFFCODE_RES_OCCUPANCY_WAVES_PER_SIMD:
		return amd && x->occupancy && figure(x->occupancy, value);
	case OFFCODE_RES_REGISTERS:
		return cubin && figure(x->regs, value);
	case OFFCODE_RES_STACK_BYTES:
		return cubin && figure(x->stack, value);
	case OFFCODE_RES_SHARED_BYTES:
		return cubin && figure(x->shared, value);
	case OFFCODE_RES_LOCAL_BYTES:
		return cubin && figure(x->local, value);
	case OFFCODE_RES_MAX_THREADS:
		return cubin && figure(x->max_threads, value);
	case OFFCODE_RESOURCES:
		break;
	}
	return false;
}

bool offcode_kernel_constant_bytes(const offcode_kernel *k, unsigned bank,
				   uint64_t *value)
{
	const struct kernel *x = k->k;

	if (k->source != KERNELS_CUBIN ||
	    bank >= sizeof(x->constant) / sizeof(x->constant[0]))
		return false;
	return figure(x->constant[bank], value);
}

bool offcode_kernel_descriptor(const offcode_kernel *k,
			       struct offcode_kernel_descriptor *d)
{
	const struct kernel *x = k->k;

	if (k->source != KERNELS_AMDGPU || !x->has_kd)
		return false;
	if (d)
		*d = (struct offcode_kernel_descriptor){
			.offset = x->kd.offset,
			.group_segment_fixed_size =
				x->kd.group_segment_fixed_size,
			.private_segment_fixed_size =
				x->kd.private_segment_fixed_size,
			.kernarg_size = x->kd.kernarg_size,
			.compute_pgm_rsrc1 = x->kd.rsrc1,
			.compute_pgm_rsrc2 = x->kd.rsrc2,
			.compute_pgm_rsrc3 = x->kd.rsrc3,
			.kernel_code_properties = x->kd.properties,
		};
	return true;
}
