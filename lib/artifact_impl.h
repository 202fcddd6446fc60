/* artifact_impl: what an open artefact holds (artifact.c), which the
 * library's other parts (code.c, match.c, kernels.c) read. */
#ifndef LIB_ARTIFACT_IMPL_H
#define LIB_ARTIFACT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../include/offcode.h"
#include "../core/err.h"
#include "../core/io_in.h"
#include "../ops/inspect.h"
#include "../ops/inspect_node.h"

struct offcode_input {
	const offcode_artifact *owner;
	unsigned depth;
	size_t parent;		/* its index; (size_t)-1 for the file */
	const char *name;
	size_t name_len;
	const char *format;
	uint64_t offset, size;
	/* An ELF, COFF or PE file's headers (offcode_input_host). */
	struct inspect_host_header host;
	/* A cubin's SM, from its ELF header (offcode_input_cubin_arch); 0
	 * for another input.  (In the hole after host: no larger a record.) */
	unsigned cubin_arch;
	/* Filled when first asked for (input_need), not as it is kept: an
	 * ELF, COFF or PE file's words (words_later: from host), and, in a
	 * streaming walk, its name (name_later: name is then the walk's
	 * name_len bytes, not NUL-terminated, which stay while the input is
	 * open).  Asked for during the visit of a node under it, they are
	 * kept late (a->late, malloc'd, freed as it goes): the arena above
	 * the input is given back with that node.  (Two flags where the
	 * struct had padding: an artefact of 200,000 members keeps as many.) */
	bool words_later, name_later;
	const char *words;	/* offcode_input_words */
};
/* An input's field kept late (offcode_input's). */
struct input_late {
	struct input_late *next;
	size_t input;		/* its index */
	char s[];
};

struct offcode_container {
	const offcode_artifact *owner;
	size_t input;
	unsigned number;
	const char *format;
	bool has_offset, has_version, in_section;
	/* In a streaming walk, its fields are made when first asked for
	 * (container_need), those before its entries alone (fields_head)
	 * or all; made during an entry's visit (fields_for_entry), they go
	 * with it.  (Flags where the struct had padding.) */
	bool fields_later, fields_head, fields_for_entry;
	uint64_t offset, size;
	unsigned version;
	uint32_t section_index;
	const char *section_name, *section_kind;
	uint64_t section_offset, section_size;	/* in the input's file */
	size_t first_entry, entries;
	struct offcode_field *fields;
	size_t nfields;
	bool bad_hash;		/* checked (OFFCODE_OPEN_VERIFY) and wrong */
	/* Its bytes are the file's [offset, offset + size): its entries'
	 * code may be read by walking them alone (code.c). */
	bool alone;
	offcode_error *hash_error;	/* bad_hash's record (freed with it) */
	/* A CCOB walked with OFFCODE_WALK_CCOB_LATER: its bytes as stored
	 * (walk.c's, the walk's own until its end is visited) */
	const uint8_t *stored;
	uint64_t stored_len;
	/* Its node (the presentation hooks read its values:
	 * offcode_container_summary, walk.c): an open's with what it points
	 * to cut off; a streaming walk's whole, what it points to the walk's
	 * until the container's end, its fields made from it when asked for,
	 * an update written over it.  Last: what is before it is zeroed
	 * when it is kept, not the node written over after (keep.c). */
	struct inspect_node node;
};

