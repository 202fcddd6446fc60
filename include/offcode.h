/* offcode.h: liboffcode, the device code of a build artefact for other
 * programs -- the library under the `offload` tool's ls, extract and prune.
 *
 * An artefact (an ELF or COFF/PE object, executable or library, a static
 * archive, an LLVM bitcode module, a bare offload bundle, CCOB, offload
 * package, NVIDIA fatbin, or an AMD kpack archive) is opened from a path, a
 * file descriptor or a memory buffer, and its headers are walked once:
 *
 *     artefact -> inputs (the file, archive members)
 *              -> containers (bundle, object-bundle, ccob, package,
 *                             nv-fatbin, kpack)
 *              -> entries (one code object each)
 *
 * Every value below is the one `offload ls --json` prints under the same
 * key (schema version 5, man/offload-ls.1), so a program may check itself
 * against the tool.  Debian, wheel and conda packages and container
 * images (an OCI layout directory, an oci:, oci-archive: or
 * docker-archive: spec, a tar archive named by its path) are artefacts
 * too: their files are inputs (see "packages and images" below).  They
 * are told apart as the tool tells them: a .deb by its bytes, a wheel
 * (*.whl) and a conda package (*.conda, *.tar.bz2) by the name's suffix
 * and the bytes, so an fd or a buffer is one only when named so; an image
 * by its path alone (by fd or buffer: OFFCODE_UNSUPPORTED).
 * offcode_prune does not write them (OFFCODE_UNSUPPORTED; `offload
 * prune` does).
 *
 * Rules that hold for every function:
 *   - Nothing is printed, nothing exits, no signal handler is installed
 *     but by offcode_catch_sigbus, which the caller asks for.  A file is
 *     mapped: one truncated (by another process, or by the caller's
 *     visitor) while it is open raises SIGBUS where its lost pages are
 *     read, as any mapped file does, unless offcode_catch_sigbus was
 *     called: then the read goes on over zero pages and the call reading
 *     fails with OFFCODE_CHANGED naming the file (see it below).
 *   - Every object the library returns is owned by the artefact it came
 *     from and lives until offcode_close(), unless said otherwise.
 *     Strings are NUL-terminated; where a value may hold NUL bytes (IDs
 *     read from a file), the accessor also gives its length.
 *   - There is no global mutable state: two artefacts may be used at once
 *     from two threads.  One artefact must not be used from two threads at
 *     once (its last error, its cache of decoded code).  offcode_prune
 *     calls on several threads write one after another.
 *   - A function that can fail returns 0 (OFFCODE_OK) or an enum
 *     offcode_code; the record of the failure is offcode_last_error() of
 *     the artefact, or, for the open and prune functions that have no
 *     artefact yet, an offcode_error the caller frees.
 *
 * Link with `pkg-config --cflags --libs offcode`.  Only names starting
 * with offcode_ / OFFCODE_ are exported. */
#ifndef OFFCODE_H
#define OFFCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define OFFCODE_API __attribute__((visibility("default")))
#else
#define OFFCODE_API
#endif

/* Catch the SIGBUS of a read of a file the library mapped that was cut
 * short since (opt-in: a library installs no handler unasked).  Installed
 * once per process, whichever thread calls, however often: a SIGBUS at an
 * address in a map the library made (an artefact's file, a walk's, an
 * offcode_source's) puts zero pages over the rest of that map, notes it
 * as cut, and the read goes on; the walk, open or read on it then fails
 * with OFFCODE_CHANGED: a walk at its next node (none read from the zero
 * pages is handed over) or its end (the bytes past the cut inside its
 * last page read as zeros with no fault, found cut only then, by the
 * file's size), an open at its end, their reason "file changed size
 * while being read" and their path the file; offcode_entry_read and the
 * calls that read code "'<file>': cut short since it was opened".  Bytes
 * the caller reads itself (offcode_source_bytes, offcode_artifact_bytes)
 * read as zeros there.  Any other SIGBUS goes to
 * the handler installed before this one (called as it asked to be:
 * SA_SIGINFO or not), or does what the disposition before said: ignored
 * when sent and ignored, else the default, the process killed by it.  A
 * handler installed after this one must pass SIGBUS on to it likewise,
 * with its siginfo: one that re-raises it (Python's faulthandler, when
 * enabled after this call) loses the fault's address, and the process
 * dies of a cut as it would without this handler.
 * 0, or OFFCODE_SYSTEM when sigaction failed (no record). */
OFFCODE_API int offcode_catch_sigbus(void);

/* The library's version: offcode_version() at run time. */
#define OFFCODE_VERSION_MAJOR 0
#define OFFCODE_VERSION_MINOR 1
#define OFFCODE_VERSION_PATCH 0
OFFCODE_API const char *offcode_version(void);

/* ---------------------------------------------------------------- errors */

/* What kind of failure, to branch on (never match a message's text).  The
 * first ten are the codes of the tool's own records (`error_code` in ls
 * --json says the same names: offcode_code_name). */
enum offcode_code {
	OFFCODE_OK = 0,
	OFFCODE_OTHER,		/* none of the below */
	OFFCODE_SYSTEM,		/* a system call failed: errno says why */
	OFFCODE_TRUNCATED,	/* the data end before what they declare */
	OFFCODE_MALFORMED,	/* the data are not of the format they claim */
	OFFCODE_DECOMPRESS,	/* a codec refused the data */
	OFFCODE_NOMEM,		/* out of memory */
	OFFCODE_NOTHING,	/* nothing of what was asked for is there */
	OFFCODE_FATAL,		/* where LLVM's own tool stops (fatal error) */
	OFFCODE_CHANGED,	/* a file is not the one read before */
	/* The library's own: */
	OFFCODE_INVALID,	/* a bad argument (NULL, an entry of another
				 * artefact, a size field too small) */
	OFFCODE_RANGE,		/* the caller's buffer is too small */
	OFFCODE_UNSUPPORTED,	/* what this version does not do */
	OFFCODE_BAD_HASH,	/* a CCOB's hash does not match its code */
};

/* "ok", "other", "system", "truncated", "malformed", "decompress",
 * "out-of-memory", "nothing", "fatal", "changed", "invalid", "range",
 * "unsupported", "bad-hash"; NULL for a value not in the enum. */
OFFCODE_API const char *offcode_code_name(enum offcode_code code);

/* A failure: a chain of records, the outermost first.  Each link has a
 * code, an errno (0 if none), an offset into the data it was reading (when
 * known) and its message; the outer link's message holds the inner ones'
 * ("section .hip_fatbin: CCOB at offset 4096: <inner>").  The innermost
 * says what went wrong first; the outermost what the caller was doing. */
typedef struct offcode_error offcode_error;

OFFCODE_API enum offcode_code offcode_error_code(const offcode_error *err);
OFFCODE_API int offcode_error_errno(const offcode_error *err);
/* The line `offload ls` prints after "error: cannot list '<file>': ", the
 * path of the file concerned left out: the reason alone. */
OFFCODE_API const char *offcode_error_reason(const offcode_error *err);
/* The file the failure concerns ("" when none). */
OFFCODE_API const char *offcode_error_path(const offcode_error *err);
/* "'<path>': <reason>", or the reason when no file is concerned. */
OFFCODE_API const char *offcode_error_message(const offcode_error *err);
/* The offset in the data at which it failed: true with *offset set, or
 * false when the record does not say. */
OFFCODE_API bool offcode_error_offset(const offcode_error *err,
				      uint64_t *offset);
/* The record this one wraps (the next link inward), or NULL for the
 * innermost.  It belongs to err. */
OFFCODE_API const offcode_error *offcode_error_cause(const offcode_error *err);
/* Free a record the caller owns (from offcode_open_* or offcode_prune);
 * NULL is fine.  Never for offcode_last_error's. */
OFFCODE_API void offcode_error_free(offcode_error *err);

/* ------------------------------------------------------------- artefacts */

typedef struct offcode_artifact offcode_artifact;
typedef struct offcode_input offcode_input;
typedef struct offcode_container offcode_container;
typedef struct offcode_entry offcode_entry;

/* Flags of offcode_open_options. */
enum {
	/* Inflate every CCOB whole and check its hash, and decode every
	 * compressed NVIDIA entry, at open (`ls --verify`): a mismatch is
	 * shown by offcode_container_field "hash_check" and makes reading its
	 * code fail with OFFCODE_BAD_HASH. */
	OFFCODE_OPEN_VERIFY = 1u << 0,
	/* Keep no copy of a memory buffer (offcode_open_memory): the caller
	 * keeps it unchanged until offcode_close. */
	OFFCODE_OPEN_BORROW = 1u << 1,
	/* A package or an image is opened without its files being walked:
	 * offcode_layer_walk hands them over one at a time (memory stays
	 * that of one file, however many the image holds).  No effect on
	 * other files. */
	OFFCODE_OPEN_STREAM = 1u << 2,
	/* A damaged file still fails to open, but *out is then the artefact
	 * of what its walk found before the damage (the caller closes it),
	 * as `offload du` counts it. */
	OFFCODE_OPEN_PARTIAL = 1u << 3,
	/* Headers alone: a bundle entry's image_kind, which needs its code's
	 * first bytes (a page read for each entry), is NULL
	 * (`offload du` reads no page of code). */
	OFFCODE_OPEN_HEADERS_ONLY = 1u << 4,
};

