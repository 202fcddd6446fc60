/* ar_test: drive formats/ar and formats/bitcode from the command line, so
 * test/ar.test and test/ar_differential.py can hold them against LLVM 22's
 * llvm-ar and llvm-nm.
 *
 *   ar_test t ARCHIVE            member names, as `llvm-ar t` prints them
 *   ar_test tv ARCHIVE           kind, then offset, size and attributes
 *   ar_test armap ARCHIVE        the symbol table, as `llvm-nm --print-armap`
 *                                prints its "Archive map" (without a blank
 *                                line after it)
 *   ar_test syms FILE...         what the archive writer lists per file
 *   ar_test bcsyms FILE          every IR symbol with its flags
 *   ar_test validate FILE...     ar_validate: "ok" or the error
 *   ar_test bcvalidate FILE...   bitcode_validate
 *   ar_test write [-S] [-U] [-T] [-C] OUT FILE...
 *                                an archive as `llvm-ar rc[S]{D|U}[T]
 *                                --format=gnu OUT FILE...` writes it (member
 *                                names are base names, or the paths as given
 *                                with -T; -C: --format=coff); $SYM64_THRESHOLD
 *                                as LLVM reads it
 *   ar_test extract ARCHIVE      each member's bytes to stdout, in order
 *   ar_test bigmember OUT        try a member of 10^10 bytes (from one
 *                                buffer, repeated): refused before writing
 *   ar_test copy [-S] [-U] IN OUT
 *                                read IN with ar_open/ar_next and write its
 *                                members (names, data, attributes) with
 *                                ar_write: LLVM's own archives come back
 *                                byte for byte (a COFF archive as COFF)
 *
 * Errors print "ar_test: <file>: <message>" and exit 1. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../core/io_in.h"
#include "../../core/io_out.h"
#include "../../formats/ar.h"
#include "../../formats/ar_write.h"
#include "../../formats/ar_symbols.h"
#include "../../formats/bitcode.h"

static int fail(const char *file, const struct err *e)
{
	fprintf(stderr, "ar_test: %s: %s\n", file, e->msg);
	return 1;
}

static const char *kind_name(const struct ar_reader *r)
{
	static const char *const names[] = { "gnu", "gnu64", "bsd",
					     "darwin64", "coff" };

	return names[r->kind];
}

static int list(const char *path, bool verbose)
{
	struct io_in in;
	struct ar_reader r;
	struct ar_member m;
	struct ar_attrs a;
	struct err e;
	int rc;

	if (io_in_open(&in, path, &e) < 0)
		return fail(path, &e);
	if (ar_open(&r, in.data, in.len, &e) < 0) {
		io_in_close(&in);
		return fail(path, &e);
	}
	if (verbose)
		printf("%s%s symtab=%zu strtab=%zu\n", kind_name(&r),
		       r.thin ? " thin" : "", r.symtab_len, r.strtab_len);
	while ((rc = ar_next(&r, &m, &e)) > 0) {
		if (!verbose) {
			/* Names may hold NULs: all their bytes, as llvm-ar. */
			fwrite(m.name, 1, m.name_len, stdout);
			putchar('\n');
			continue;
		}
		if (ar_member_attrs(&r, &m, &a, &e) < 0)
			break;
		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 "%s %" PRIu64
		       " %" PRIu32 " %" PRIu32 " %o %.*s\n", m.header,
		       m.offset, m.size, m.thin ? " thin" : "", a.mtime,
		       a.uid, a.gid, (unsigned)a.mode, (int)m.name_len,
		       m.name);
	}
	io_in_close(&in);
	return rc < 0 || (verbose && rc > 0) ? fail(path, &e) : 0;
}

struct armap {
	uint64_t *at;
	char **name;
	size_t n;
	bool printed;	/* llvm-nm prints no title for a table without symbols */
};

static int print_symbol(void *ctx, const char *name, size_t len,
			uint64_t member)
{
	struct armap *map = ctx;

	if (!map->printed)
		printf("Archive map\n");
	map->printed = true;
	for (size_t i = 0; i < map->n; i++)
		if (map->at[i] == member) {
			printf("%.*s in %s\n", (int)len, name, map->name[i]);
			return 0;
		}
	printf("%.*s in ?%" PRIu64 "\n", (int)len, name, member);
	return 0;
}

