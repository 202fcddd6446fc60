/* progress: the one progress line of our own applets (ccob, extract,
 * ls --verify, prune): on standard error, only when it is a terminal and
 * -q was not given, a few updates a second (zstd's DISPLAYUPDATE), wiped
 * when the work is done. */
#ifndef APPLETS_PROGRESS_H
#define APPLETS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* Whether there will be a line at all: stderr a terminal, not quiet. */
void progress_init(const char *applet, bool quiet);
bool progress_on(void);
/* What the line is about (a file name; kept, not copied). */
void progress_name(const char *name);
/* done of total: "offload <applet>: <name>: NN%".  The one at 100% is
 * always shown, the others at most 4 times a second, the first a quarter
 * of a second after progress_init or progress_name (a short job shows
 * only its 100%). */
void progress_show(uint64_t done, uint64_t total);
/* progress_show in the shape of the CCOB codecs' progress callback (ctx
 * unused: the line is the process's one terminal line). */
void progress_callback(void *ctx, uint64_t done, uint64_t total);
/* Wipe the line, if one was shown. */
void progress_end(void);

#endif