/* How to open: a versioned struct.  Set size to sizeof(struct
 * offcode_open_options) and zero what you do not set; NULL options are
 * the defaults.  A later version only adds fields at the end. */
struct offcode_open_options {
	size_t size;
	unsigned flags;			/* OFFCODE_OPEN_* */
	/* The largest uncompressed size a CCOB header is believed, and the
	 * largest ratio of uncompressed to compressed bytes (the tool's
	 * OFFLOAD_CCOB_MAX_SIZE and OFFLOAD_CCOB_MAX_RATIO; the environment
	 * is not read).  0: the tool's defaults. */
	uint64_t ccob_max_size;
	uint64_t ccob_max_ratio;
	/* Asked when a read of a pipe, FIFO or terminal that the open waits
	 * on, or a FIFO path's open waiting for its writer, is cut short by
	 * a signal (EINTR), as a program whose handlers only note a signal
	 * (Python's) needs: nonzero stops the open,
	 * which fails with OFFCODE_SYSTEM, offcode_error_errno EINTR and
	 * the reason "Interrupted system call"; 0 reads (or waits) on.
	 * NULL (or a struct too short to hold it): the read is tried again,
	 * always, and a FIFO's open fails with EINTR, as before the hook.
	 * (Added after the fields above.) */
	int (*interrupted)(void *ctx);
	void *interrupted_ctx;
};

/* Open an artefact and walk its headers.  On success *out is the handle
 * and 0 is returned; on failure *out is NULL, an enum offcode_code is
 * returned and, when err is not NULL, *err is a record the caller frees
 * with offcode_error_free (NULL when even that could not be allocated).
 * A file damaged anywhere is refused with the diagnosis `offload ls`
 * gives.  A file of no format the tool reads opens, with no containers
 * (its input's format is "other" or "text").
 *
 * offcode_open_path: path is mapped, not read ("-" is not standard input).
 * offcode_open_fd: the descriptor is duplicated (the caller keeps and
 * closes fd); name is what messages call it (NULL: "<fd N>").
 * offcode_open_memory: len bytes at buf, copied unless OFFCODE_OPEN_BORROW;
 * name as above (NULL: "<memory>"). */
OFFCODE_API int offcode_open_path(const char *path,
				  const struct offcode_open_options *options,
				  offcode_artifact **out, offcode_error **err);
OFFCODE_API int offcode_open_fd(int fd, const char *name,
				const struct offcode_open_options *options,
				offcode_artifact **out, offcode_error **err);
OFFCODE_API int offcode_open_memory(const void *buf, size_t len,
				    const char *name,
				    const struct offcode_open_options *options,
				    offcode_artifact **out, offcode_error **err);
/* Free the artefact and everything it owns; NULL is fine. */
OFFCODE_API void offcode_close(offcode_artifact *a);
/* Let go of the file a reads: its descriptor and mapping, the copy
 * offcode_open_memory made, or the caller's buffer (OFFCODE_OPEN_BORROW:
 * no longer read after this returns, so the caller may free it), an
 * image archive's map, and the cache of decoded code.  What a lists stays
 * readable until offcode_close: inputs, containers, entries and every
 * field and text of theirs (names, IDs, target IDs, URIs, fields, NVIDIA
 * headers, du's sizes and names, matching), layers and manifests (and
 * offcode_manifest_root of layers walked before), and what was handed out
 * (kernel lists, kpack archives' paths).  What must read the file's bytes
 * fails from now on with OFFCODE_INVALID, a's last error "'<path>': the
 * artefact's file is closed": an entry's code in any of its forms
 * (offcode_entry_read, _write_fd, _write_path, offcode_code_foreach,
 * _foreach_path), its kernels and the file's (offcode_entry_kernels,
 * offcode_artifact_kernels), a split binary's archives
 * (offcode_kpack_archives), a package's or an image's layers walked again
 * (offcode_layer_walk, _walk_bytes); and, with that error set, an image
 * kind not yet read is NULL (as for a file that no longer has it),
 * offcode_artifact_code_object and offcode_artifact_offload_only not
 * asked before are false, offcode_artifact_bytes is NULL.
 * offcode_artifact_size stays the file's size.  Called from a callback of
 * a call that reads the file (offcode_code_foreach, _foreach_path,
 * offcode_layer_walk, _walk_bytes), the file is let go of when that call
 * returns, and the call hands over nothing more: it fails as above if
 * there was more to hand over (a file of a package handed over stays
 * readable until the callback returns, its bytes the walk's).  NULL, or a
 * file already let go of: nothing. */
OFFCODE_API void offcode_close_file(offcode_artifact *a);

/* The record of the last call on a that failed, or NULL when none has.
 * Valid until the next call on a that fails, or offcode_close. */
OFFCODE_API const offcode_error *offcode_last_error(const offcode_artifact *a);

/* The name it was opened by. */
OFFCODE_API const char *offcode_artifact_path(const offcode_artifact *a);
/* Its size in bytes. */
OFFCODE_API uint64_t offcode_artifact_size(const offcode_artifact *a);

/* ---------------------------------------------------------------- inputs */

/* Input 0 is the file itself; an archive's members follow it, each after
 * its archive, in the order they lie (a member of a member after it).
 * Members without device code are listed too (`ls` leaves them out). */
OFFCODE_API size_t offcode_input_count(const offcode_artifact *a);
OFFCODE_API const offcode_input *offcode_input_at(const offcode_artifact *a,
						  size_t i);
/* 0 for the file, 1 for a member of it, 2 for a member of a member. */
OFFCODE_API unsigned offcode_input_depth(const offcode_input *in);
/* The input this one is a member of, or NULL for the file. */
OFFCODE_API const offcode_input *offcode_input_parent(const offcode_input *in);
/* The path (depth 0) or the member's name ("path" or "member"). */
OFFCODE_API const char *offcode_input_name(const offcode_input *in,
					   size_t *len);
/* "elf", "coff", "pe", "archive", "raw", "bitcode", "thin-member",
 * "text", "other" ("format"). */
OFFCODE_API const char *offcode_input_format(const offcode_input *in);
/* Where it is in the file ("offset", "size"). */
OFFCODE_API uint64_t offcode_input_offset(const offcode_input *in);
OFFCODE_API uint64_t offcode_input_size(const offcode_input *in);

/* What an ELF, COFF or PE input's own headers say: the "elf", "coff" and
 * "pe" objects of ls --json, and the words `offload ls` prints after
 * "<file>: ".  A versioned struct: set size to sizeof(struct
 * offcode_host) before the call. */
struct offcode_host {
	size_t size;
	const char *format;	/* "elf", "coff" or "pe" */
	/* ELF: 32 or 64 ("class"); PE: 64 for PE32+ ("pe32plus"), else 32;
	 * COFF: 0 (the header does not say). */
	unsigned bits;
	bool big_endian;	/* ELF ("byte_order" "big") */
	/* ELF: "relocatable", "executable", "shared object", "core file",
	 * NULL for another e_type ("type"; type_number is e_type). */
	const char *type;
	unsigned type_number;
	/* "x86-64", "AMDGPU", "CUDA", "ARM64", ... or NULL for a machine not
	 * named ("machine"); machine_number is e_machine or COFF's Machine. */
	const char *machine;
	unsigned machine_number;
	bool bigobj;		/* COFF: a bigobj file */
	bool dll;		/* PE: a DLL, not an executable */
	/* "ELF 64-bit LSB shared object, x86-64", "COFF bigobj object,
	 * x86-64", "PE32+ DLL, ARM64" (a type or machine not named: "type 9",
	 * "machine 0x1234"), NUL-terminated in the caller's struct. */
	char description[80];
};
/* in's headers into *h: 0; OFFCODE_NOTHING for an input of another format
 * (an archive, bitcode, a bare container...); OFFCODE_INVALID when h is
 * NULL or h->size too small. */
OFFCODE_API int offcode_input_host(const offcode_input *in,
				   struct offcode_host *h);

/* ------------------------------------------------------------ containers */

/* Every container of the artefact, in the order `ls` lists them (members'
 * after their archive's). */
OFFCODE_API size_t offcode_container_count(const offcode_artifact *a);
OFFCODE_API const offcode_container *
offcode_container_at(const offcode_artifact *a, size_t i);
/* The input it is in. */
OFFCODE_API const offcode_input *
offcode_container_input(const offcode_container *c);
/* Its number within its input, from 0 ("number"). */
OFFCODE_API unsigned offcode_container_number(const offcode_container *c);
/* "bundle", "object-bundle", "ccob", "package", "nv-fatbin", "kpack"
 * ("format"). */
OFFCODE_API const char *offcode_container_format(const offcode_container *c);
/* Its offset in the file: false for one whose bytes are bits of a bitcode
 * module (null in ls --json). */
OFFCODE_API bool offcode_container_offset(const offcode_container *c,
					  uint64_t *offset);
