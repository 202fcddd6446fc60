/* kpack_outdir: the new output directory of kpack split and of kpack join
 * of artifacts checked before anything is written: new or empty, and
 * neither inside an input nor around one. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kpack_outdir.h"
#include "messages.h"

/* Whether the directory at path has nothing in it. */
static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

/* Whether path is dir or under it (both resolved). */
static bool inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n] ||
					  (n == 1 && dir[0] == '/'));
}

/* out resolved as far as it exists: the real path of its deepest existing
 * ancestor, then the rest as given. */
static char *resolve_out(const char *out)
{
	char *copy, *slash, *parent, *r;
	const char *name;

	if ((r = realpath(out, NULL)) || errno != ENOENT)
		return r;
	if (!(copy = strdup(out)))
		return NULL;
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = 0;
		name = slash + 1;
		parent = resolve_out(*copy ? copy : "/");
	} else {
		name = copy;
		parent = realpath(".", NULL);
	}
	if (!parent) {
		free(copy);
		return NULL;
	}
	r = malloc(strlen(parent) + strlen(name) + 2);
	if (r)
		sprintf(r, "%s/%s", parent, name);
	free(parent);
	free(copy);
	return r;
}

int kpack_outdir_check(const char *applet, const char *out,
		       const char *const *inputs, size_t n)
{
	char *rout = resolve_out(out);
	struct stat sb;
	int rc = 0;

	if (!rout)
		return applet_fail(applet, "cannot write", out, "%s",
				   strerror(errno));
	for (size_t i = 0; !rc && i < n; i++) {
		char *rin = realpath(inputs[i], NULL);

		if (!rin)
			rc = applet_fail(applet, "cannot read", inputs[i],
					 "%s", strerror(errno));
		else if (inside(rout, rin) || inside(rin, rout))
			rc = applet_fail(applet, "cannot write", out, "it is "
					 "%s '%s'", inside(rout, rin) ?
					 "inside" : "around", inputs[i]);
		free(rin);
	}
	/* An existing OUT must be an empty directory. */
	if (!rc && stat(out, &sb) == 0 &&
	    (!S_ISDIR(sb.st_mode) || !dir_empty(out)))
		rc = applet_fail(applet, "cannot write", out, "it exists and "
				 "is not an empty directory");
	free(rout);
	return rc;
}
