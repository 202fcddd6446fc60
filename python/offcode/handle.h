/* handle: the extension's Artifact, an open offcode_artifact and the lock
 * every call on it takes, and what the parts (open.c, listing.c, code.c,
 * layers.c) share of it.
 *
 * One artefact must not be used from two threads at once (offcode.h), and
 * the long calls (open, read, prune) run without the GIL, so each artefact
 * has a lock that every call on it takes (waiting for it without the GIL),
 * and closing it takes too: an entry a call found cannot be freed under
 * it. */
#ifndef OFFCODE_PY_HANDLE_H
#define OFFCODE_PY_HANDLE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <offcode.h>

typedef struct {
	PyObject_HEAD
	offcode_artifact *a;	/* set and cleared holding the GIL and lock */
	PyThread_type_lock lock;
	unsigned long walker;	/* the thread in a walk (each_code, ...), or 0 */
	Py_buffer view;		/* the caller's bytes, borrowed while open */
	int has_view;
	/* A file of a package handed over by walk_layer: the library's, for
	 * the call alone (never closed here; a is cleared after it). */
	int borrowed;
	/* Entries of a borrowed file being made (listing_entry_new): the
	 * allocation can run Python code (the collector) that lets another
	 * thread go, whose walk_layer call must not hand the file back while
	 * one is copied from its records. */
	int making;
	/* close() let go of its file (offcode_close_file): its records read
	 * on, for the entries made of them, freed with it; what reads the
	 * file is refused. */
	int file_closed;
	/* A bit for each entry whose image kind was read (from its code,
	 * while the file was open): the record keeps it, for the entries
	 * made after close() (NULL until the first). */
	unsigned char *kind_read;
	/* What its entries share (listing.c's), made with the first, and
	 * how it is freed (a part is not called back by name). */
	struct listing_texts *texts;
	void (*free_texts)(struct listing_texts *texts);
} Artifact;

/* offcode._offcode.Artifact; _offcode.c gives it its methods before
 * PyType_Ready. */
extern PyTypeObject handle_type;

/* A new Artifact with no artefact yet (NULL with an exception). */
Artifact *handle_new(void);
/* Take self's lock (waiting without the GIL, so that whoever holds it can
 * finish): 0 with the GIL and the lock held, or -1 with an exception.  A
 * walk holds the lock while the caller's function runs: a call on the
 * artefact from there is refused, not deadlocked. */
int handle_take(Artifact *self);
/* handle_take, and the artefact open, its file not closed: 0, or -1 with
 * an exception and the lock not held. */
int handle_lock(Artifact *self);
void handle_unlock(Artifact *self);
/* A walk (each_code, each_path, walk_layer) begun: self locked and held,
 * this thread its walker, the GIL let go (*ts its state, which the
 * walk's callbacks take it back with): 0, or -1 with an exception. */
int handle_walk_begin(Artifact *self, PyThreadState **ts);
/* The walk over: the GIL taken back (ts), self walked no more; still
 * locked and held, for the caller to read its results first, then
 * handle_walk_done. */
void handle_walk_end(Artifact *self, PyThreadState *ts);
/* self unlocked and let go, as handle_walk_begin took it. */
void handle_walk_done(Artifact *self);
/* Whether this thread is the one walking self (its lock held for it). */
int handle_walking_here(const Artifact *self);
/* Entry i, the lock held (NULL with IndexError). */
const offcode_entry *handle_entry(Artifact *self, Py_ssize_t i);
/* Entry i, the lock taken: NULL with an exception (and the lock not held)
 * when there is none; i -1 with an exception set is passed on. */
const offcode_entry *handle_locked_entry(Artifact *self, Py_ssize_t i);
/* Entry i's image kind read (the lock held): kept by its record, read
 * from there once the file is closed; whether it was. */
void handle_mark_kind_read(Artifact *self, Py_ssize_t i);
int handle_kind_was_read(const Artifact *self, Py_ssize_t i);
/* The artefact's record of the call that failed, raised (the lock held);
 * NULL. */
PyObject *handle_raise_last(Artifact *self, int rc);
/* Its methods close(), and the getters path, size, closed. */
PyObject *handle_close(Artifact *self, PyObject *unused);
PyObject *handle_path(Artifact *self, void *unused);
PyObject *handle_size(Artifact *self, void *unused);
PyObject *handle_closed(Artifact *self, void *unused);

/* Run stmt without the GIL (the lock held). */
#define UNLOCKED_GIL(stmt) do { \
		Py_BEGIN_ALLOW_THREADS \
		stmt; \
		Py_END_ALLOW_THREADS \
	} while (0)

#endif