static int armap(const char *path)
{
	struct io_in in;
	struct ar_reader r;
	struct ar_member m;
	struct armap map = { NULL, NULL, 0, false };
	struct err e;
	int rc;

	if (io_in_open(&in, path, &e) < 0)
		return fail(path, &e);
	if (ar_open(&r, in.data, in.len, &e) < 0) {
		io_in_close(&in);
		return fail(path, &e);
	}
	map.at = calloc(in.len / AR_HEADER_LEN + 1, sizeof(*map.at));
	map.name = calloc(in.len / AR_HEADER_LEN + 1, sizeof(*map.name));
	while (map.at && map.name && (rc = ar_next(&r, &m, &e)) > 0) {
		map.at[map.n] = m.header;
		map.name[map.n++] = strndup(m.name, m.name_len);
	}
	if (!map.at || !map.name) {
		fprintf(stderr, "ar_test: out of memory\n");
		exit(1);
	}
	if (rc == 0)
		rc = ar_symbols(&r, print_symbol, &map, &e);
	for (size_t i = 0; i < map.n; i++)
		free(map.name[i]);
	free(map.at);
	free(map.name);
	io_in_close(&in);
	return rc < 0 ? fail(path, &e) : 0;
}

static int syms(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		struct io_in in;
		struct ar_symlist l;
		struct err e;

		if (io_in_open(&in, argv[i], &e) < 0)
			return fail(argv[i], &e);
		if (ar_member_symbols(in.data, in.len, &l, &e) < 0) {
			io_in_close(&in);
			return fail(argv[i], &e);
		}
		printf("%s:%s\n", argv[i], l.symbolic ? "" : " not symbolic");
		for (size_t off = 0; off < l.len; off += strlen(l.syms + off) + 1)
			printf("%s\n", l.syms + off);
		ar_symlist_free(&l);
		io_in_close(&in);
	}
	return 0;
}

static int bcsyms(const char *path)
{
	static const char *const flag[] = {
		"vis0", "vis1", "uncommon", "undefined", "weak", "common",
		"indirect", "used", "tls", "may_omit", "global",
		"format_specific", "unnamed_addr", "executable",
	};
	struct io_in in;
	struct bitcode_symtab t;
	struct bitcode_symbol s;
	struct err e;

	if (io_in_open(&in, path, &e) < 0)
		return fail(path, &e);
	if (bitcode_symtab_open(&t, in.data, in.len, &e) < 0)
		goto bad;
	printf("version %" PRIu32 " modules %" PRIu32 " producer %.*s triple "
	       "%.*s source %.*s\n", t.version, t.modules,
	       (int)t.producer_len, t.producer, (int)t.triple_len, t.triple,
	       (int)t.source_len, t.source);
	for (uint32_t i = 0; i < t.nsyms; i++) {
		if (bitcode_symbol(&t, i, &s, &e) < 0)
			goto bad;
		printf("%.*s [%.*s] comdat %" PRId32 ":", (int)s.name_len,
		       s.name, (int)s.ir_name_len, s.ir_name, s.comdat);
		for (unsigned b = 0; b < 14; b++)
			if (s.flags >> b & 1)
				printf(" %s", flag[b]);
		printf("\n");
	}
	io_in_close(&in);
	return 0;
bad:
	io_in_close(&in);
	return fail(path, &e);
}

static int validate(int argc, char **argv, bool bitcode)
{
	int status = 0;

	for (int i = 0; i < argc; i++) {
		struct io_in in;
		struct err e;

		if (io_in_open(&in, argv[i], &e) < 0)
			return fail(argv[i], &e);
		if ((bitcode ? bitcode_validate : ar_validate)(in.data, in.len,
							       &e) < 0) {
			printf("%s: %s\n", argv[i], e.msg);
			status = 1;
		} else {
			printf("%s: ok\n", argv[i]);
		}
		io_in_close(&in);
	}
	return status;
}

static int extract(const char *path)
{
	struct io_in in;
	struct ar_reader r;
	struct ar_member m;
	struct err e;
	int rc;

	if (io_in_open(&in, path, &e) < 0)
		return fail(path, &e);
	if (ar_open(&r, in.data, in.len, &e) < 0) {
		io_in_close(&in);
		return fail(path, &e);
	}
	while ((rc = ar_next(&r, &m, &e)) > 0)
		if (!m.thin)
			fwrite(in.data + m.offset, 1, m.size, stdout);
	io_in_close(&in);
	return rc < 0 ? fail(path, &e) : 0;
}

