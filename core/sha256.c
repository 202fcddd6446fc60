/* sha256: SHA-256 through libcrypto's EVP interface (sha256.h). */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#include "sha256.h"

struct sha256 {
	EVP_MD_CTX *ctx;
};

struct sha256 *sha256_new(void)
{
	struct sha256 *s = malloc(sizeof(*s));

	if (!s)
		return NULL;
	if (!(s->ctx = EVP_MD_CTX_new()) ||
	    EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(s->ctx);
		free(s);
		return NULL;
	}
	return s;
}

void sha256_update(struct sha256 *s, const void *p, size_t n)
{
	if (n)
		EVP_DigestUpdate(s->ctx, p, n);
}

void sha256_hex(const struct sha256 *s, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_MD_CTX *copy = EVP_MD_CTX_new();

	hex[0] = '\0';
	if (!copy)
		return;
	/* A copy is finished, so s goes on. */
	if (EVP_MD_CTX_copy_ex(copy, s->ctx) == 1 &&
	    EVP_DigestFinal_ex(copy, md, &n) == 1 && n == SHA256_LEN)
		for (unsigned i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", md[i]);
	EVP_MD_CTX_free(copy);
}

void sha256_free(struct sha256 *s)
{
	if (!s)
		return;
	EVP_MD_CTX_free(s->ctx);
	free(s);
}

int sha256_copy(struct sha256 *dst, const struct sha256 *src)
{
	return EVP_MD_CTX_copy_ex(dst->ctx, src->ctx) == 1 ? 0 : -1;
}

int sha256_of(const void *p, size_t n, char *hex, struct err *e)
{
	struct sha256 *s = sha256_new();

	if (!s)
		return err_nomem(e);
	sha256_update(s, p, n);
	sha256_hex(s, hex);
	sha256_free(s);
	return 0;
}