OFFCODE_API uint64_t offcode_container_size(const offcode_container *c);
/* Its header's version: false for a kind without one (a bundle). */
OFFCODE_API bool offcode_container_version(const offcode_container *c,
					   unsigned *version);
/* The section it lies in (ELF, COFF and PE): true with its index, name
 * (".hip_fatbin") and kind ("hip-fatbin", "llvm-offloading",
 * "nv-fatbin", "nv-relfatbin"); false for a container outside sections.
 * name and kind may be NULL. */
OFFCODE_API bool offcode_container_section(const offcode_container *c,
					   uint32_t *index, const char **name,
					   const char **kind);
/* Where that section lies in its input's file ("offset" and "size" of
 * the section in ls --json): true with *offset and *size (either may be
 * NULL), false for a container outside sections. */
OFFCODE_API bool offcode_container_section_extent(const offcode_container *c,
						  uint64_t *offset,
						  uint64_t *size);
/* Its entries. */
OFFCODE_API size_t offcode_container_entry_count(const offcode_container *c);
OFFCODE_API const offcode_entry *
offcode_container_entry_at(const offcode_container *c, size_t i);

/* ---------------------------------------------------------------- fields */

/* The fields a kind has of its own, after the common ones, in the order
 * and with the keys of ls --json: a CCOB's "ccob" object (method, sizes,
 * hash, hash_check, computed_hash), a kpack's "compression_scheme", an
 * NVIDIA entry's "nv" object.  A nested object is a field of type
 * OFFCODE_FIELD_OBJECT (its key) followed by its fields and one of type
 * OFFCODE_FIELD_END. */
enum offcode_field_type {
	OFFCODE_FIELD_UINT,	/* number: a decimal integer */
	OFFCODE_FIELD_HEX,	/* number: written "0x%016x" by ls --json */
	OFFCODE_FIELD_BOOL,	/* number: 0 or 1 */
	OFFCODE_FIELD_TEXT,	/* text (NULL: null), text_len bytes */
	OFFCODE_FIELD_OBJECT,	/* an object opens under key */
	OFFCODE_FIELD_END,	/* and closes (key NULL) */
};
struct offcode_field {
	const char *key;
	enum offcode_field_type type;
	uint64_t number;
	const char *text;
	size_t text_len;
};
OFFCODE_API size_t offcode_container_field_count(const offcode_container *c);
/* Field i into *f (its strings owned by the artefact): 0, or
 * OFFCODE_RANGE for i past the count. */
OFFCODE_API int offcode_container_field(const offcode_container *c, size_t i,
					struct offcode_field *f);

/* --------------------------------------------------------------- entries */

/* Every entry of every container, in order. */
OFFCODE_API size_t offcode_entry_count(const offcode_artifact *a);
OFFCODE_API const offcode_entry *offcode_entry_at(const offcode_artifact *a,
						  size_t i);
OFFCODE_API const offcode_container *
offcode_entry_container(const offcode_entry *e);
/* Its index in its container ("index"). */
OFFCODE_API unsigned offcode_entry_index(const offcode_entry *e);
/* Its bundle ID or kpack TOC key, or NULL for kinds whose entries are not
 * named ("id"). */
OFFCODE_API const char *offcode_entry_id(const offcode_entry *e, size_t *len);
/* "hipv4", "openmp", "cuda", "host"... or NULL ("offload_kind"). */
OFFCODE_API const char *offcode_entry_offload_kind(const offcode_entry *e,
						   size_t *len);
/* "amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda"... or NULL ("triple"). */
OFFCODE_API const char *offcode_entry_triple(const offcode_entry *e,
					     size_t *len);
/* The target ID ("gfx90a:xnack+") or NVIDIA arch ("sm_80", "sm_90a"), or
 * NULL ("arch"). */
OFFCODE_API const char *offcode_entry_target_id(const offcode_entry *e,
						size_t *len);
/* The target ID's processor ("gfx90a", "sm_80"), and its features
 * ("xnack+", "sramecc-:xnack+"; "" when none), or NULL when the entry has
 * no target ID. */
OFFCODE_API const char *offcode_entry_processor(const offcode_entry *e);
OFFCODE_API const char *offcode_entry_features(const offcode_entry *e);
/* "elf", "bitcode", "cubin", "fatbin", "ptx", "spirv" or NULL
 * ("image_kind": a bundle entry's from its code's first bytes, read
 * from the file when first asked for, not at open, so a call on the
 * artefact as any other, and NULL when the file no longer has them; NULL
 * inside a CCOB unless opened with OFFCODE_OPEN_VERIFY). */
OFFCODE_API const char *offcode_entry_image_kind(const offcode_entry *e);
/* Its code's bytes as stored ("size"). */
OFFCODE_API uint64_t offcode_entry_size(const offcode_entry *e);
/* Its offset in the file: false when its bytes are not in the file as
 * they are (inside a CCOB, compressed) or are bits of a bitcode module. */
OFFCODE_API bool offcode_entry_offset(const offcode_entry *e,
				      uint64_t *offset);
/* file://PATH#offset=N&size=N for code that lies in the file as it is,
 * PATH percent-encoded, as roc-obj-ls and ls print it ("uri"); NULL
 * otherwise. */
OFFCODE_API const char *offcode_entry_uri(const offcode_entry *e);
/* Whether its bytes are compressed in the file ("compressed"). */
OFFCODE_API bool offcode_entry_compressed(const offcode_entry *e);
/* Its kind's own fields (see offcode_container_field): an NVIDIA entry's
 * "nv" object; the section index of an object bundle's entry
 * ("section"). */
OFFCODE_API size_t offcode_entry_field_count(const offcode_entry *e);
OFFCODE_API int offcode_entry_field(const offcode_entry *e, size_t i,
				    struct offcode_field *f);

/* ------------------------------------------------------------- the walk */

/* A streaming walk: the nodes of one file handed to a visitor as they are
 * found, nothing kept after it returns, so that memory is what the caller
 * keeps (a static library of 100,000 members costs none per member; a
 * CCOB walked with OFFCODE_WALK_CODE is inflated one code object at a
 * time).  The records a node points to are read with the accessors above
 * (offcode_input_*, offcode_container_*, offcode_entry_*, but
 * offcode_container_entry_at, which is NULL in a walk) and the ones below;
 * they and their strings live until the visitor returns.  A function that
 * takes the artefact (offcode_entry_read, _matches, _kernels) does not
 * take them.  Nodes come parents first, in the order `offload ls` lists
 * them; a package or an image is read by offcode_open_* and
 * offcode_layer_walk, not here (OFFCODE_UNSUPPORTED for an image). */
enum offcode_node_kind {
	OFFCODE_NODE_INPUT,		/* the file, or an archive member */
	OFFCODE_NODE_SECTION,		/* a section holding containers */
	OFFCODE_NODE_CONTAINER,		/* before its entries */
	OFFCODE_NODE_ENTRY,
	/* The container again, after its entries: what is known only then
	 * (a streamed CCOB's hash, its "hash_check" field, its summary) is
	 * in its record now, its later fields after the ones it had
	 * before. */
	OFFCODE_NODE_CONTAINER_END,
};
struct offcode_node {
	size_t size;		/* sizeof as the library knows it */
	enum offcode_node_kind kind;
	unsigned depth;		/* 0 for the file */
	const offcode_input *input;	/* the input (the one it is in) */
	const offcode_container *container;	/* CONTAINER*, ENTRY */
	const offcode_entry *entry;		/* ENTRY */
	/* SECTION: its index, name (not NUL-safe: name_len), kind
	 * ("hip-fatbin", ...) and place in the input's file. */
	uint32_t section_index;
	const char *section_name;
	size_t section_name_len;
	const char *section_kind;
	uint64_t section_offset, section_size;
	/* ENTRY, walked with OFFCODE_WALK_CODE: its code as
	 * offcode_entry_read gives it, when the walk has it whole (NULL
	 * otherwise: one that cannot be decoded, see
	 * offcode_entry_decode_error). */
	const void *code;
	uint64_t code_size;
};
/* Return 0 to go on; nonzero stops the walk, which returns it. */
typedef int (*offcode_walk_fn)(void *ctx, const struct offcode_node *n);

/* Flags of offcode_walk_options (bit 0 is offcode_layer_walk's
 * OFFCODE_WALK_ROOT). */
enum {
	/* Inflate every CCOB (a stream, one code object at a time) and
	 * decode every NVIDIA entry: each entry's code is in its node
	 * (`ls --kernels`). */
	OFFCODE_WALK_CODE = 1u << 1,
	/* With OFFCODE_WALK_CODE, check each CCOB's hash (known at its
	 * OFFCODE_NODE_CONTAINER_END: offcode_container_hash_error), as
	 * `ls --verify` does. */
	OFFCODE_WALK_VERIFY = 1u << 2,
};
/* How to walk: a versioned struct (size = sizeof, the rest zeroed, or
 * NULL for the defaults). */