static int write_archive(int argc, char **argv)
{
	struct ar_write_opts opt = { AR_WRITE_SYMTAB | AR_WRITE_DETERMINISTIC,
				     0, 0, AR_GNU };
	struct ar_new_member *m;
	struct ar_piece *piece;
	struct ar_symlist *sym;
	struct io_in *in;
	struct io_out out;
	struct err e;
	const char *path;
	int i = 0, n, status = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-S"))
			opt.flags &= ~(unsigned)AR_WRITE_SYMTAB;
		else if (!strcmp(argv[i], "-U"))
			opt.flags &= ~(unsigned)AR_WRITE_DETERMINISTIC;
		else if (!strcmp(argv[i], "-T"))
			opt.flags |= AR_WRITE_THIN;
		else if (!strcmp(argv[i], "-C"))
			opt.kind = AR_COFF;
	}
	if (i >= argc) {
		fprintf(stderr, "ar_test: write: no output\n");
		return 2;
	}
	path = argv[i++];
	n = argc - i;
	opt.sym64_threshold = ar_sym64_threshold(getenv("SYM64_THRESHOLD"));
	opt.now = (int64_t)time(NULL);
	m = calloc((size_t)n + 1, sizeof(*m));
	piece = calloc((size_t)n + 1, sizeof(*piece));
	sym = calloc((size_t)n + 1, sizeof(*sym));
	in = calloc((size_t)n + 1, sizeof(*in));
	if (!m || !piece || !sym || !in) {
		fprintf(stderr, "ar_test: out of memory\n");
		return 1;
	}
	for (int k = 0; k < n; k++) {
		const char *file = argv[i + k];
		struct stat st;

		if (io_in_open(&in[k], file, &e) < 0) {
			fail(file, &e);
			goto out;
		}
		if ((opt.flags & AR_WRITE_SYMTAB) &&
		    ar_member_symbols(in[k].data, in[k].len, &sym[k], &e) < 0) {
			fail(file, &e);
			goto out;
		}
		piece[k] = (struct ar_piece){ in[k].data, in[k].len };
		m[k].name = opt.flags & AR_WRITE_THIN ? file :
			    strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		m[k].name_len = strlen(m[k].name);
		m[k].piece = &piece[k];
		m[k].npieces = 1;
		m[k].symbolic = sym[k].symbolic;
		m[k].syms = sym[k].syms;
		m[k].syms_len = sym[k].len;
		m[k].nsyms = sym[k].n;
		m[k].ec = sym[k].ec;
		if (stat(file, &st) == 0) {
			m[k].mtime = (int64_t)st.st_mtime;
			m[k].uid = (uint32_t)st.st_uid;
			m[k].gid = (uint32_t)st.st_gid;
			m[k].mode = (uint32_t)st.st_mode & 07777;
		}
	}
	if (io_out_open(&out, path, &e) < 0) {
		fail(path, &e);
		goto out;
	}
	if (ar_write(&out, m, (size_t)n, &opt, &e) < 0) {
		io_out_discard(&out);
		fail(path, &e);
		goto out;
	}
	if (io_out_commit(&out, &e) < 0) {
		fail(path, &e);
		goto out;
	}
	status = 0;
out:
	for (int k = 0; k < n; k++) {
		ar_symlist_free(&sym[k]);
		if (in[k].data || in[k].heap)
			io_in_close(&in[k]);
	}
	free(m);
	free(piece);
	free(sym);
	free(in);
	return status;
}

static int bigmember(const char *path)
{
	static const uint8_t block[1 << 20];
	enum { PIECES = 9537 };	/* 9537 MiB: just past 9999999999 bytes */
	struct ar_write_opts opt = { AR_WRITE_SYMTAB | AR_WRITE_DETERMINISTIC,
				     AR_SYM64_THRESHOLD, 0, AR_GNU };
	struct ar_piece *piece = calloc(PIECES, sizeof(*piece));
	struct ar_new_member m = { "big", 3, piece, PIECES, false, NULL, 0, 0,
				   0, 0, 0, 0, 0 };
	struct io_out out;
	struct err e;
	int status = 1;

	if (!piece)
		return 1;
	for (int i = 0; i < PIECES; i++)
		piece[i] = (struct ar_piece){ block, sizeof(block) };
	if (io_out_open(&out, path, &e) == 0 &&
	    ar_write(&out, &m, 1, &opt, &e) == 0 &&
	    io_out_commit(&out, &e) == 0)
		status = 0;
	else
		io_out_discard(&out);
	free(piece);
	return status ? fail(path, &e) : 0;
}

