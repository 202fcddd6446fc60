/* extract_write: extract's outputs (extract_write.c): what an entry's
 * file is called, and writing it. */
#ifndef APPLETS_EXTRACT_WRITE_H
#define APPLETS_EXTRACT_WRITE_H

#include "extract_impl.h"

/* The extension, from the code's first bytes, else from what the
 * container says. */
const char *extract_extension(const uint8_t *p, uint64_t len,
			      const struct inspect_target *t);
/* The file name path is read from ("stdin" for -). */
const char *extract_base_name(const char *path);
/* file[.member...].N.ID.ext, bytes unsafe in a name as '_', cut to 255
 * bytes; malloc'd. */
char *extract_entry_name(const struct job *j, unsigned number, const char *id,
			 size_t id_len, const char *ext);
/* Write len bytes at off of in (or data, when not NULL) to name. */
int extract_write_out(const struct options *o, const struct io_in *in,
		      const char *name, const uint8_t *data, uint64_t off,
		      uint64_t len);
int extract_cmp_claim(const void *pa, const void *pb);

/* The CCOB entry n starts (the walk's stream_ccob): its selected
 * entries' outputs are opened as they come (extract_pend_open: 0 or 1,
 * reported), and written when the walk leaves it (extract_pend_finish). */
void extract_pend_begin(struct job *j, const struct inspect_node *n);
int extract_pend_open(struct job *j, const char *name, uint64_t off,
		      uint64_t size);
int extract_pend_finish(struct job *j);

#endif
