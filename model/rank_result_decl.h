/* rank_result_decl.h: the field macros of model/rank_result.def as member declarations, for what
 * declares its structs (idle_causes.h, rank_result.h, tests/test_mpi_pack.c). No include guard:
 * define the row macro (TC_RR_PART or TC_RR_RANK) as a struct declaration, include this, then
 * rank_result.def, which #undefs them all. */
#define TC_RR_VALUE(type, f) type f;
#define TC_RR_STRING(f) const char *f;
#define TC_RR_ARRAY(type, f, n) type *f; size_t n;
#define TC_RR_GPU(f) const tc_gpu_spec *f;
#define TC_RR_STRUCT(type, f) type f;
#define TC_RR_STRUCTS(type, f, n) type f[n];
#define TC_RR_KEPT(type, f) type f;
