/* names: the names of the files a program writes, each once
 * (include/offcode.h, "files written"): core/outnames.c's set, whose
 * names are extract's. */
#include <stdlib.h>
#include <string.h>

#include "../include/offcode.h"
#include "../core/outnames.h"

struct offcode_names {
	struct outnames taken;
};

int offcode_names_new(offcode_names **out)
{
	if (!out)
		return OFFCODE_INVALID;
	*out = calloc(1, sizeof(**out));
	return *out ? OFFCODE_OK : OFFCODE_NOMEM;
}

int offcode_names_take(offcode_names *names, const char *name,
		       const char **out)
{
	char *copy;

	if (!out)
		return OFFCODE_INVALID;
	*out = NULL;
	if (!names || !name)
		return OFFCODE_INVALID;
	/* outnames_unique takes the copy over, freed when it fails. */
	if (!(copy = strdup(name)) ||
	    !(*out = outnames_unique(&names->taken, copy)))
		return OFFCODE_NOMEM;
	return OFFCODE_OK;
}

void offcode_names_free(offcode_names *names)
{
	if (!names)
		return;
	outnames_free(&names->taken);
	free(names);
}
