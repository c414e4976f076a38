/* test_csv.c: `analyze --csv DIR` (issue 21): six RFC 4180 files (CRLF line ends, quoted fields with
 * doubled quotes) parsed back here by a strict reader and held to the JSON of the same run, value
 * for value and text for text: ranks, steps, collectives, process groups, idle causes; kernels
 * against top_kernels; a hostile kernel name (comma, quote, newline, a leading =) comes back whole
 * (with the ' that keeps spreadsheets from running it); an empty table is its header row. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

typedef struct {
    char ***rows;     /* rows[r][c], NUL-terminated fields */
    size_t *n_cols;
    size_t n_rows;
} table;

/* Reads path as RFC 4180: every record ends with CRLF; a field is plain (no quote, comma, CR, LF)
 * or quoted with "" for a quote. Asserts on anything else. */
static table read_csv(const char *path) {
    size_t len;
    char *s = tu_read_file(path, &len);
    table t = {NULL, NULL, 0};
    size_t i = 0;
    while (i < len) {
        t.rows = realloc(t.rows, (t.n_rows + 1) * sizeof *t.rows);
        t.n_cols = realloc(t.n_cols, (t.n_rows + 1) * sizeof *t.n_cols);
        char **row = NULL;
        size_t nc = 0;
        for (;;) {
            char *field = malloc(len + 1);
            size_t o = 0;
            if (s[i] == '"') {
                i++;
                for (;;) {
                    cr_assert(i < len, "%s: unterminated quoted field", path);
                    if (s[i] == '"' && s[i + 1] == '"') { field[o++] = '"'; i += 2; continue; }
                    if (s[i] == '"') { i++; break; }
                    field[o++] = s[i++];
                }
            } else {
                while (i < len && s[i] != ',' && s[i] != '\r' && s[i] != '\n') {
                    cr_assert(s[i] != '"', "%s: a quote inside an unquoted field at byte %zu", path, i);
                    field[o++] = s[i++];
                }
            }
            field[o] = 0;
            row = realloc(row, (nc + 1) * sizeof *row);
            row[nc++] = field;
            if (i < len && s[i] == ',') { i++; continue; }
            cr_assert(i + 1 < len + 1 && s[i] == '\r' && s[i + 1] == '\n', "%s: a record not ended by CRLF at byte %zu",
                      path, i);
            i += 2;
            break;
        }
        t.rows[t.n_rows] = row;
        t.n_cols[t.n_rows++] = nc;
    }
    free(s);
    for (size_t r = 1; r < t.n_rows; r++) cr_assert_eq(t.n_cols[r], t.n_cols[0], "%s: row %zu has %zu fields", path, r, t.n_cols[r]);
    return t;
}

static void free_table(table *t) {
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cols[r]; c++) free(t->rows[r][c]);
        free(t->rows[r]);
    }
    free(t->rows);
    free(t->n_cols);
}

static int col(const table *t, const char *name) {
    for (size_t c = 0; c < t->n_cols[0]; c++) if (!strcmp(t->rows[0][c], name)) return (int)c;
    cr_assert_fail("no column %s", name);
    return -1;
}

/* The JSON value's text as the CSV writes it: a number's own text, a string, "" for null,
 * true/false. */
static void expect_same(const char *csv_value, yajl_val v, const char *what) {
    const char *want = "";
    char buf[64];
    if (YAJL_IS_NUMBER(v)) want = YAJL_GET_NUMBER(v);
    else if (YAJL_IS_STRING(v)) want = YAJL_GET_STRING(v);
    else if (YAJL_IS_TRUE(v)) want = "true";
    else if (YAJL_IS_FALSE(v)) want = "false";
    else if (v && !YAJL_IS_NULL(v)) { snprintf(buf, sizeof buf, "(not a scalar)"); want = buf; }
    cr_expect_str_eq(csv_value, want, "%s", what);
}

/* Every column of row r of t that is also a key of object o holds o's value. Returns how many. */
static size_t expect_row(const table *t, size_t r, yajl_val o, const char *what) {
    size_t same = 0;
    for (size_t c = 0; c < t->n_cols[0]; c++) {
        const char *path[] = {t->rows[0][c], NULL};
        yajl_val v = yajl_tree_get(o, path, yajl_t_any);
        if (!v || YAJL_IS_ARRAY(v) || YAJL_IS_OBJECT(v)) continue; /* steps[], ranks[]: checked apart */
        char w[200];
        snprintf(w, sizeof w, "%s row %zu column %s", what, r, t->rows[0][c]);
        expect_same(t->rows[r][c], v, w);
        same++;
    }
    return same;
}

