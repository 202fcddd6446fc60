/* selection: -t/--target as the inspecting applets share it; see
 * selection.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "selection.h"
#include "../ops/inspect.h"
#include "../core/native.h"
#include "../ops/kinds.h"
#include "../ops/lone_code.h"
#include "../formats/kernels.h"
#include "../formats/nvfatbin.h"

int applet_entry_of(struct applet_entry *ae, const struct inspect_node *n)
{
	struct inspect_target t;
	size_t len;

	memset(ae, 0, sizeof(*ae));
	inspect_entry_target(n, &t);
	/* The entry's ID (a NUL inside a bundle's ID does not cut it short)
	 * and the architecture -t matches, as its kind's row says. */
	if (!(ae->id = kinds_entry_id(n, &t, &len)))
		return -1;
	ae->en.id = ae->id;
	ae->en.id_len = len;
	ae->en.arch = kinds_select_arch(n, &t, ae->arch, sizeof(ae->arch),
					&ae->en.arch_len);
	ae->en.triple = t.triple;
	ae->en.triple_len = t.triple_len;
	ae->en.host = t.kind && t.kind_len == 4 && !memcmp(t.kind, "host", 4);
	return 0;
}

void applet_entry_free(struct applet_entry *ae)
{
	free(ae->id);
	ae->id = NULL;
}

int applet_select_unmatched(const char *applet, const char *option,
			    const char *file, const struct select *s)
{
	char *there = NULL;
	int rc = 0;

	for (size_t i = 0; i < s->n; i++) {
		char *t;

		if (s->rule[i].hit)
			continue;
		if (!there && !(there = select_seen_text(s)))
			return applet_fail(applet, NULL, "-", "out of memory");
		t = applet_escape(s->rule[i].text, strlen(s->rule[i].text),
				  false);
		fflush(stdout);
		fprintf(stderr, "offload %s: error: %s%s%sno code object "
			"matches %s '%s' (%s%s)\n", applet, file ? "'" : "",
			file ? file : "", file ? "': " : "", option, t ? t : "?",
			*there ? "there: " : "there is no device code",
			there);
		free(t);
		rc = 1;
	}
	free(there);
	return rc;
}

bool applet_keeps(struct select *keep, struct select *drop,
		  const struct select_entry *en)
{
	if (en->host || select_is_portable(en))
		return true;
	if (keep->n)
		return select_match(keep, en);
	return !select_match(drop, en);
}

int applet_select_add(struct select *s, const char *list, struct err *e)
{
	const char *p = list;
	char *gpus = NULL, *expanded = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	/* "native", a whole item, is this machine's GPUs (core/native.h). */
	for (p = strstr(list, "native"); p; p = strstr(p + 1, "native"))
		if ((p == list || p[-1] == ',') && (p[6] == ',' || !p[6]))
			break;
	if (!p)
		return select_add(s, list, e);
	if (native_targets(&gpus, e) < 0)
		return -1;
	if (!(f = open_memstream(&expanded, &len))) {
		free(gpus);
		return err_sys(e, "", ENOMEM);
	}
	for (p = list;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == 6 && !memcmp(p, "native", 6))
			fputs(gpus, f);
		else
			fwrite(p, 1, n, f);
		if (!end)
			break;
		fputc(',', f);
		p = end + 1;
	}
	free(gpus);
	if (fclose(f))
		return err_sys(e, "", ENOMEM);
	rc = select_add(s, expanded, e);
	free(expanded);
	return rc;
}

int applet_select_option(const char *applet, const char *option,
			 struct select *s, const char *list)
{
	struct err e;

	if (applet_select_add(s, list, &e) == 0)
		return 0;
	if (e.code != ERR_NOTHING)
		return applet_usage_error(applet, "%s", e.msg);
	fflush(stdout);
	fprintf(stderr, "offload %s: error: %s native: %s\n", applet, option,
		e.msg);
	return 1;
}

int applet_lone_code(const uint8_t *buf, size_t len,
		     char name[APPLET_CODE_NAME], struct select_entry *en)
{
	struct lone_code lc;
	int rc = lone_code_of(buf, len, &lc);

	if (rc != 1)
		return rc;
	_Static_assert((int)APPLET_CODE_NAME == (int)LONE_CODE_NAME,
		       "the same room");
	memcpy(name, lc.name, APPLET_CODE_NAME);
	memset(en, 0, sizeof(*en));
	en->id = en->arch = name;
	en->id_len = en->arch_len = strlen(name);
	en->triple = lc.triple;
	en->triple_len = strlen(en->triple);
	return 1;
}