struct offcode_walk_options {
	size_t size;
	unsigned flags;			/* OFFCODE_WALK_* */
	uint64_t ccob_max_size, ccob_max_ratio;	/* as offcode_open_options */
	/* Called as a CCOB is inflated (NULL: not). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* For offcode_walk_memory over a mapped file (path and fd walks do
	 * this themselves): where the data go on at or after off, past a
	 * hole (NULL: every byte is looked at); and the walk is about to
	 * read [off, off + len) in order (start true), or is done with it:
	 * a hint, which may come from another thread. */
	uint64_t (*next_data)(void *ctx, uint64_t off);
	void (*reading)(void *ctx, uint64_t off, uint64_t len, bool start);
	void *hint_ctx;
	/* For a path or fd walk of a pipe, FIFO or terminal: as
	 * offcode_open_options' (added after the fields above). */
	int (*interrupted)(void *ctx);
	void *interrupted_ctx;
};
/* Walk one file, handing each node to fn: 0; fn's nonzero value; or an
 * enum offcode_code with *err (when err is not NULL) a record the caller
 * frees, whose reason is what `offload ls` says after "cannot list
 * '<file>': " (the nodes before the damage were handed over).  A file
 * of no format the library reads is one input of format "other" or
 * "text".  path: mapped, as offcode_open_path; fd: duplicated, name as
 * offcode_open_fd's; buf: len bytes the caller keeps unchanged until the
 * walk returns, name as offcode_open_memory's. */
OFFCODE_API int offcode_walk_path(const char *path,
				  const struct offcode_walk_options *o,
				  offcode_walk_fn fn, void *ctx,
				  offcode_error **err);
OFFCODE_API int offcode_walk_fd(int fd, const char *name,
				const struct offcode_walk_options *o,
				offcode_walk_fn fn, void *ctx,
				offcode_error **err);
OFFCODE_API int offcode_walk_memory(const void *buf, size_t len,
				    const char *name,
				    const struct offcode_walk_options *o,
				    offcode_walk_fn fn, void *ctx,
				    offcode_error **err);
/* More flags of offcode_walk_options, for a program that writes each
 * entry's code to a file as `offload extract` does. */
enum {
	/* With OFFCODE_WALK_CODE, a CCOB is not held: it is inflated once,
	 * its hash checked, before its entries come (at its
	 * OFFCODE_NODE_CONTAINER, offcode_container_hash_error says a bad
	 * one), each entry with its code's first bytes alone
	 * (offcode_entry_head; code NULL), and its bytes as stored are the
	 * caller's to inflate again (offcode_container_stored,
	 * offcode_ccob_inflate), the entries it wants streamed to their
	 * files when the walk leaves it (OFFCODE_NODE_CONTAINER_END): memory
	 * is the CCOB's header however large its code objects. */
	OFFCODE_WALK_CCOB_LATER = 1u << 3,
	/* With OFFCODE_WALK_CODE, a CCOB is inflated whole before its
	 * entries come, its hash checked with OFFCODE_WALK_VERIFY (at its
	 * OFFCODE_NODE_CONTAINER), each entry's code in its node: memory is
	 * the inflated CCOB, for one code object written as it comes
	 * (`offload extract -o -`).  OFFCODE_WALK_CCOB_LATER wins. */
	OFFCODE_WALK_CCOB_WHOLE = 1u << 4,
	/* A file of no format the library reads fails the walk (its reason
	 * "not a file of a known format (ELF file, ...)", as `offload
	 * extract` says it), rather than being one input of format "other"
	 * or "text". */
	OFFCODE_WALK_KNOWN = 1u << 5,
};
/* An entry of a CCOB walked with OFFCODE_WALK_CCOB_LATER: its code's
 * first bytes (at most 20: an ELF header's e_machine, a magic number),
 * *len of them, and where its code begins in the CCOB's inflated bytes
 * (*offset: counted in what offcode_ccob_inflate hands over); NULL (*len
 * and *offset 0) otherwise.  len and offset may be NULL.  Valid while
 * the entry is. */
OFFCODE_API const void *offcode_entry_head(const offcode_entry *e,
					   size_t *len, uint64_t *offset);
/* A CCOB walked with OFFCODE_WALK_CCOB_LATER: its bytes as stored (its
 * header, then its compressed stream: what offcode_ccob_inflate takes),
 * *len of them, at its OFFCODE_NODE_CONTAINER and _END; NULL (*len 0)
 * otherwise.  Valid until the visit of its end returns. */
OFFCODE_API const void *offcode_container_stored(const offcode_container *c,
						 uint64_t *len);

/* The bytes of a's file as the library reads them (mapped, the caller's
 * buffer, or, during offcode_layer_walk's call, the file of a package's
 * layer), for a reader of the caller's own, with *len (0 for an image):
 * valid until offcode_close or offcode_close_file (a layer's file: until
 * its callback returns); NULL with *len 0 after offcode_close_file. */
OFFCODE_API const void *offcode_artifact_bytes(const offcode_artifact *a,
					       uint64_t *len);
/* What len bytes at buf named name are, as offcode_open_memory tells it:
 * "deb", "wheel", "conda", or NULL for any other file (offcode_path_kind
 * for a file at hand). */
OFFCODE_API const char *offcode_memory_kind(const void *buf, size_t len,
					    const char *name);

/* The bytes of one input as the library reads them, for a program that
 * walks them (offcode_walk_memory) and reads them after, or twice, as
 * `offload ls` does: a regular file is mapped (a map the tool guards
 * against SIGBUS as it guards its own, as offcode_catch_sigbus does: see
 * the rules above), headers
 * read where they lie; a pipe, a FIFO, a device or standard input is
 * read once to its end into memory, refused past $OFFLOAD_STREAM_MAX
 * bytes (1 GiB by default; /dev/zero is an error, not a hang).  Open a
 * path ("-": standard input) or a descriptor (duplicated, fd stays the
 * caller's; name NULL: "<fd N>"): 0, or an enum offcode_code with *err
 * (when err is not NULL) a record the caller frees, whose reason is what
 * `offload ls` says after "cannot read '<file>': ".  A directory is
 * OFFCODE_SYSTEM with offcode_error_errno EISDIR; the regular file that
 * standard output writes to is OFFCODE_OTHER, "input file is output
 * file" (offcode_source_check_stdout says so before anything is
 * written). */
typedef struct offcode_source offcode_source;
OFFCODE_API int offcode_source_open_path(const char *path,
					 offcode_source **out,
					 offcode_error **err);
OFFCODE_API int offcode_source_open_fd(int fd, const char *name,
				       offcode_source **out,
				       offcode_error **err);
/* The same for a caller that needs only the first want bytes (want > 0:
 * a code object's place in a file:// URI): a pipe or a device is read no
 * further, and not refused for holding more; a file is mapped whole. */
OFFCODE_API int offcode_source_open_part(const char *path, uint64_t want,
					 offcode_source **out,
					 offcode_error **err);
/* How to open a source: a versioned struct (size = sizeof, the rest
 * zeroed; NULL for the defaults).  want: as offcode_source_open_part's
 * (0: the whole input); interrupted: as offcode_open_options' (a read of
 * a pipe that a signal cuts short stops when it returns nonzero: the
 * open fails with OFFCODE_SYSTEM, errno EINTR). */
struct offcode_source_options {
	size_t size;
	uint64_t want;
	int (*interrupted)(void *ctx);
	void *interrupted_ctx;
};
/* offcode_source_open_part (or _open_path, want 0) and
 * offcode_source_open_fd with options o (want ignored for a
 * descriptor).  OFFCODE_INVALID when o->size is too small to hold
 * want. */
OFFCODE_API int offcode_source_open_path_with(
	const char *path, const struct offcode_source_options *o,
	offcode_source **out, offcode_error **err);
OFFCODE_API int offcode_source_open_fd_with(
	int fd, const char *name, const struct offcode_source_options *o,
	offcode_source **out, offcode_error **err);
OFFCODE_API int offcode_source_check_stdout(const char *path,
					    offcode_error **err);
/* Its bytes and *len (never NULL for an open source), valid until
 * offcode_source_close; the descriptor of a mapped file (kept open by
 * s: fstat it, copy from it), -1 for bytes read into memory. */
OFFCODE_API const void *offcode_source_bytes(const offcode_source *s,
					     uint64_t *len);
OFFCODE_API int offcode_source_fd(const offcode_source *s);
/* A walk's hints over s, as offcode_walk_options' next_data and reading
 * with hint_ctx = s (NULL: off, and nothing): where its data go on past
 * a hole of a sparse file, and the pages of what the walk reads in order
 * read ahead, then let go of (a walk's resident memory does not grow
 * with the file); nothing for bytes read into memory. */
OFFCODE_API uint64_t offcode_source_next_data(void *s, uint64_t off);
OFFCODE_API void offcode_source_reading(void *s, uint64_t off, uint64_t len,
					bool start);
OFFCODE_API void offcode_source_close(offcode_source *s);

/* What `offload ls` prints of the records, for a program that lists as
 * it does (of a walk's records and an artefact's alike). */
/* An input's words after "<file>: ": "ELF 64-bit LSB shared object,
 * x86-64", "archive", "offload data", "thin archive member (not read)",
 * "LLVM bitcode", "linker script", "text", "other data", "empty". */
