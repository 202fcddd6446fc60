/* elfscan_test FILE...: what core/elfscan finds in each file, one line per
 * section of a kind core/sections.h names: "index name kind offset size"
 * (offset and size in hex, as readelf -S prints them), or the error. */
#include <stdio.h>

#include "../../core/elfscan.h"
#include "../../core/io_in.h"

int main(int argc, char **argv)
{
	int rc = 0;

	for (int a = 1; a < argc; a++) {
		struct io_in in;
		struct elfscan s;
		struct err e;

		if (io_in_open(&in, argv[a], &e) < 0 ||
		    elfscan_open(&s, in.data, in.len, &e) < 0) {
			printf("%s: error: %s\n", argv[a], e.msg);
			rc = 1;
			continue;
		}
		for (size_t i = 0; i < s.n; i++)
			if (s.sec[i].kind != SECTION_OTHER)
				printf("%zu %s %s %06llx %06llx\n", i, s.sec[i].name,
				       sections_get(s.sec[i].kind)->ls_name,
				       (unsigned long long)s.sec[i].offset,
				       (unsigned long long)s.sec[i].size);
		elfscan_free(&s);
		io_in_close(&in);
	}
	return rc;
}
