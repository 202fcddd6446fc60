/* progress: see progress.h. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static const char *who, *what;
static bool on, shown;
static struct timespec last;
static int last_percent = -1;

void progress_init(const char *applet, bool quiet)
{
	who = applet;
	on = !quiet && isatty(2);
	clock_gettime(CLOCK_MONOTONIC, &last);
}

bool progress_on(void)
{
	return on;
}

void progress_name(const char *name)
{
	what = name;
	last_percent = -1;
	clock_gettime(CLOCK_MONOTONIC, &last);
}

void progress_show(uint64_t done, uint64_t total)
{
	struct timespec now;
	int percent = total ? (int)(done * 100 / total) : 100;

	if (!on || percent == last_percent)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* A quarter of a second between lines, and before the first: work
	 * that ends sooner shows only its 100%. */
	if (percent < 100 &&
	    (now.tv_sec - last.tv_sec) * 1000000000L +
	    (now.tv_nsec - last.tv_nsec) < 250000000L)
		return;
	last = now;
	last_percent = percent;
	shown = true;
	fprintf(stderr, "\roffload %s: %s: %3d%%", who, what ? what : "-",
		percent);
}

void progress_callback(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	progress_show(done, total);
}

void progress_end(void)
{
	if (shown)
		fputs("\r\033[K", stderr);
	shown = false;
	last_percent = -1;
}