OFFCODE_API const char *offcode_input_words(const offcode_input *in);
/* What a container is, in the plural of a file of them alone ("offload
 * bundle", "CCOB", ...: `offload ls` says "offload data (CCOB)"). */
OFFCODE_API const char *offcode_container_what(const offcode_container *c);
/* The words after "<format> #<number>" on its line (" at 4096:
 * version 3, zstd, ..., 2 entries"), saying it has `entries` entries
 * (offcode_container_entry_count, or as many as the caller lists), into
 * buf: cap bytes, NUL-terminated, cut to fit. */
OFFCODE_API void offcode_container_summary(const offcode_container *c,
					   size_t entries, char *buf,
					   size_t cap);
/* What ROCm's roc-obj-ls does with its entries (ls --format=roc-obj). */
enum offcode_roc_obj {
	OFFCODE_ROC_OBJ_IGNORED,	/* neither lists nor counts them */
	OFFCODE_ROC_OBJ_LISTED,		/* one line each */
	OFFCODE_ROC_OBJ_COUNTED,	/* counted as having no file:// URI */
};
OFFCODE_API enum offcode_roc_obj
offcode_container_roc_obj(const offcode_container *c);
/* A CCOB whose hash was checked and is wrong (OFFCODE_WALK_VERIFY, or
 * OFFCODE_OPEN_VERIFY): a record of code OFFCODE_BAD_HASH whose reason is
 * what `offload ls` says after "bad hash in '<file>': "; NULL otherwise.
 * It belongs to the container. */
OFFCODE_API const offcode_error *
offcode_container_hash_error(const offcode_container *c);
/* Whether its entries are compressed each on its own and decoded one by
 * one, so that one may fail alone (NVIDIA fatbins:
 * offcode_entry_decode_error). */
OFFCODE_API bool offcode_container_coded(const offcode_container *c);
/* The entry's columns on its line, as many as its kind has (a bundle's
 * ID; an NVIDIA entry's kind and arch, ...): cell i (NULL with *len 0
 * where the kind says nothing there: `ls` prints "-"). */
OFFCODE_API size_t offcode_entry_cell_count(const offcode_entry *e);
OFFCODE_API const char *offcode_entry_cell(const offcode_entry *e, size_t i,
					   size_t *len);
/* Where its code is, the line's last column: its uri, or "(in bitcode)",
 * "(compressed)", or a kind's own ("(zstd-compressed, 4096 bytes
 * uncompressed)" for an NVIDIA entry). */
OFFCODE_API const char *offcode_entry_location(const offcode_entry *e);
/* An entry the walk could not decode (an NVIDIA entry, walked with
 * OFFCODE_WALK_CODE): why, a record owned by the entry; NULL for one
 * decoded, or not tried. */
OFFCODE_API const offcode_error *
offcode_entry_decode_error(const offcode_entry *e);

/* ------------------------------------------------------- NVIDIA entries */

/* What an NVIDIA fatbin's entry header says, the names and arches
 * `cuobjdump -lelf -lptx` prints (`offload ls --format=cuobjdump`): the
 * fields of ls --json's "nv" object named here.  A versioned struct: set
 * size to sizeof(struct offcode_nv_entry) before the call. */
enum offcode_nv_kind {
	OFFCODE_NV_PTX = 1,		/* PTX text */
	OFFCODE_NV_ELF = 2,		/* a cubin */
	OFFCODE_NV_OLD_CUBIN = 4,	/* a cubin of CUDA's first releases */
};
struct offcode_nv_entry {
	size_t size;
	/* enum offcode_nv_kind, or another value the header holds ("kind") */
	unsigned kind;
	unsigned arch;		/* 80 for sm_80 ("arch") */
	/* "a" (sm_90a), "f" (sm_103f), "" for code of no variant
	 * ("variant"); a static string. */
	const char *variant;
	uint64_t flags;		/* the header's flags, as stored ("flags") */
	/* The source file's path nvcc -G writes, by which cuobjdump names
	 * the entry ("identifier"), and a PTX entry's ptxas options
	 * ("ptxas_options"): len bytes (NUL-terminated), or NULL with len 0
	 * when the header has none; owned by the entry's record. */
	const char *identifier;
	size_t identifier_len;
	const char *ptxas_options;
	size_t ptxas_options_len;
};
/* e's header into *nv: 0; OFFCODE_NOTHING for an entry of another kind
 * of container; OFFCODE_INVALID when e or nv is NULL or nv->size too
 * small; OFFCODE_NOMEM when a walk's entry's texts cannot be kept. */
OFFCODE_API int offcode_entry_nv(const offcode_entry *e,
				 struct offcode_nv_entry *nv);
/* An input that is itself a cubin (a little-endian ELF of machine CUDA):
 * true with *arch its SM as its ELF header says (e_flags' bits 0-7, or
 * 8-15 from ABI version 8: CUDA 12.8 and later), which is how cuobjdump
 * lists a lone cubin; false for another input (and for one whose header
 * says SM 0, which cuobjdump does not list).  arch may be NULL. */
OFFCODE_API bool offcode_input_cubin_arch(const offcode_input *in,
					  unsigned *arch);

/* ---------------------------------------------------------- du's figures */

/* What `offload du` counts of entry e: the bytes of its code (inflated,
 * as offcode_entry_read gives them) and the bytes it takes as stored (its
 * share, in proportion to its size, of a CCOB that compresses its
 * container's entries together; a kpack entry's frame). */
OFFCODE_API void offcode_entry_du_sizes(const offcode_entry *e,
					uint64_t *code, uint64_t *stored);
/* The name the target rules (offcode_entry_matches' -t) see the entry by:
 * its bundle ID, or one made the bundler's way for a package's entry
 * (<kind>-<triple>-<target ID>), an NVIDIA entry's arch; and the target
 * du counts it under ("gfx90a:xnack+", "sm_80", PTX as "compute_80"),
 * NULL when it has none. */
OFFCODE_API const char *offcode_entry_rule_id(const offcode_entry *e,
					      size_t *len);
OFFCODE_API const char *offcode_entry_rule_target(const offcode_entry *e,
						  size_t *len);
/* A file that is itself one code object (an AMDGPU code object, a cubin,
 * PTX text), with no container: true with its target as du names it
 * ("gfx90a:xnack+" from its metadata, "sm_80", PTX "compute_80") and its
 * triple; false otherwise (or when it cannot be read). */
OFFCODE_API bool offcode_artifact_code_object(const offcode_artifact *a,
					      const char **target,
					      const char **triple);
/* Whether the file is offload code alone (a bare bundle, CCOB, package,
 * fatbin or kpack archive): prune removes such a file when it keeps
 * nothing of it. */
OFFCODE_API bool offcode_artifact_offload_only(const offcode_artifact *a);
/* A kpack-split binary's archives (its kpack reference's search paths
 * resolved, rocm-kpack's way): 0 with *paths (owned by a) and *n, none
 * for another file; a reference that cannot be read is an error
 * (OFFCODE_NOMEM among them). */
OFFCODE_API int offcode_kpack_archives(offcode_artifact *a,
				       const char *const **paths, size_t *n);

/* -------------------------------------------------- packages and images */

/* A package or an image holds its files in compressed streams, its
 * layers: an image's layer blobs, bottom first, each once; a package's
 * one (a .deb's data.tar, a wheel's or a conda package's files).  Opened,
 * input 0's format says which it is: "deb", "wheel", "conda" or "image",
 * and its size is the file's (an image directory's: 0).
 *
 * Opened as usual, every layer is walked at open: each file of it that a
 * format the library reads claims (by its first bytes) is an input of
 * depth 1, named by its path in its package ("./" cut; an image's
 * "<layer>/<path>", as `offload ls` names them), with its own members, containers and entries after it as a
 * file's are; their offsets are in that file (offcode_entry_offset false,
 * no uri), and reading their code walks the layer again to it.  Opened
 * with OFFCODE_OPEN_STREAM, nothing is walked at open and the caller walks
 * the layers (offcode_layer_walk). */

/* The kind of what path names, as offcode_open_path reads it: "image",
 * "deb", "wheel", "conda", or NULL for any other file (or none).  Reads
 * the first bytes of a file; a FIFO is not opened. */
OFFCODE_API const char *offcode_path_kind(const char *path);

/* The layers: 0 for a file that is neither. */
OFFCODE_API size_t offcode_layer_count(const offcode_artifact *a);
struct offcode_layer {
	size_t size;		/* sizeof, set by the caller */
	/* An image layer's blob digest ("sha256:..."), or its member's path
	 * in a legacy docker archive; a .deb's data member ("data.tar.xz");
	 * "" for a wheel's or a conda package's. */
	const char *name;
	/* "none", "gzip", "zstd", "xz", "bzip2", or "zip" (a wheel). */
	const char *compression;
	/* The bytes that hold it: the blob, the data member, the file. */
	uint64_t stored;
};
/* Layer i's description into *info: 0, or OFFCODE_RANGE. */
OFFCODE_API int offcode_layer_info(const offcode_artifact *a, size_t i,
				   struct offcode_layer *info);

