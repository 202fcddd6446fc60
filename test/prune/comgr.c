/* comgr.c: comgr's unbundle action, what the HIP runtime (ROCm 6.2 and
 * later, hipamd's extractCodeObjectFromFatBinaryUsingComgr) hands a fat
 * binary to, run on FILE for the bundle entry IDs given; prints comgr's
 * version and status, then each code object it got: name, size, FNV-1a.
 * A bundle and the CCOBs of it must give the same lines.  For
 * test/prune/real.sh (opt-in): comgr is loaded with dlopen, so this
 * builds without it, and runs where it is (the sid root).
 *   comgr FILE ID... */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <amd_comgr/amd_comgr.h>
#define F(name) static typeof(name) *p_##name
F(amd_comgr_create_data_set); F(amd_comgr_create_data); F(amd_comgr_set_data);
F(amd_comgr_set_data_name); F(amd_comgr_data_set_add); F(amd_comgr_create_action_info);
F(amd_comgr_action_info_set_language); F(amd_comgr_action_info_set_bundle_entry_ids);
F(amd_comgr_do_action); F(amd_comgr_action_data_count); F(amd_comgr_action_data_get_data);
F(amd_comgr_get_data_name); F(amd_comgr_get_data); F(amd_comgr_get_version);
F(amd_comgr_status_string);
#define L(name) if (!(p_##name = dlsym(h, #name))) { printf("no %s\n", #name); return 2; }
int main(int argc, char **argv)
{
	void *h = dlopen("libamd_comgr.so.3", RTLD_NOW);
	if (!h) { printf("%s\n", dlerror()); return 2; }
	L(amd_comgr_create_data_set) L(amd_comgr_create_data) L(amd_comgr_set_data)
	L(amd_comgr_set_data_name) L(amd_comgr_data_set_add) L(amd_comgr_create_action_info)
	L(amd_comgr_action_info_set_language) L(amd_comgr_action_info_set_bundle_entry_ids)
	L(amd_comgr_do_action) L(amd_comgr_action_data_count) L(amd_comgr_action_data_get_data)
	L(amd_comgr_get_data_name) L(amd_comgr_get_data) L(amd_comgr_get_version)
	L(amd_comgr_status_string)
	size_t ma, mi; p_amd_comgr_get_version(&ma, &mi);
	FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
	char *buf = malloc(n); if (fread(buf, 1, n, f) != (size_t)n) return 2; fclose(f);
	amd_comgr_data_set_t in, out; amd_comgr_data_t d; amd_comgr_action_info_t ai;
	amd_comgr_status_t s;
	p_amd_comgr_create_data_set(&in);
	p_amd_comgr_create_data(AMD_COMGR_DATA_KIND_OBJ_BUNDLE, &d);
	p_amd_comgr_set_data(d, n, buf);
	p_amd_comgr_set_data_name(d, "hipfatbin");
	p_amd_comgr_data_set_add(in, d);
	p_amd_comgr_create_action_info(&ai);
	p_amd_comgr_action_info_set_language(ai, AMD_COMGR_LANGUAGE_HIP);
	p_amd_comgr_action_info_set_bundle_entry_ids(ai, (const char **)argv + 2, argc - 2);
	p_amd_comgr_create_data_set(&out);
	s = p_amd_comgr_do_action(AMD_COMGR_ACTION_UNBUNDLE, ai, in, out);
	const char *str = ""; p_amd_comgr_status_string(s, &str);
	printf("comgr %zu.%zu unbundle: %s\n", ma, mi, str);
	size_t cnt = 0;
	p_amd_comgr_action_data_count(out, AMD_COMGR_DATA_KIND_EXECUTABLE, &cnt);
	for (size_t i = 0; i < cnt; i++) {
		amd_comgr_data_t it; char name[256]; size_t nl = sizeof name, sz = 0;
		p_amd_comgr_action_data_get_data(out, AMD_COMGR_DATA_KIND_EXECUTABLE, i, &it);
		p_amd_comgr_get_data_name(it, &nl, name);
		p_amd_comgr_get_data(it, &sz, NULL);
		char *b = malloc(sz ? sz : 1); p_amd_comgr_get_data(it, &sz, b);
		unsigned long long hsh = 0xcbf29ce484222325ULL;
		for (size_t k = 0; k < sz; k++) hsh = (hsh ^ (unsigned char)b[k]) * 0x100000001b3ULL;
		printf("  %s %zu %016llx\n", name, sz, hsh); free(b);
	}
	return 0;
}