struct offcode_entry {
	const offcode_artifact *owner;
	size_t container;
	size_t ordinal;		/* in the walk: the nth entry visited */
	unsigned index;
	const char *id, *kind, *triple, *arch;
	size_t id_len, kind_len, triple_len, arch_len;
	const char *processor, *features, *image_kind, *uri;
	uint64_t size, offset;
	bool has_offset, compressed;
	/* Its code is the file's bytes [offset, offset + size), as stored:
	 * read from there, with no walk (code.c). */
	bool direct;
	/* Its image_kind is read from its code when first asked for
	 * (image_kind.c). */
	bool image_later;
	/* In a streaming walk, the fields of the groups in lazy (ENTRY_*)
	 * are filled when an accessor first asks for them (entry_need),
	 * from its node, live during its visit (the handle's live_entry):
	 * what a visitor does not read costs nothing.  (Where the struct
	 * had padding.) */
	unsigned char lazy;
	struct offcode_field *fields;
	size_t nfields;
	/* What selection sees of it (core/select.h): its ID as -t matches
	 * it, its arch as -t matches it. */
	const char *select_id, *select_arch;
	size_t select_id_len, select_arch_len;
	/* du's figures (offcode_entry_du_sizes; ENTRY_DU). */
	uint64_t du_code, du_stored;
	/* ls's columns and place (offcode_entry_cell, _location). */
	struct { const char *s; size_t len; } cells[4];
	unsigned ncells;
	const char *location;
	offcode_error *decode_error;	/* freed with it */
	/* An NVIDIA entry's header (offcode_entry_nv, nv.c), or NULL. */
	const struct offcode_nv_entry *nv;
	/* An entry of a CCOB walked with OFFCODE_WALK_CCOB_LATER: its code's
	 * first bytes (walk.c's, the walk's own) */
	const uint8_t *head;
	size_t head_len;
};
/* An entry's fields filled when first asked for, by group. */
enum {
	ENTRY_NAMES = 1u << 0,	/* kind, triple, arch, processor,
				 * features, image kind */
	ENTRY_URI = 1u << 1,
	ENTRY_FIELDS = 1u << 2,
	ENTRY_SELECT = 1u << 3,	/* select_id, select_arch */
	ENTRY_CELLS = 1u << 4,	/* cells, location */
	ENTRY_ID = 1u << 5,
	ENTRY_DU = 1u << 6,	/* du_code, du_stored */
	ENTRY_LAZY = (1u << 7) - 1,
};

/* Memory the artefact owns, freed with it: a list of blocks. */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

/* A place in the arena, to give back what was taken after it
 * (artifact_release): the walk's records, one node at a time. */
struct arena_mark {
	struct arena_block *block;
	size_t used;
};

struct lib_kernels_node;
struct lib_members;
struct lone_code;

struct offcode_artifact {
	char *path;
	struct io_in in;	/* a file's, mapped or read (in.map/in.heap) */
	bool is_file;
	const uint8_t *data;	/* its bytes (in's, or the caller's) */
	size_t len;
	uint8_t *copy;		/* offcode_open_memory's copy, or NULL */
	struct inspect_opts walk;
	bool verify;
	/* A streaming walk's handle (walk.c): it holds the open nodes alone,
	 * so its containers' entries are not there to be looked up. */
	bool streaming;
	struct offcode_input *inputs;
	size_t ninputs, cap_inputs;
	struct offcode_container *containers;
	size_t ncontainers, cap_containers;
	struct offcode_entry *entries;
	size_t nentries, cap_entries;
	struct arena_block *arena;
	offcode_error *last;
	/* The last entry's code read (code.c), so that a size query and the
	 * read that follows decode once. */
	size_t cached;		/* its ordinal + 1; 0: none */
	uint8_t *cache;
	uint64_t cache_len;
	/* Kernel lists handed out (kernels.c), and how offcode_close frees
	 * them: set by kernels.c when it hands one out (a part is not called
	 * back by name). */
	struct lib_kernels_node *kernels;
	void (*free_kernels)(offcode_artifact *a);
	/* The options it was opened with (all fields set), for the files of
	 * a package, which are opened as it was. */
	struct offcode_open_options opts;
	/* A package's or an image's layers (members.c); NULL for a file.
	 * Set by members.c with the hooks by which offcode_close frees them
	 * and code.c reads the code of their files' entries (a part is not
	 * called back by name). */
	struct lib_members *members;
	void (*free_members)(offcode_artifact *a);
	int (*members_code)(offcode_artifact *a, size_t only,
			    offcode_code_fn fn, void *ctx);
	/* A streaming walk's state (walk.c), while it goes: what fills its
	 * records' fields when first asked for (entry_need, input_need),
	 * and the input being visited (its late fields go in the arena). */
	struct keep *live_keep;
	const struct offcode_input *visiting;
	bool in_entry;		/* an entry's visit goes on */
	const struct inspect_node *live_entry;	/* its node, entries[0]'s */
	struct input_late *late;	/* inputs' fields kept late */
	/* Whether it is one code object (du.c), once asked; NULL before. */
	struct lone_code *lone;
	bool lone_candidate;	/* input 0 may be one (keep.c) */
	/* Whether it is offload code alone (du.c), once asked. */
	bool offload_only_known, offload_only;
	/* offcode_close_file: the file is let go of (file_closed), at once
	 * or, asked from a callback of a call that reads it (reading: how
	 * many are under way), when the last of them returns; what reads it
	 * fails from then on (artifact_file).  members.c's hook lets go of
	 * what a package or an image holds of its own (an archive's map). */
	bool file_closed;
	unsigned reading;
	void (*close_members_file)(offcode_artifact *a);
};