/* A file of a layer as offcode_layer_walk hands it over. */
struct offcode_member {
	size_t layer;
	const char *name;	/* its path in the layer (not NUL-safe: len) */
	size_t name_len;
	uint64_t index;		/* its place in the layer's stream, from 0 */
	uint64_t size;
};
/* Called for each file worth reading: file is it opened as an artefact
 * (with the options the package was, OFFCODE_OPEN_STREAM aside; named
 * as `offload ls` names it: "<package>/<path>", "<layer>/<path>"), or NULL with err saying why it could not be
 * (with OFFCODE_OPEN_PARTIAL, both may be set).  Both live until fn
 * returns; nonzero stops the walk, which returns that value. */
typedef int (*offcode_member_fn)(void *ctx, const struct offcode_member *m,
				 offcode_artifact *file,
				 const offcode_error *err);
/* Flags of offcode_layer_walk. */
enum {
	/* Note every member's name, kind and link (a few bytes each), for
	 * offcode_manifest_root. */
	OFFCODE_WALK_ROOT = 1u << 0,
};
/* What a layer walk saw: members of the stream, regular files and their
 * bytes (a wheel's: its zip directory's). */
struct offcode_layer_stats {
	size_t size;		/* sizeof, set by the caller */
	uint64_t members, files, file_bytes;
};
/* Walk layer i of a (opened with or without OFFCODE_OPEN_STREAM), handing
 * each file a format claims to fn: 0, fn's nonzero value, or a failure's
 * code (a's last error; the files before it were handed over).  stats may
 * be NULL.  Not from fn, nor offcode_manifest_root (OFFCODE_INVALID). */
OFFCODE_API int offcode_layer_walk(offcode_artifact *a, size_t i,
				   unsigned flags, offcode_member_fn fn,
				   void *ctx, struct offcode_layer_stats *stats);

/* An image's manifests (a multi-platform index has several; 0 for a
 * package). */
OFFCODE_API size_t offcode_manifest_count(const offcode_artifact *a);
struct offcode_manifest {
	size_t size;		/* sizeof, set by the caller */
	const char *digest;	/* "" for a legacy docker image */
	const char *platform;	/* "linux/amd64", "" when none is said */
	size_t layer_count;
	const size_t *layers;	/* indices of offcode_layer_info, bottom
				 * first */
};
OFFCODE_API int offcode_manifest_info(const offcode_artifact *a, size_t i,
				      struct offcode_manifest *info);
/* The regular files of the root manifest i's layers make unpacked, each
 * once (a file a later layer writes again or removes is not in it; a hard
 * link is the file it names), in the order written: fn gets its layer
 * (an index of offcode_layer_info), its index in that layer's stream and
 * its size; nonzero stops.  Every layer of the manifest must have been
 * walked with OFFCODE_WALK_ROOT (else OFFCODE_INVALID). */
typedef int (*offcode_root_fn)(void *ctx, size_t layer, uint64_t index,
			       uint64_t size);
OFFCODE_API int offcode_manifest_root(offcode_artifact *a, size_t i,
				      offcode_root_fn fn, void *ctx);

/* ------------------------------------------------------------------ code */

/* Entry e's code, decompressed (inflated from its CCOB, its NVIDIA
 * compression undone, PTX without its padding), as `offload extract`
 * writes it.  Into buf, cap bytes: 0 with *size its length when it fits;
 * OFFCODE_RANGE with *size its length when it does not (buf NULL and cap
 * 0 ask for the size alone).  The last entry decoded is kept by the
 * artefact, so asking for the size and then the bytes decodes once; a
 * CCOB is inflated again for each entry otherwise (offcode_code_foreach
 * reads all at once). */
OFFCODE_API int offcode_entry_read(offcode_artifact *a, const offcode_entry *e,
				   void *buf, size_t cap, uint64_t *size);
/* The same written to fd (at its offset, all of it), or to a new file path
 * (written beside it under a temporary name, renamed into place; an
 * existing file is replaced, never the artefact's own: OFFCODE_INVALID). */
OFFCODE_API int offcode_entry_write_fd(offcode_artifact *a,
				       const offcode_entry *e, int fd);
OFFCODE_API int offcode_entry_write_path(offcode_artifact *a,
					 const offcode_entry *e,
					 const char *path);

/* Called for each entry with its code (valid during the call only);
 * nonzero stops the walk, and offcode_code_foreach returns that value. */
typedef int (*offcode_code_fn)(void *ctx, const offcode_entry *e,
			       const void *code, size_t size);
/* Every entry's code, in order, each CCOB inflated once. */
OFFCODE_API int offcode_code_foreach(offcode_artifact *a, offcode_code_fn fn,
				     void *ctx);

/* Called for each entry, in order, to say where its code goes: *path set
 * to a file to write (held by the caller until its next call or the
 * return of offcode_code_foreach_path), or left NULL to pass the entry
 * by; nonzero stops the walk, and offcode_code_foreach_path returns that
 * value. */
typedef int (*offcode_path_fn)(void *ctx, const offcode_entry *e,
			       const char **path);
/* Every entry's code written to the file fn names, as
 * offcode_entry_write_path writes it (a temporary beside it, renamed into
 * place), in one walk: each CCOB inflated once, code the file stores as
 * it is copied by the kernel (copy_file_range, where the two files allow
 * it), never through the caller's memory.  0, fn's nonzero, or a
 * failure's code (offcode_last_error says which file, the files before it
 * written). */
OFFCODE_API int offcode_code_foreach_path(offcode_artifact *a,
					  offcode_path_fn fn, void *ctx);

/* ------------------------------------------------------- files written */

/* The names of the files one program writes, each once, as `offload
 * extract` names its outputs: a name taken again becomes name-2.ext,
 * name-3.ext, ... (the first of them not taken; ".ext" is the name from
 * its last '.', nothing when it has none).  The set owns every name it
 * gives. */
typedef struct offcode_names offcode_names;
/* A new, empty set: 0 with *out, or OFFCODE_INVALID (out NULL),
 * OFFCODE_NOMEM. */
OFFCODE_API int offcode_names_new(offcode_names **out);
/* name if the set has not given it yet, else its first name-k.ext not
 * given: 0 with *out (owned by names, until offcode_names_free), or
 * OFFCODE_INVALID (an argument NULL), OFFCODE_NOMEM (*out NULL). */
OFFCODE_API int offcode_names_take(offcode_names *names, const char *name,
				   const char **out);
/* Free the set and every name it gave; NULL is fine. */
OFFCODE_API void offcode_names_free(offcode_names *names);

/* A code object URI, file://PATH#offset=N&size=N, as offcode_entry_uri,
 * `offload ls` and ROCm's roc-obj tools write them, and `offload extract`
 * and roc-obj-extract read them. */
/* Whether s has a scheme ("name://"): a URI to parse, not a path. */
OFFCODE_API bool offcode_uri_is(const char *s);
/* A file URI taken apart (a versioned struct: size = sizeof before the
 * call). */
struct offcode_uri {
	size_t size;
	/* The path, percent-decoded: freed by offcode_uri_free. */
	char *path;
	uint64_t offset;	/* "offset=N": 0 when missing */
	uint64_t length;	/* "size=N", when has_length; */
	bool has_length;	/* else to the end of the file */
};
/* Parse s as roc-obj-extract reads it: the scheme in any case, the path
 * up to the first '#' or '?' percent-decoded, then "offset=N" and
 * "size=N" joined by '&', each N decimal, 0x hex or 0 octal.  0 with *u
 * filled (offcode_uri_free frees it), or OFFCODE_INVALID (an argument
 * NULL, u->size too small), OFFCODE_OTHER (another scheme than file://),
 * OFFCODE_MALFORMED (no path, a bad escape, an unknown attribute, a number
 * that is not one), OFFCODE_NOMEM; then, when err is not NULL, *err is a
 * record the caller frees with offcode_error_free (its reason what
 * `offload extract` says after "cannot read '<URI>': "). */
OFFCODE_API int offcode_uri_parse(const char *s, struct offcode_uri *u,
				  offcode_error **err);
/* Free what offcode_uri_parse filled u with (u->path NULL after); NULL
 * is fine. */
OFFCODE_API void offcode_uri_free(struct offcode_uri *u);

/* A CCOB's code written out as it is inflated, never held whole, as
 * `offload extract` writes a CCOB's entries (each to its file, by where
 * it lies in the bundle inside), however large: fn gets the inflated
 * bytes in order, in pieces of at most 1 MiB, valid during the call;
 * nonzero stops. */
typedef int (*offcode_bytes_fn)(void *ctx, const void *p, size_t n);
/* Inflate the CCOB at the start of the len bytes at ccob (its header,
 * then its zlib stream or zstd frames: a container of format "ccob", its
 * offset and size) to fn, believing its declared size within max_size
 * and max_ratio (as offcode_open_options'; 0: the tool's defaults).  0;
 * fn's nonzero; or a failure's code (OFFCODE_INVALID for an argument
 * NULL, the damage found otherwise), with *err, when err is not NULL, a
 * record the caller frees with offcode_error_free.  Pieces may have gone
 * to fn before a failure.  The hash is not checked (OFFCODE_OPEN_VERIFY
 * does). */
