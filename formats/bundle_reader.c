/* bundle_reader: the next entry, its content, skipping it, for a reader
 * of any layout (as its bundle_open_* left it). */
#include "bundle.h"
#include "bundle_binary.h"
#include "bundle_text.h"
#include "bundle_object.h"
#include "bundle_reader.h"

int bundle_next(struct bundle_reader *r, struct bundle_entry *ent)
{
	if (r->object)
		return bundle_next_object(r, ent);
	return r->text ? bundle_next_text(r, ent) : bundle_next_binary(r, ent);
}

int bundle_content(struct bundle_reader *r, uint64_t *off, uint64_t *size,
		   struct err *e)
{
	if (r->text)
		return bundle_content_text(r, off, size, e);
	if (r->object)
		return bundle_content_object(r, off, size, e);
	return bundle_content_binary(r, off, size, e);
}

void bundle_skip(struct bundle_reader *r)
{
	if (r->text)
		bundle_skip_text(r);
}