/* The arena's place now, and everything allocated after it freed. */
struct arena_mark artifact_mark(const offcode_artifact *a);
void artifact_release(offcode_artifact *a, struct arena_mark m);

/* The interrupted hook of opt, as far as its size holds it (none: NULL). */
struct io_stop artifact_stop(const struct offcode_open_options *opt);
/* A handle named name, opened with opt (NULL: the defaults), holding
 * nothing yet; NULL when out of memory. */
offcode_artifact *artifact_new(const char *name,
			       const struct offcode_open_options *opt);
/* Copy of len bytes at s with a NUL after them, owned by a (NULL when s
 * is); NULL out of memory with *oom set. */
const char *artifact_keep(offcode_artifact *a, const char *s, size_t len,
			  bool *oom);
/* Memory of size bytes (zeroed) owned by a, or NULL. */
void *artifact_alloc(offcode_artifact *a, size_t size);
/* The same, its bytes as they were (16-aligned): for what is written
 * whole at once. */
void *artifact_take(offcode_artifact *a, size_t size);
/* Record the failure e (or a library one: code, reason) as a's last
 * error; return its code. */
int artifact_fail(offcode_artifact *a, const struct err *e);
int artifact_fail_code(offcode_artifact *a, enum offcode_code code,
		       const char *reason);
/* a's last error handed to the caller of a public call: into *err (the
 * shared record of out of memory as NULL, which is none to free) and no
 * longer a's; nothing when err is NULL. */
void artifact_give_last(offcode_artifact *a, offcode_error **err);
/* a's bytes: fd's file (duplicated, mapped or read), as is_file: 0, or a
 * failure's code with a's last error set. */
int artifact_map_fd(offcode_artifact *a, int fd);
/* The late fields of inputs [from, ninputs) freed (walk.c, as they go; all of them at close). */
void artifact_input_free_late(offcode_artifact *a, size_t from);
static inline void input_free_late(offcode_artifact *a, size_t from)
{
	if (a->late)	/* (seldom) */
		artifact_input_free_late(a, from);
}
/* 0 while a's file is open; after offcode_close_file, OFFCODE_INVALID
 * with a's last error "'<path>': the artefact's file is closed": the
 * guard of every call that reads the file's bytes. */
int artifact_file(offcode_artifact *a);
/* A call that reads a's file and calls the caller back begins (0, or
 * artifact_file's failure) and ends: a file closed from a callback is let
 * go of when the last such call ends, its bytes read until then. */
int artifact_reading(offcode_artifact *a);
void artifact_read_done(offcode_artifact *a);
/* Whether e is an entry of a (not one of another artefact's). */
bool artifact_owns_entry(const offcode_artifact *a, const offcode_entry *e);

#endif