static table load(const char *dir, const char *name) {
    char p[600];
    snprintf(p, sizeof p, "%s/csv/%s", dir, name);
    return read_csv(p);
}

static void check_job(const char *dir) {
    char p[600];
    snprintf(p, sizeof p, "%s/out.json", dir);
    yajl_val doc = tu_json_file(p);
    yajl_val ranks = tu_get(doc, "ranks", NULL);
    table rk = load(dir, "ranks.csv");
    cr_assert_eq(rk.n_rows - 1, ranks->u.array.len);
    size_t step_rows = 0;
    for (size_t r = 0; r < ranks->u.array.len; r++) {
        yajl_val jr = ranks->u.array.values[r];
        cr_expect_geq(expect_row(&rk, r + 1, jr, "ranks.csv"), 15);
        yajl_val inputs = tu_get(doc, "inputs", NULL); /* the file: the input of that rank */
        const char *file = NULL;
        for (size_t k = 0; k < inputs->u.array.len; k++)
            if (!strcmp(YAJL_GET_NUMBER(tu_get(inputs->u.array.values[k], "rank", NULL)), YAJL_GET_NUMBER(tu_get(jr, "rank", NULL))))
                file = YAJL_GET_STRING(tu_get(inputs->u.array.values[k], "path", NULL));
        cr_expect_str_eq(rk.rows[r + 1][col(&rk, "file")], file ? file : "(none)");
        step_rows += tu_get(jr, "steps", NULL)->u.array.len;
    }
    /* steps: every step of every rank in order, with its idle causes */
    table st = load(dir, "steps.csv");
    cr_assert_eq(st.n_rows - 1, step_rows);
    size_t row = 1;
    for (size_t r = 0; r < ranks->u.array.len; r++) {
        yajl_val steps = tu_get(ranks->u.array.values[r], "steps", NULL);
        for (size_t s = 0; s < steps->u.array.len; s++, row++) {
            yajl_val js = steps->u.array.values[s];
            cr_expect_geq(expect_row(&st, row, js, "steps.csv"), 12);
            char name[64];
            snprintf(name, sizeof name, "ProfilerStep#%s", st.rows[row][col(&st, "step")]);
            cr_expect_str_eq(name, YAJL_GET_STRING(tu_get(js, "name", NULL)));
            yajl_val causes = tu_get(js, "idle_causes", NULL);
            for (size_t k = 0; k < causes->u.object.len; k++) {
                char cname[80];
                snprintf(cname, sizeof cname, "idle_%s", causes->u.object.keys[k]);
                expect_same(st.rows[row][col(&st, cname)], causes->u.object.values[k], cname);
            }
        }
    }
    /* collectives and process groups: the JSON's arrays, row for row */
    table co = load(dir, "collectives.csv");
    yajl_val colls = tu_get(doc, "collectives", NULL);
    cr_assert_eq(co.n_rows - 1, colls->u.array.len);
    for (size_t i = 0; i < colls->u.array.len; i++) {
        cr_expect_geq(expect_row(&co, i + 1, colls->u.array.values[i], "collectives.csv"), 9);
        expect_same(co.rows[i + 1][col(&co, "collective")], tu_get(colls->u.array.values[i], "name", NULL), "collective");
    }
    table pg = load(dir, "process_groups.csv");
    yajl_val groups = tu_get(doc, "process_groups", NULL);
    cr_assert_eq(pg.n_rows - 1, groups->u.array.len);
    for (size_t i = 0; i < groups->u.array.len; i++) {
        yajl_val g = groups->u.array.values[i];
        cr_expect_geq(expect_row(&pg, i + 1, g, "process_groups.csv"), 14);
        yajl_val members = tu_get(g, "ranks", NULL);
        char list[400] = "";
        for (size_t k = 0; members && YAJL_IS_ARRAY(members) && k < members->u.array.len; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? " " : "",
                     YAJL_GET_NUMBER(members->u.array.values[k]));
        cr_expect_str_eq(pg.rows[i + 1][col(&pg, "ranks")], list);
    }
    /* idle causes: a row per rank and cause */
    table ic = load(dir, "idle_causes.csv");
    row = 1;
    for (size_t r = 0; r < ranks->u.array.len; r++) {
        yajl_val causes = tu_get(ranks->u.array.values[r], "idle_causes", NULL);
        for (size_t k = 0; k < causes->u.object.len; k++) {
            if (!strcmp(causes->u.object.keys[k], "idle_after_sync_us")) continue;
            cr_assert_lt(row, ic.n_rows);
            char key[80];
            snprintf(key, sizeof key, "%s_us", ic.rows[row][col(&ic, "cause")]);
            cr_expect_str_eq(key, causes->u.object.keys[k]);
            expect_same(ic.rows[row][col(&ic, "idle_us")], causes->u.object.values[k], key);
            row++;
        }
    }
    cr_expect_eq(row, ic.n_rows);
    /* kernels: each of the JSON's top kernels, with its time */
    table ke = load(dir, "kernels.csv");
    yajl_val top = tu_get(doc, "top_kernels", NULL);
    for (size_t i = 0; i < top->u.array.len; i++) {
        const char *name = YAJL_GET_STRING(tu_get(top->u.array.values[i], "name", NULL));
        size_t r = 1;
        while (r < ke.n_rows && strcmp(ke.rows[r][col(&ke, "name")], name)) r++;
        cr_assert_lt(r, ke.n_rows, "top kernel %s not in kernels.csv", name);
        expect_same(ke.rows[r][col(&ke, "time_us")], tu_get(top->u.array.values[i], "time_us", NULL), name);
        expect_same(ke.rows[r][col(&ke, "launches")], tu_get(top->u.array.values[i], "count", NULL), name);
        cr_expect_str_eq(ke.rows[r][col(&ke, "kind")], "compute");
    }
    free_table(&rk);
    free_table(&st);
    free_table(&co);
    free_table(&pg);
    free_table(&ic);
    free_table(&ke);
    yajl_tree_free(doc);
}