OFFCODE_API int offcode_ccob_inflate(const void *ccob, size_t len,
				     uint64_t max_size, uint64_t max_ratio,
				     offcode_bytes_fn fn, void *ctx,
				     offcode_error **err);

/* A package's or an image's files handed over as bytes, unopened, for a
 * program that reads them itself (`offload extract` walks each as a
 * file): offcode_layer_walk's walk, each file a format the library reads
 * claims by its first bytes given to fn as they are -- its bytes (valid
 * during the call) and, when the walk holds them in a file of its own (a
 * file too large to keep in memory), a descriptor of that file, whose
 * first len bytes they are, for copying them by the kernel (-1 else).
 * m->name is its path in the layer, a Debian or conda package's without
 * its leading "./".  Nonzero from fn stops the walk and is returned; else
 * 0, or a failure's code as offcode_layer_walk's (a's last error). */
typedef int (*offcode_member_bytes_fn)(void *ctx,
				       const struct offcode_member *m,
				       const void *bytes, size_t len, int fd);
OFFCODE_API int offcode_layer_walk_bytes(offcode_artifact *a, size_t i,
					 offcode_member_bytes_fn fn,
					 void *ctx);

/* A kpack-split binary (AMD's rocm-kpack): a host binary whose device
 * code was moved to kpack archives, which its .rocm_kpack_ref names by
 * search paths (resolved against its directory, "@GFXARCH@" standing for
 * any target), and whose HIPK wrappers each stand for one code object,
 * found in an archive by its TOC key "<kernel name>#<index>".  What
 * `offload extract` writes of one: each wrapper's code object from each
 * archive found, named as the fat binary's entry was. */
typedef struct offcode_split offcode_split;
/* Open the split binary at path (mapped), or the len bytes at buf
 * (borrowed until offcode_split_close; path names them, and archives are
 * looked for from its directory).  Every archive the search paths find
 * is opened and its TOC read, one that cannot be read or is damaged
 * saying why (offcode_split_archive).  0 with *out; OFFCODE_NOTHING with
 * *out NULL for a file that is no split binary (*err NULL); else *out
 * NULL and a failure's code (a damaged reference or wrappers,
 * OFFCODE_NOMEM, a file that cannot be read, OFFCODE_INVALID for an
 * argument NULL) with *err, when err is not NULL, a record the caller
 * frees. */
OFFCODE_API int offcode_split_open_path(const char *path, offcode_split **out,
					offcode_error **err);
OFFCODE_API int offcode_split_open_memory(const void *buf, size_t len,
					  const char *path,
					  offcode_split **out,
					  offcode_error **err);
/* Free it, and everything it gave; NULL is fine. */
OFFCODE_API void offcode_split_close(offcode_split *s);

/* Its search paths, in the reference's order (a versioned struct: size =
 * sizeof before the call; 0, OFFCODE_INVALID, or OFFCODE_RANGE for i
 * past the count). */
struct offcode_split_search {
	size_t size;
	const char *path;	/* as the reference says it */
	const char *dir;	/* the directory its archives are looked in */
	bool no_dir;		/* which could not be opened */
	size_t archives;	/* how many it found */
};
OFFCODE_API size_t offcode_split_search_count(const offcode_split *s);
OFFCODE_API int offcode_split_search(const offcode_split *s, size_t i,
				     struct offcode_split_search *info);

/* The archives found, each search path's in turn, by name (as
 * offcode_split_search). */
struct offcode_split_archive {
	size_t size;
	size_t search;		/* the search path that found it */
	const char *path;
	/* The target its name gives ("gfx90a"), NULL for a search path
	 * without "@GFXARCH@". */
	const char *target;
	/* NULL when it was read; else why not (owned by s), and damaged
	 * when it was read but is no kpack archive. */
	const offcode_error *error;
	bool damaged;
	/* The file read (st_dev, st_ino), when error is NULL and has_id. */
	bool has_id;
	uint64_t device, inode;
	/* Its TOC, when error is NULL (else 0 and NULL): the kpack format's
	 * version, its compression scheme ("none", "zstd-per-kernel"), the
	 * file's size and its entries.  (Added after the fields above: a
	 * caller whose size ends before one is not given it.) */
	unsigned version;
	const char *compression_scheme;
	uint64_t file_size;
	size_t entries;
};
OFFCODE_API size_t offcode_split_archive_count(const offcode_split *s);
OFFCODE_API int offcode_split_archive(const offcode_split *s, size_t k,
				      struct offcode_split_archive *info);

/* Its HIPK wrappers, in the binary's order: each one's code object index
 * (the "#<index>" of its key, the number of the fat binary's container
 * it came from) and TOC key (in s, valid until the next call on s).
 * 0, OFFCODE_INVALID or OFFCODE_RANGE. */
OFFCODE_API size_t offcode_split_wrapper_count(const offcode_split *s);
OFFCODE_API int offcode_split_wrapper(offcode_split *s, size_t w,
				      uint64_t *index, const char **key);
/* Its reference's kernel name, the part of each TOC key before its
 * "#" (owned by s); and how many of its wrappers are HIPF ones, whose
 * code was not split off (left in the binary). */
OFFCODE_API const char *offcode_split_kernel_name(const offcode_split *s);
OFFCODE_API size_t offcode_split_unsplit_count(const offcode_split *s);

/* The entries of archive k (read) that hold wrapper w's code object,
 * those of its TOC key, in TOC order: how many, and the x-th one's index
 * in the archive (SIZE_MAX past them or for an archive not read). */
OFFCODE_API size_t offcode_split_code_count(offcode_split *s, size_t k,
					    size_t w);
OFFCODE_API size_t offcode_split_code(offcode_split *s, size_t k, size_t w,
				      size_t x);
/* Entry i of archive k: its target ("gfx90a:xnack+"), the bundle ID its
 * code object had in the fat binary (the TOC's metadata, NULL when it
 * says none), and its code's size.  0, OFFCODE_INVALID, or OFFCODE_RANGE
 * (no such entry, an archive not read). */
struct offcode_split_entry {
	size_t size;
	const char *target;
	const char *bundle_id;
	uint64_t code_size;
	/* (Added after the fields above, as offcode_split_archive's.)  Its
	 * TOC key ("<kernel name>#<index>"), and whether its code lies in
	 * the archive's file as it is, whole (an archive of compression
	 * scheme "none"): then code_size bytes at offset (offcode_split_uri
	 * names them). */
	const char *key;
	bool in_file;
	uint64_t offset;
};
OFFCODE_API int offcode_split_entry(const offcode_split *s, size_t k,
				    size_t i, struct offcode_split_entry *info);
/* Its code, decompressed (a zstd-per-kernel archive's inflated within
 * max_size and max_ratio, as offcode_ccob_inflate's): 0 with *code and
 * *size (owned by s, valid until the next offcode_split_read or
 * offcode_split_close), or a failure's code with *err as
 * offcode_split_open's. */
OFFCODE_API int offcode_split_read(offcode_split *s, size_t k, size_t i,
				   uint64_t max_size, uint64_t max_ratio,
				   const void **code, uint64_t *size,
				   offcode_error **err);
/* Entry i of archive k's code object URI, file://PATH#offset=N&size=N
 * (PATH the archive's, percent-encoded, as offcode_entry_uri's), when
 * its code lies in the file as it is (in_file); NULL otherwise, or out
 * of memory.  Valid until the next offcode_split_uri or
 * offcode_split_close. */
OFFCODE_API const char *offcode_split_uri(offcode_split *s, size_t k,
					  size_t i);
/* The image kind of code (size bytes, as offcode_split_read gives it),
 * as `ls --json` names an entry's: "elf", "bitcode", "cubin", "fatbin"
 * or "spirv", from its first bytes; NULL for none of them. */
OFFCODE_API const char *offcode_split_image_kind(const void *code,
						 uint64_t size);
/* Whether code (size bytes) is an AMDGPU code object for target (its
 * metadata's target ID, or its processor): what `offload ls --verify`
 * asks of each code object an archive holds.  When not, got (got_len
 * bytes, NULL for none) says what it is instead: "not an AMDGPU code
 * object", "no target", or its target ID ("gfx1100"), cut short to
 * fit. */
OFFCODE_API bool offcode_split_code_for(const void *code, uint64_t size,
					const char *target, char *got,
					size_t got_len);

/* -------------------------------------------------------------- matching */

/* Flags of offcode_entry_matches. */
enum {
	/* Compare names, not what a GPU loads (`prune --exact`): "gfx90a"
	 * takes neither gfx90a:xnack+ nor gfx90a:xnack-, "sm_80" the sm_80
	 * SASS alone. */
	OFFCODE_MATCH_EXACT = 1u << 0,
};
/* Whether entry e is taken by rules, a comma-separated list as `offload ls
 * -t` takes it: a target ID of a GPU ("gfx90a", "gfx90a:xnack+", "sm_86")
 * takes what that GPU's loader would load (the same processor with no
 * feature set the other way, a generic processor serving it, AMD SPIR-V;
 * for NVIDIA, SASS of the same major version and no higher minor,
 * arch-specific code of that version alone, family code, PTX of no higher
 * version, JIT-compiled); a glob (*, ?, [) matches the bundle ID, target
 * ID or triple; a whole bundle ID the entries the bundler would give for
 * it.  0 with *match set, or OFFCODE_INVALID for a rule that is no target
 * a GPU can have (the error says which). */