static int copy(int argc, char **argv)
{
	struct ar_write_opts opt = { AR_WRITE_SYMTAB | AR_WRITE_DETERMINISTIC,
				     0, 0, AR_GNU };
	struct ar_new_member *m = NULL;
	struct ar_piece *piece = NULL;
	struct ar_symlist *sym = NULL;
	struct ar_reader r;
	struct ar_member am;
	struct ar_attrs a;
	struct io_in in;
	struct io_out out;
	struct err e;
	size_t n = 0, cap;
	int i = 0, rc, status = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-S"))
			opt.flags &= ~(unsigned)AR_WRITE_SYMTAB;
		else if (!strcmp(argv[i], "-U"))
			opt.flags &= ~(unsigned)AR_WRITE_DETERMINISTIC;
	}
	if (argc - i != 2) {
		fprintf(stderr, "ar_test: copy: IN OUT\n");
		return 2;
	}
	opt.sym64_threshold = ar_sym64_threshold(getenv("SYM64_THRESHOLD"));
	if (io_in_open(&in, argv[i], &e) < 0)
		return fail(argv[i], &e);
	if (ar_open(&r, in.data, in.len, &e) < 0) {
		io_in_close(&in);
		return fail(argv[i], &e);
	}
	if (r.kind == AR_COFF)
		opt.kind = AR_COFF;
	cap = in.len / AR_HEADER_LEN + 1;
	m = calloc(cap, sizeof(*m));
	piece = calloc(cap, sizeof(*piece));
	sym = calloc(cap, sizeof(*sym));
	if (!m || !piece || !sym) {
		fprintf(stderr, "ar_test: out of memory\n");
		goto out;
	}
	while ((rc = ar_next(&r, &am, &e)) > 0) {
		if (am.thin || ar_member_attrs(&r, &am, &a, &e) < 0) {
			if (am.thin)
				err_set(&e, "thin archives are not copied");
			rc = -1;
			break;
		}
		piece[n] = (struct ar_piece){ in.data + am.offset,
					      (size_t)am.size };
		if ((opt.flags & AR_WRITE_SYMTAB) &&
		    ar_member_symbols(piece[n].buf, piece[n].len, &sym[n],
				      &e) < 0) {
			rc = -1;
			break;
		}
		m[n] = (struct ar_new_member){
			am.name, am.name_len, &piece[n], 1, sym[n].symbolic,
			sym[n].syms, sym[n].len, sym[n].n, (int64_t)a.mtime,
			a.uid, a.gid, a.mode, sym[n].ec,
		};
		n++;
	}
	if (rc < 0) {
		fail(argv[i], &e);
		goto out;
	}
	if (io_out_open(&out, argv[i + 1], &e) < 0 ||
	    ar_write(&out, m, n, &opt, &e) < 0) {
		io_out_discard(&out);
		fail(argv[i + 1], &e);
		goto out;
	}
	if (io_out_commit(&out, &e) < 0) {
		fail(argv[i + 1], &e);
		goto out;
	}
	status = 0;
out:
	for (size_t k = 0; sym && k < n; k++)
		ar_symlist_free(&sym[k]);
	free(m);
	free(piece);
	free(sym);
	io_in_close(&in);
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: ar_test t|tv|armap|syms|bcsyms|validate|"
			"bcvalidate|write|extract|bigmember|copy ...\n");
		return 2;
	}
	if (!strcmp(argv[1], "t"))
		return list(argv[2], false);
	if (!strcmp(argv[1], "tv"))
		return list(argv[2], true);
	if (!strcmp(argv[1], "armap"))
		return armap(argv[2]);
	if (!strcmp(argv[1], "syms"))
		return syms(argc - 2, argv + 2);
	if (!strcmp(argv[1], "bcsyms"))
		return bcsyms(argv[2]);
	if (!strcmp(argv[1], "validate"))
		return validate(argc - 2, argv + 2, false);
	if (!strcmp(argv[1], "bcvalidate"))
		return validate(argc - 2, argv + 2, true);
	if (!strcmp(argv[1], "write"))
		return write_archive(argc - 2, argv + 2);
	if (!strcmp(argv[1], "extract"))
		return extract(argv[2]);
	if (!strcmp(argv[1], "bigmember"))
		return bigmember(argv[2]);
	if (!strcmp(argv[1], "copy"))
		return copy(argc - 2, argv + 2);
	fprintf(stderr, "ar_test: unknown command %s\n", argv[1]);
	return 2;
}
