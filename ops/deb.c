/* deb: a Debian package's members and control files (deb.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deb.h"
#include "../formats/ar.h"

static const char DEBIAN_BINARY[] = "debian-binary";

bool deb_probe(const uint8_t *buf, size_t len)
{
	return len >= AR_MAGIC_LEN + 13 && !memcmp(buf, AR_MAGIC, AR_MAGIC_LEN) &&
	       !memcmp(buf + AR_MAGIC_LEN, DEBIAN_BINARY, 13);
}

bool deb_is(const char *path)
{
	uint8_t head[AR_MAGIC_LEN + 16];
	struct stat st;
	ssize_t n;
	int fd;

	/* A FIFO or a device is never opened here: the probe would take
	 * what its writer wrote (or unblock it) before the command reads. */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return false;
	n = read(fd, head, sizeof(head));
	close(fd);
	return n > 0 && deb_probe(head, (size_t)n);
}

const char *deb_name(const char *name, size_t *len)
{
	while (*len && (name[0] == '/' ||
			(*len >= 2 && name[0] == '.' && name[1] == '/'))) {
		size_t cut = name[0] == '/' ? 1 : 2;

		name += cut;
		*len -= cut;
	}
	return name;
}

/* The codec a tar member's suffix names: 0, or -1 for one not read. */
static int tar_suffix(const char *s, enum layer_codec *c)
{
	static const struct {
		const char *suffix;
		enum layer_codec codec;
	} known[] = {
		{ "", LAYER_NONE }, { ".gz", LAYER_GZIP },
		{ ".xz", LAYER_XZ }, { ".zst", LAYER_ZSTD },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(s, known[i].suffix)) {
			*c = known[i].codec;
			return 0;
		}
	return -1;
}

/* The members, in dpkg-deb's order: debian-binary, control.tar.*,
 * data.tar.*, each '_' member anywhere after the first. */
static int read_members(struct deb *d, struct err *e)
{
	struct ar_reader r;
	struct ar_member m;
	int got;

	d->control = d->data = DEB_MEMBERS_MAX;
	if (ar_open(&r, d->in.data, d->in.len, e) < 0)
		return -1;
	if (r.thin)
		return err_code_set(e, ERR_MALFORMED, "a thin archive is "
				    "not a package");
	while ((got = ar_next(&r, &m, e)) > 0) {
		struct deb_member *dm = &d->member[d->nmember];
		size_t n = m.name_len;
		const char *want = d->nmember == 0 ? DEBIAN_BINARY :
				   d->control == DEB_MEMBERS_MAX ? "control.tar" :
				   "data.tar";

		while (n && (m.name[n - 1] == '/' || m.name[n - 1] == ' '))
			n--;
		if (d->nmember == DEB_MEMBERS_MAX || n >= sizeof(dm->name))
			return err_code_set(e, ERR_MALFORMED, "member '%.*s' "
					    "is not one of a package's",
					    (int)m.name_len, m.name);
		memcpy(dm->name, m.name, n);
		dm->name[n] = 0;
		dm->header = m.header;
		dm->offset = m.offset;
		dm->size = m.size;
		if (d->nmember && dm->name[0] == '_') {
			d->nmember++;
			continue;
		}
		if (d->data != DEB_MEMBERS_MAX ||
		    strncmp(dm->name, want, strlen(want)) ||
		    (d->nmember && tar_suffix(dm->name + strlen(want),
					      &dm->codec) < 0))
			return err_code_set(e, ERR_MALFORMED, "member '%s' "
					    "where %s%s was expected", dm->name,
					    want, d->nmember ? ".*" : "");
		if (!d->nmember && (m.size < 4 || memcmp(d->in.data + m.offset,
							 "2.", 2)))
			return err_code_set(e, ERR_MALFORMED, "debian-binary "
					    "is not a format 2.x package");
		if (d->nmember && d->control == DEB_MEMBERS_MAX)
			d->control = d->nmember;
		else if (d->nmember)
			d->data = d->nmember;
		d->nmember++;
	}
	if (got < 0)
		return -1;
	if (d->data == DEB_MEMBERS_MAX)
		return err_cut(e, "no %s member", d->control == DEB_MEMBERS_MAX ?
			       "control.tar" : "data.tar");
	return 0;
}

/* A decompressed stream of member i read whole, at most DEB_CONTROL_MAX
 * bytes. */