Test(csv, tables_parse_back_and_equal_the_json, .timeout = 120) {
    char *dir = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze -q --json %s/out.json --csv %s/csv samples/", tu_bin(), dir, dir), 0, "%s", out);
    free(out);
    check_job(dir);
    tu_gen_job(dir, "tpdp", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5 --steps 2 --seed 19");
    cr_assert_eq(tu_sh(&out, "%s analyze -q --fabric ib-ndr --gpus-per-node 4 --json %s/out.json --csv %s/csv/ %s/tpdp",
                       tu_bin(), dir, dir, dir), 0, "%s", out);
    free(out);
    check_job(dir);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* A kernel named with a comma, a quote, a line break and a leading '=': quoted, quotes doubled, the
 * ' in front; one rank: no collectives and no groups, their files a header row only. */
Test(csv, hostile_names_and_empty_tables) {
    char *dir = tu_tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/rank0.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"=HYPERLINK(\\\"x\\\"),a\\nb\",\"pid\":0,"
               "\"tid\":7,\"ts\":0,\"dur\":10,\"args\":{}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,"
               "\"tid\":7,\"ts\":20,\"dur\":10,\"args\":{}}]}\n");
    fclose(f);
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze -q --no-cost --csv %s/csv %s", tu_bin(), dir, path), 0, "%s", out);
    free(out);
    table ke = load(dir, "kernels.csv");
    bool found = false;
    for (size_t r = 1; r < ke.n_rows; r++) found |= !strcmp(ke.rows[r][0], "'=HYPERLINK(\"x\"),a\nb");
    cr_expect(found, "the hostile name did not come back whole");
    free_table(&ke);
    table co = load(dir, "collectives.csv");
    cr_expect_eq(co.n_rows, 1, "collectives.csv of one rank: the header only");
    free_table(&co);
    table pg = load(dir, "process_groups.csv");
    cr_expect_eq(pg.n_rows, 1);
    free_table(&pg);
    /* the folder is an output: a file of that name is refused, and so is --window all */
    cr_expect_eq(tu_sh(&out, "%s analyze --csv %s %s", tu_bin(), path, path), 4, "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --window all --csv %s/c2 %s", tu_bin(), dir, path), 1, "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --csv - %s", tu_bin(), path), 1, "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