OFFCODE_API int offcode_entry_matches(offcode_artifact *a,
				      const offcode_entry *e,
				      const char *rules, unsigned flags,
				      bool *match);
/* Whether a loader asked for request (a target ID: "gfx90a:xnack+")
 * would take code built for target (another: "gfx90a"): the same
 * processor, no feature set one way in one and the other way in the
 * other. */
OFFCODE_API bool offcode_target_id_compatible(const char *target,
					      const char *request);

/* --------------------------------------------------------------- kernels */

typedef struct offcode_kernels offcode_kernels;
typedef struct offcode_kernel offcode_kernel;

/* Entry e's kernels, read from its code (an AMDGPU code object, an NVIDIA
 * cubin or PTX): 0 with *out, owned by the artefact (or freed early with
 * offcode_kernels_free); OFFCODE_NOTHING for other code; the code's damage
 * otherwise (`ls --kernels`' "error_code"). */
OFFCODE_API int offcode_entry_kernels(offcode_artifact *a,
				      const offcode_entry *e,
				      const offcode_kernels **out);
/* The kernels of the file itself when it is a code object with no
 * container around it (one `offload extract` wrote: `ls --kernels` lists
 * them under the file), as offcode_entry_kernels: OFFCODE_NOTHING for a
 * file that holds containers or members, or whose bytes are no code
 * object. */
OFFCODE_API int offcode_artifact_kernels(offcode_artifact *a,
					 const offcode_kernels **out);
OFFCODE_API void offcode_kernels_free(offcode_artifact *a,
				      const offcode_kernels *k);
/* The kernels of size bytes of code the caller holds (a walk's entry's
 * code, struct offcode_node's code and code_size; a file read by the
 * caller that is itself a code object), read as offcode_entry_kernels
 * reads an entry's: 0 with *out, the caller's own, freed with
 * offcode_code_kernels_free (code may go as soon as this returns);
 * OFFCODE_NOTHING with *out NULL and no record for bytes that are no
 * AMDGPU code object, cubin or PTX; else *out NULL and the code of the
 * damage (`ls --kernels`' "error_code"), OFFCODE_NOMEM, or
 * OFFCODE_INVALID (out NULL, code NULL with size not 0), with *err, when
 * err is not NULL, a record the caller frees with offcode_error_free
 * (its reason what `ls --kernels` says after "cannot read kernels in
 * '<file>': [<entry>: ]").  One thread at a time may use a list (its
 * names are demangled when first asked for). */
OFFCODE_API int offcode_code_kernels(const void *code, size_t size,
				     offcode_kernels **out,
				     offcode_error **err);
/* Free a list of offcode_code_kernels; NULL is fine. */
OFFCODE_API void offcode_code_kernels_free(offcode_kernels *k);
/* "amdgpu", "cubin" or "ptx" ("source"). */
OFFCODE_API const char *offcode_kernels_source(const offcode_kernels *k);
/* The code object version (AMDGPU), or 0. */
OFFCODE_API unsigned offcode_kernels_code_object_version(const offcode_kernels *k);
/* "target", "processor", "ptx_version"; NULL where the code gives none. */
OFFCODE_API const char *offcode_kernels_target(const offcode_kernels *k);
/* An AMDGPU code object's target ID, as its metadata's target names it
 * after the triple ("gfx90a:xnack+", with the features it was built
 * for); NULL for other code or where the metadata names none. */
OFFCODE_API const char *offcode_kernels_target_id(const offcode_kernels *k);
OFFCODE_API const char *offcode_kernels_processor(const offcode_kernels *k);
OFFCODE_API const char *offcode_kernels_ptx_version(const offcode_kernels *k);
OFFCODE_API size_t offcode_kernels_count(const offcode_kernels *k);
OFFCODE_API const offcode_kernel *offcode_kernels_at(const offcode_kernels *k,
						     size_t i);
/* Its symbol as in the symbol table, and its name as `ls` prints it
 * (demangled as c++filt does; the symbol when it is no mangled name). */
OFFCODE_API const char *offcode_kernel_symbol(const offcode_kernel *k);
OFFCODE_API const char *offcode_kernel_name(const offcode_kernel *k);

/* A kernel's resources, by the keys of ls --json (offcode_resource_name).
 * New ones are added at the end. */
enum offcode_resource {
	/* AMDGPU */
	OFFCODE_RES_SGPRS,
	OFFCODE_RES_VGPRS,
	OFFCODE_RES_AGPRS,
	OFFCODE_RES_SGPR_SPILLS,
	OFFCODE_RES_VGPR_SPILLS,
	OFFCODE_RES_LDS_BYTES,
	OFFCODE_RES_SCRATCH_BYTES_PER_LANE,
	OFFCODE_RES_KERNARG_BYTES,
	OFFCODE_RES_WAVEFRONT_SIZE,
	OFFCODE_RES_MAX_FLAT_WORKGROUP_SIZE,
	OFFCODE_RES_DYNAMIC_STACK,		/* 0 or 1 */
	OFFCODE_RES_OCCUPANCY_WAVES_PER_SIMD,
	/* NVIDIA cubins */
	OFFCODE_RES_REGISTERS,
	OFFCODE_RES_STACK_BYTES,
	OFFCODE_RES_SHARED_BYTES,
	OFFCODE_RES_LOCAL_BYTES,
	OFFCODE_RES_MAX_THREADS,
	OFFCODE_RESOURCES			/* how many there are */
};
/* "sgprs", "vgprs", ... "max_threads"; NULL past the enum. */
OFFCODE_API const char *offcode_resource_name(enum offcode_resource r);
/* The resource's value: true with *value set, false where the code object
 * gives none (null in ls --json). */
OFFCODE_API bool offcode_kernel_resource(const offcode_kernel *k,
					 enum offcode_resource r,
					 uint64_t *value);
/* A cubin's constant bank sizes ("constant_bytes"): true with the bytes of
 * bank `bank` (0 to OFFCODE_CONSTANT_BANKS - 1) when the kernel uses
 * it. */
enum { OFFCODE_CONSTANT_BANKS = 18 };
OFFCODE_API bool offcode_kernel_constant_bytes(const offcode_kernel *k,
					       unsigned bank, uint64_t *value);
/* An AMDGPU kernel's descriptor as stored ("descriptor"): true and *d
 * filled, false when the code object has none. */
struct offcode_kernel_descriptor {
	uint64_t offset;		/* in the code object */
	uint32_t group_segment_fixed_size, private_segment_fixed_size;
	uint32_t kernarg_size;
	uint32_t compute_pgm_rsrc1, compute_pgm_rsrc2, compute_pgm_rsrc3;
	uint16_t kernel_code_properties;
};
OFFCODE_API bool offcode_kernel_descriptor(const offcode_kernel *k,
					   struct offcode_kernel_descriptor *d);

/* ----------------------------------------------------------------- prune */

/* Compression of offcode_prune_options. */
enum offcode_compress {
	OFFCODE_COMPRESS_NONE,		/* bundles stay as they are */
	OFFCODE_COMPRESS_ZSTD,		/* `prune --compress` (=zstd) */
	OFFCODE_COMPRESS_ZLIB,		/* `prune --compress=zlib` */
};

/* What `offload prune FILE -o OUT` takes, as a versioned struct (size =
 * sizeof; zero the rest). */
struct offcode_prune_options {
	size_t size;
	const char *keep;	/* --keep TARGETS: rules as offcode_entry_matches */
	const char *drop;	/* --drop PATTERNS: rules whose entries go */
	bool exact;		/* --exact */
	bool allow_empty;	/* --allow-empty */
	bool keep_layout;	/* --keep-layout */
	enum offcode_compress compress;	/* --compress[=METHOD] */
	unsigned ccob_version;	/* --ccob-version (0: as prune decides) */
	int compression_level;	/* --compression-level (0: the default) */
	unsigned threads;	/* --jobs (0 or 1: one thread) */
	uint64_t ccob_max_size, ccob_max_ratio;	/* as offcode_open_options */
};
/* What it did (size = sizeof before the call). */
struct offcode_prune_result {
	size_t size;
	uint64_t size_before, size_after;	/* bytes of the file */
	size_t entries_kept, entries_dropped;
	bool changed;		/* whether anything was dropped or compressed
				 * (out is written either way) */
};

/* Prune the file at path in into a new file out (written beside it under a
 * temporary name and renamed into place; never over in), keeping the
 * entries keep takes and drop does not, as `offload prune in -o out`
 * does: 0, or an enum offcode_code with *err as offcode_open_path's.
 * result may be NULL. */
OFFCODE_API int offcode_prune(const char *in, const char *out,
			      const struct offcode_prune_options *options,
			      struct offcode_prune_result *result,
			      offcode_error **err);

#ifdef __cplusplus
}
#endif

#endif
