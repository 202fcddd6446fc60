/* err: the error record that core/ and formats/ fill and applets print. */
#include <stdarg.h>
#include <stdio.h>

#include "err.h"

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}
