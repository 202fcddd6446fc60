/* extract_write: extract's outputs (extract_write.c): what an entry's
 * file is called, and writing it. */
#ifndef APPLETS_EXTRACT_WRITE_H
#define APPLETS_EXTRACT_WRITE_H

#include "extract_impl.h"

/* The extension, from the code's first bytes, else from what the
 * container says its image is (image_len bytes; NULL: nothing). */
const char *extract_extension(const uint8_t *p, uint64_t len,
			      const char *image, size_t image_len);
/* The file name path is read from ("stdin" for -). */
const char *extract_base_name(const char *path);
/* file[.member...].N.ID.ext, bytes unsafe in a name as '_', cut to 255
 * bytes; malloc'd. */
char *extract_entry_name(const struct job *j, unsigned number, const char *id,
			 size_t id_len, const char *ext);
/* A file an output must not be written over (the one its bytes come
 * from): its device and inode, when has. */
struct extract_file_id {
	bool has;
	dev_t dev;
	ino_t ino;
};
/* Write len bytes at off of in (or data, when not NULL) to name. */
int extract_write_out(const struct options *o,
		      const struct extract_input *in, const char *name, const uint8_t *data, uint64_t off,
		      uint64_t len);
/* Write the len bytes at code to name, never over the file from. */
int extract_write_code(const struct options *o,
		       const struct extract_file_id *from, const char *name,
		       const uint8_t *code, uint64_t len);
int extract_cmp_claim(const void *pa, const void *pb);
/* A failure an offcode_error says, as applet_fail_err says a record:
 * "<what> '<the file it names, else file>': <why>".  Returns 1. */
int extract_fail_record(const char *what, const char *file,
			const offcode_error *r);

/* The CCOB whose bytes as stored are the size at p starts
 * (OFFCODE_WALK_CCOB_LATER): its selected entries' outputs are opened as
 * they come (extract_pend_open: 0 or 1, reported), and written when the
 * walk leaves it (extract_pend_finish). */
void extract_pend_begin(struct job *j, const void *p, uint64_t size);
int extract_pend_open(struct job *j, const char *name, uint64_t off,
		      uint64_t size);
int extract_pend_finish(struct job *j);

#endif
