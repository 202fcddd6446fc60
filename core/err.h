/* err: the error record that core/ and formats/ fill and applets print. */
#ifndef CORE_ERR_H
#define CORE_ERR_H

/* One line describing what went wrong.  Libraries never print or exit; they
 * fill this and return -1, and the applet decides how to show it. */
struct err {
	char msg[768];
};

/* Fill e (if not NULL) with a printf-style message; always returns -1 so a
 * failure path reads "return err_set(e, ...)". */
int err_set(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
