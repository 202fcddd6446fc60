/* kpack_databases: the kernel databases that rocm-kpack's splitter moves
 * into the artifact of their GPU (python/rocm_kpack/database_handlers.py,
 * read, never copied): one row each, named as --split-databases names
 * them, in the order the splitter lists them. */
#ifndef OPS_KPACK_DATABASES_H
#define OPS_KPACK_DATABASES_H

#include <stdbool.h>
#include <stddef.h>

struct kpack_database {
	const char *name;
	/* Whether the file at rel (its path in its prefix, names split by
	 * '/') is one of this database's; if so its GPU, written to arch
	 * (n bytes, NUL-terminated; a GPU too long for it is no match). */
	bool (*detect)(const char *rel, char *arch, size_t n);
};

extern const struct kpack_database kpack_databases[];
extern const size_t kpack_ndatabases;

/* The row called name, or NULL. */
const struct kpack_database *kpack_database_named(const char *name);

#endif
