/* offcode_names: liboffcode's files written (test/libtest.test): the
 * names a set gives, and URIs taken apart, one line each, errors as
 * their codes and records say them.
 * Usage: offcode_names */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <offcode.h>

static void take(offcode_names *names, const char *name)
{
	const char *got = "?";
	int rc = offcode_names_take(names, name, &got);

	printf("take %s: %s %s\n", name ? name : "NULL", offcode_code_name(rc),
	       got ? got : "NULL");
}

static void parse(const char *s, size_t size, bool want_err)
{
	struct offcode_uri u = { .size = size };
	offcode_error *err = NULL;
	int rc = offcode_uri_parse(s, &u, want_err ? &err : NULL);

	printf("parse %s: %s", s ? s : "NULL", offcode_code_name(rc));
	if (!rc) {
		printf(", path '%s', offset %" PRIu64, u.path, u.offset);
		if (u.has_length)
			printf(", size %" PRIu64, u.length);
	}
	if (err)
		printf(" (%s; its code %s)", offcode_error_message(err),
		       offcode_code_name(offcode_error_code(err)));
	putchar('\n');
	offcode_error_free(err);
	offcode_uri_free(&u);
	if (u.path)
		printf("  path left after offcode_uri_free\n");
}

int main(void)
{
	static const char *const is[] = { "file:///x", "FILE://x", "s3://b/k",
					  "/x", "a.co", "3://x", "file:/x",
					  "://x" };
	offcode_names *names = NULL;
	char wide[300];

	printf("new, out NULL: %s\n", offcode_code_name(offcode_names_new(NULL)));
	printf("new: %s\n", offcode_code_name(offcode_names_new(&names)));
	take(names, "app.0.hipv4-amdgcn-amd-amdhsa--gfx90a.co");
	take(names, "app.0.hipv4-amdgcn-amd-amdhsa--gfx90a.co");
	take(names, "app.0.hipv4-amdgcn-amd-amdhsa--gfx90a.co");
	take(names, "app.0.hipv4-amdgcn-amd-amdhsa--gfx90a-2.co");
	take(names, "app.0.hipv4-amdgcn-amd-amdhsa--gfx90a.co");
	take(names, "noext");
	take(names, "noext");
	take(names, "");
	take(names, "");
	take(names, NULL);
	take(NULL, "a.co");
	printf("take, out NULL: %s\n",
	       offcode_code_name(offcode_names_take(names, "a.co", NULL)));
	memset(wide, 'w', sizeof(wide) - 4);
	strcpy(wide + sizeof(wide) - 4, ".co");
	for (int i = 0; i < 3; i++) {
		const char *got = NULL;

		offcode_names_take(names, wide, &got);
		printf("take %zu bytes: %zu bytes, ending %s\n", strlen(wide),
		       strlen(got), got + strlen(got) - 6);
	}
	offcode_names_free(names);
	offcode_names_free(NULL);

	for (size_t i = 0; i < sizeof(is) / sizeof(is[0]); i++)
		printf("is %s: %s\n", is[i], offcode_uri_is(is[i]) ? "yes" : "no");
	printf("is NULL: %s\n", offcode_uri_is(NULL) ? "yes" : "no");
	parse("file:///tmp/app#offset=4096&size=100", sizeof(struct offcode_uri),
	      true);
	parse("FILE:///a%20b%2Fc?offset=0x10", sizeof(struct offcode_uri), true);
	parse("file://x#size=010&offset=0", sizeof(struct offcode_uri), true);
	parse("file://x", sizeof(struct offcode_uri), true);
	parse("http://host/x", sizeof(struct offcode_uri), true);
	parse("file://#offset=1", sizeof(struct offcode_uri), true);
	parse("file:///a%2", sizeof(struct offcode_uri), true);
	parse("file:///a%00", sizeof(struct offcode_uri), true);
	parse("file:///a#offset=1&foo=2", sizeof(struct offcode_uri), true);
	parse("file:///a#size=zz", sizeof(struct offcode_uri), true);
	parse("file:///a#size=18446744073709551616", sizeof(struct offcode_uri),
	      true);
	parse("file:///a#offset=", sizeof(struct offcode_uri), true);
	parse("http://host/x", sizeof(struct offcode_uri), false);
	parse("file:///a", sizeof(size_t), true);
	parse(NULL, sizeof(struct offcode_uri), true);
	printf("parse into NULL: %s\n",
	       offcode_code_name(offcode_uri_parse("file:///a", NULL, NULL)));
	offcode_uri_free(NULL);
	return 0;
}