static int read_control(struct deb *d, struct err *e)
{
	const struct deb_member *m = &d->member[d->control];
	struct layer_reader *r = NULL;
	size_t cap = 1 << 16, got = 0;
	int rc = -1;

	if (layer_reader_open(&r, m->codec, d->in.data + m->offset,
			      (size_t)m->size, e) < 0)
		return -1;
	for (;;) {
		uint8_t *grown;
		size_t n;

		if (got == cap && cap >= DEB_CONTROL_MAX) {
			err_code_set(e, ERR_MALFORMED, "%s holds more than %d "
				     "bytes", m->name, DEB_CONTROL_MAX);
			goto out;
		}
		if (!d->control_tar || got == cap) {
			if (d->control_tar)
				cap *= 2;
			if (!(grown = realloc(d->control_tar, cap))) {
				err_nomem(e);
				goto out;
			}
			d->control_tar = grown;
		}
		if (layer_reader_read(r, d->control_tar + got, cap - got, &n,
				      e) < 0) {
			err_wrap(e, e->code, "%s", m->name);
			goto out;
		}
		got += n;
		if (got < cap)
			break;
	}
	d->control_len = got;
	rc = 0;
out:
	layer_reader_close(r);
	return rc;
}

/* md5sums and control kept, NUL-ended. */
static int keep_control_file(void *ctx, const struct layer_member *m,
			     const struct io_in *data, struct io_in *repl,
			     struct err *e)
{
	struct deb *d = ctx;
	size_t len = m->name_len;
	const char *name = deb_name(m->name, &len);
	char **to = NULL;
	size_t *to_len = NULL;

	(void)repl;
	if (len == 7 && !memcmp(name, "md5sums", 7)) {
		to = &d->md5sums;
		to_len = &d->md5sums_len;
	} else if (len == 7 && !memcmp(name, "control", 7)) {
		to = &d->control_text;
		to_len = &d->control_text_len;
	}
	if (!to)
		return 0;
	free(*to);
	if (!(*to = malloc(data->len + 1)))
		return err_nomem(e);
	memcpy(*to, data->data, data->len);
	(*to)[data->len] = 0;
	*to_len = data->len;
	return 0;
}

/* Each md5sums line: 32 hex digits, two spaces, a name. */
static int check_md5sums(const struct deb *d, struct err *e)
{
	const char *p = d->md5sums, *end = p + d->md5sums_len;
	unsigned line = 1;

	for (; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		if (nl - p < 35 || strspn(p, "0123456789abcdef") != 32 ||
		    p[32] != ' ' || (p[33] != ' ' && p[33] != '*'))
			return err_code_set(e, ERR_MALFORMED, "md5sums line "
					    "%u is not \"<md5>  <file>\"", line);
		p = nl + 1;
	}
	return 0;
}

int deb_open(struct deb *d, const char *path, struct err *e)
{
	struct io_in in = { .fd = -1 };

	memset(d, 0, sizeof(*d));
	d->in.fd = -1;
	if (io_in_open(&in, path, e) < 0)
		return -1;
	return deb_open_in(d, &in, path, e);
}

int deb_open_in(struct deb *d, struct io_in *in, const char *path,
		struct err *e)
{
	struct layer_memory mr;
	struct layer_walk w = {
		.read = layer_memory_read, .read_ctx = &mr, .wants = layer_every_file,
		.member = keep_control_file,
	};

	memset(d, 0, sizeof(*d));
	d->in = *in;
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	d->path = path;
	if (read_members(d, e) < 0 || read_control(d, e) < 0)
		return -1;
	mr = (struct layer_memory){ d->control_tar, d->control_len, 0 };
	w.ctx = d;
	if (layer_walk(&w, e) < 0)
		return err_wrap(e, e->code, "%s", d->member[d->control].name);
	if (!d->control_text)
		return err_code_set(e, ERR_MALFORMED, "%s has no control "
				    "file", d->member[d->control].name);
	if (d->md5sums && check_md5sums(d, e) < 0)
		return -1;
	return 0;
}

void deb_close(struct deb *d)
{
	io_in_close(&d->in);
	free(d->control_tar);
	free(d->md5sums);
	free(d->control_text);
	memset(d, 0, sizeof(*d));
	d->in.fd = -1;
}

int deb_data_walk(struct deb *d, struct layer_walk *w, struct err *e)
{
	const struct deb_member *m = &d->member[d->data];
	struct layer_reader *r = NULL;
	int rc;

	if (layer_reader_open_threads(&r, m->codec, d->in.data + m->offset,
				      (size_t)m->size, d->decode_threads,
				      e) < 0)
		return -1;
	w->read = layer_reader_read;
	w->read_ctx = r;
	rc = layer_walk(w, e);
	if (rc < 0)
		err_wrap(e, e->code, "%s", m->name);
	layer_reader_close(r);
	return rc;
}

const char *deb_md5sum(const struct deb *d, const char *name, size_t len)
{
	const char *p = d->md5sums, *end;

	if (!p)		/* a package without md5sums */
		return NULL;
	end = p + d->md5sums_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *n = p + 34;
		size_t nlen;

		if (!nl)
			nl = end;
		nlen = (size_t)(nl - n);
		n = deb_name(n, &nlen);
		if (nlen == len && !memcmp(n, name, len))
			return p;
		p = nl + 1;
	}
	return NULL;
}
