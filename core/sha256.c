/* sha256: SHA-256 through libcrypto's EVP interface (sha256.h), the
 * library loaded when the first digest is made: linked, its relocations
 * (it is linked -z now) cost every start of offload and every import of
 * the Python module more than half a millisecond, though only images and
 * packages are hashed. */
#include <dlfcn.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

/* The library's name as the build's libcrypto.so names itself (the
 * Makefile reads its SONAME), so that we load what we were built for. */
#ifndef LIBCRYPTO_SONAME
#error "LIBCRYPTO_SONAME (libcrypto.so's SONAME) is set by the Makefile"
#endif

/* The functions we call, found once. */
static struct crypto {
	__typeof__(EVP_MD_CTX_new) *ctx_new;
	__typeof__(EVP_MD_CTX_free) *ctx_free;
	__typeof__(EVP_MD_CTX_copy_ex) *ctx_copy;
	__typeof__(EVP_sha256) *sha256;
	__typeof__(EVP_DigestInit_ex) *init;
	__typeof__(EVP_DigestUpdate) *update;
	__typeof__(EVP_DigestFinal_ex) *final;
} crypto;

static const struct crypto_sym {
	const char *name;
	size_t at;
} crypto_syms[] = {
	{ "EVP_MD_CTX_new", offsetof(struct crypto, ctx_new) },
	{ "EVP_MD_CTX_free", offsetof(struct crypto, ctx_free) },
	{ "EVP_MD_CTX_copy_ex", offsetof(struct crypto, ctx_copy) },
	{ "EVP_sha256", offsetof(struct crypto, sha256) },
	{ "EVP_DigestInit_ex", offsetof(struct crypto, init) },
	{ "EVP_DigestUpdate", offsetof(struct crypto, update) },
	{ "EVP_DigestFinal_ex", offsetof(struct crypto, final) },
};
_Static_assert(sizeof(crypto_syms) / sizeof(crypto_syms[0]) *
	       sizeof(void (*)(void)) == sizeof(struct crypto),
	       "a row for each function of struct crypto");
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
	       "dlsym's pointers hold functions");

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
/* Why the library could not be had ("" when it was): dlerror's text is
 * the thread's and gone at the next call, so it is kept. */
static char crypto_why[512];

static void crypto_load(void)
{
	void *lib = dlopen(LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);
	struct crypto found;

	if (!lib)
		goto fail;
	for (size_t i = 0; i < sizeof(crypto_syms) / sizeof(crypto_syms[0]); i++) {
		void *fn = dlsym(lib, crypto_syms[i].name);

		if (!fn)
			goto fail;
		memcpy((char *)&found + crypto_syms[i].at, &fn, sizeof(fn));
	}
	crypto = found;
	return;
fail:;
	const char *why = dlerror();

	snprintf(crypto_why, sizeof(crypto_why), "cannot load %s: %s",
		 LIBCRYPTO_SONAME, why ? why : "unknown error");
}

struct sha256 {
	EVP_MD_CTX *ctx;
};

struct sha256 *sha256_new(struct err *e)
{
	struct sha256 *s;

	pthread_once(&crypto_once, crypto_load);
	if (crypto_why[0]) {
		err_code_set(e, ERR_OTHER, "SHA-256: %s", crypto_why);
		return NULL;
	}
	if (!(s = malloc(sizeof(*s)))) {
		err_nomem(e);
		return NULL;
	}
	if (!(s->ctx = crypto.ctx_new()) ||
	    crypto.init(s->ctx, crypto.sha256(), NULL) != 1) {
		crypto.ctx_free(s->ctx);
		free(s);
		err_nomem(e);
		return NULL;
	}
	return s;
}

void sha256_update(struct sha256 *s, const void *p, size_t n)
{
	if (n)
		crypto.update(s->ctx, p, n);
}

void sha256_hex(const struct sha256 *s, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_MD_CTX *copy = crypto.ctx_new();

	hex[0] = '\0';
	if (!copy)
		return;
	/* A copy is finished, so s goes on. */
	if (crypto.ctx_copy(copy, s->ctx) == 1 &&
	    crypto.final(copy, md, &n) == 1 && n == SHA256_LEN)
		for (unsigned i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", md[i]);
	crypto.ctx_free(copy);
}

void sha256_free(struct sha256 *s)
{
	/* No digest was made (and the library may not be there) without
	 * sha256_new. */
	if (!s)
		return;
	crypto.ctx_free(s->ctx);
	free(s);
}

int sha256_copy(struct sha256 *dst, const struct sha256 *src)
{
	return crypto.ctx_copy(dst->ctx, src->ctx) == 1 ? 0 : -1;
}

int sha256_of(const void *p, size_t n, char *hex, struct err *e)
{
	struct sha256 *s = sha256_new(e);

	if (!s)
		return -1;
	sha256_update(s, p, n);
	sha256_hex(s, hex);
	sha256_free(s);
	return 0;
}
