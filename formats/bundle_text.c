/* bundle_text: the text __CLANG_OFFLOAD_BUNDLE__ layout (i ii cui hipi d ll s):
 * entries between comment-line markers, content kept byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "bundle_text.h"

static const char START_WORD[] = "__CLANG_OFFLOAD_BUNDLE____START__ ";
static const char END_WORD[] = "__CLANG_OFFLOAD_BUNDLE____END__ ";

const char *bundle_text_comment(const uint8_t *buf, size_t len, char *cap,
				size_t cap_len)
{
	const uint8_t *nl, *at;
	size_t n;

	if (len < 2 || buf[0] != '\n')
		return NULL;
	nl = memchr(buf + 1, '\n', len - 1);
	if (!nl)
		return NULL;
	/* "<comment> <word>" */
	at = memmem(buf + 1, (size_t)(nl - buf - 1), START_WORD,
		    sizeof(START_WORD) - 1);
	if (!at || at < buf + 3 || at[-1] != ' ')
		return NULL;
	n = (size_t)(at - 1 - buf - 1);
	if (n >= cap_len || memchr(buf + 1, ' ', n))
		return NULL;
	memcpy(cap, buf + 1, n);
	cap[n] = 0;
	return cap;
}

/* "\n<comment> <word>": the newline before a marker belongs to the marker. */
static size_t marker(char *out, size_t cap, const char *comment,
		     const char *word)
{
	int n = snprintf(out, cap, "\n%s %s", comment, word);

	return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

int bundle_plan_text(const char *comment, const char *const *ids,
		     const uint64_t *sizes, size_t n, struct bundle_plan *plan,
		     struct err *e)
{
	char start[64], end[64];
	size_t start_len = marker(start, sizeof(start), comment, START_WORD);
	size_t end_len = marker(end, sizeof(end), comment, END_WORD);
	size_t lits = 0;
	uint8_t *p;

	memset(plan, 0, sizeof(*plan));
	if (!start_len || !end_len)
		return err_set(e, "comment marker too long");
	for (size_t i = 0; i < n; i++)
		lits += start_len + end_len + 2 * (strlen(ids[i]) + 1);
	plan->piece = calloc(2 * n + 1, sizeof(*plan->piece));
	plan->storage = malloc(lits ? lits : 1);
	if (!plan->piece || !plan->storage) {
		bundle_plan_free(plan);
		return err_nomem(e);
	}
	p = plan->storage;
	for (size_t i = 0; i < n; i++) {
		size_t id_len = strlen(ids[i]);
		uint8_t *lit = p;

		memcpy(p, start, start_len);
		memcpy(p + start_len, ids[i], id_len);
		p[start_len + id_len] = '\n';
		p += start_len + id_len + 1;
		plan->piece[plan->n++] = (struct bundle_piece){
			lit, (size_t)(p - lit), 0, (long)i };
		lit = p;
		memcpy(p, end, end_len);
		memcpy(p + end_len, ids[i], id_len);
		p[end_len + id_len] = '\n';
		p += end_len + id_len + 1;
		plan->piece[plan->n++] = (struct bundle_piece){
			lit, (size_t)(p - lit), 0, -1 };
		plan->total += sizes[i];
	}
	plan->total += (uint64_t)(p - plan->storage);
	return 0;
}

void bundle_open_text(struct bundle_reader *r, const char *comment,
		      const uint8_t *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
	r->text = true;
	r->start_len = marker(r->start, sizeof(r->start), comment, START_WORD);
	r->end_len = marker(r->end, sizeof(r->end), comment, END_WORD);
}

static const uint8_t *find(const struct bundle_reader *r, size_t from,
			   const void *needle, size_t n)
{
	if (from > r->len)
		return NULL;
	return memmem(r->buf + from, r->len - from, needle, n);
}

int bundle_next_text(struct bundle_reader *r, struct bundle_entry *ent)
{
	const uint8_t *at, *nl;
	size_t id;

	if (r->at_end)
		return 0;
	at = find(r, r->pos, r->start, r->start_len);
	if (!at) {
		r->at_end = true;
		return 0;
	}
	id = (size_t)(at - r->buf) + r->start_len;
	nl = find(r, id, "\n", 1);
	if (!nl) {
		r->at_end = true;
		return 0;
	}
	ent->id = (const char *)r->buf + id;
	ent->id_len = (size_t)(nl - r->buf) - id;
	r->pos = (size_t)(nl - r->buf) + 1;
	return 1;
}

/* Move past the line the cursor's first byte ends (the cursor is at an END
 * marker, whose first byte is its newline): LLVM's ReadBundleEnd. */
static void past_line(struct bundle_reader *r)
{
	const uint8_t *nl = find(r, r->pos + 1, "\n", 1);

	if (!nl) {
		r->at_end = true;
		return;
	}
	r->pos = (size_t)(nl - r->buf) + 1;
}

/* The content runs to the END marker; the cursor then moves past the END
 * line.  The ID on the END line is not checked, as in LLVM. */
int bundle_content_text(struct bundle_reader *r, uint64_t *off, uint64_t *size,
			struct err *e)
{
	const uint8_t *end = find(r, r->pos, r->end, r->end_len);

	if (!end)
		return err_cut(e, "bundle entry has no END marker");
	*off = r->pos;
	*size = (uint64_t)(end - r->buf) - r->pos;
	r->pos = (size_t)(end - r->buf);
	past_line(r);
	return 0;
}

/* --list: to the next END marker and past its line, as LLVM's
 * listBundleIDsCallback goes.  The newline that ends the END line is
 * taken, so a START marker right after it (whose newline that is) is not
 * found, as in LLVM; without an END, the walk is over. */
void bundle_skip_text(struct bundle_reader *r)
{
	const uint8_t *end = find(r, r->pos, r->end, r->end_len);

	if (!end) {
		r->at_end = true;
		return;
	}
	r->pos = (size_t)(end - r->buf);
	past_line(r);
}
