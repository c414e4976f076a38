/* rank_result_rows.h: the field macros of model/rank_result.def as rows of a field table
 * (mpi_pack.h: TC_FIELDS_OF), for mpi_pack.c and tests/test_mpi_pack.c. No include guard: define
 * the row macros (TC_RR_PART, TC_RR_RANK) as TC_FIELDS_OF tables, include this, then
 * rank_result.def, which #undefs them all. */
#define TC_RR_VALUE(type, f) TC_FIELD_ROW_(TC_FIELD_VALUE, f, 0, 0, 0, NULL)
#define TC_RR_STRING(f) TC_FIELD_ROW_(TC_FIELD_STRING, f, 0, 0, 0, NULL)
#define TC_RR_ARRAY(type, f, count) TC_FIELD_ROW_(TC_FIELD_ARRAY, f, offsetof(tc_this_, count), sizeof(type), 0, NULL)
#define TC_RR_GPU(f) TC_FIELD_ROW_(TC_FIELD_GPU, f, 0, 0, 0, NULL)
#define TC_RR_STRUCT(type, f) TC_FIELD_ROW_(TC_FIELD_STRUCT, f, 0, sizeof(type), 1, tc_fields_of_##type)
#define TC_RR_STRUCTS(type, f, n) TC_FIELD_ROW_(TC_FIELD_STRUCT, f, 0, sizeof(type), n, tc_fields_of_##type)
#define TC_RR_KEPT(type, f) TC_FIELD_ROW_(TC_FIELD_KEPT, f, 0, 0, 0, NULL)
