/* test_options.c: the option tables (cli/opts.h) are the one list of every command's options. This
 * holds the other lists to them, both ways (a listed option the table lacks, a table option that is
 * not listed), for every command, the top level, record and the cost flags: the bash completion (run
 * in bash), the zsh completion, the man page's option lists and docs/cli.md's. It also checks the
 * scanner, the suggestions and the tables' own consistency. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/opts.h"
#include "model/cost_inputs.h"
#include "testutil.h"

/* ---- a set of names ---- */

typedef struct {
    char **v;
    size_t n, cap;
} names;

static bool has(const names *s, const char *w) {
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], w)) return true;
    return false;
}

static void add(names *s, const char *w, size_t len) {
    char *c = strndup(w, len);
    if (has(s, c)) { free(c); return; }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        cr_assert_not_null(s->v);
    }
    s->v[s->n++] = c;
}

static void names_free(names *s) {
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* What one document lists for one command: names, and whether it names the cost options as a group
 * ("cost options", "cost flags") and compare's --b-FLAG form of them. */
typedef struct {
    names opts;
    bool cost_ref, b_ref;
} listing;

static void listing_add(listing *l, const char *w, size_t len) {
    if (len == 8 && !strncmp(w, "--b-FLAG", 8)) l->b_ref = true;
    else add(&l->opts, w, len);
}

/* Adds the option words of text[0..len) ("-j", "--jobs"): a '-' then a letter, then letters, digits
 * and '-', starting the text or after one of the characters of `after` (any non-word character
 * when NULL). */
static void add_dash_words(listing *l, const char *text, size_t len, const char *after) {
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '-') continue;
        if (i > 0) {
            char p = text[i - 1];
            if (after ? !strchr(after, p) : (isalnum((unsigned char)p) || p == '-' || p == '_')) continue;
        }
        size_t j = i + (i + 1 < len && text[i + 1] == '-' ? 2 : 1);
        if (j >= len || !isalpha((unsigned char)text[j])) continue;
        while (j < len && (isalnum((unsigned char)text[j]) || text[j] == '-')) j++;
        listing_add(l, text + i, j - i);
        i = j;
    }
}

static bool is_group_label(const char *s) {
    while (*s == ' ') s++;
    return !strncmp(s, "cost options", 12) || !strncmp(s, "cost flags", 10);
}

/* The names a table has, and the names a listing stands for (its group references expanded with the
 * cost options of `tracecost cost`); fails on every difference. */
static void expect_same(const char *doc, const tc_opt_table *t, const listing *l) {
    names table = {0}, listed = {0};
    for (size_t i = 0; i < t->n_rows; i++) {
        if (t->rows[i].name) add(&table, t->rows[i].name, strlen(t->rows[i].name));
        if (t->rows[i].short_name) add(&table, t->rows[i].short_name, strlen(t->rows[i].short_name));
    }
    for (size_t i = 0; i < l->opts.n; i++) add(&listed, l->opts.v[i], strlen(l->opts.v[i]));
    for (size_t i = 0; i < tc_opts_cost.n_rows; i++) {
        const tc_opt *r = &tc_opts_cost.rows[i];
        if (!(r->flags & TC_OPT_COST)) continue;
        if (l->cost_ref) add(&listed, r->name, strlen(r->name));
        char b[96];
        snprintf(b, sizeof b, "--b-%s", r->name + 2);
        if (l->b_ref) add(&listed, b, strlen(b));
    }
    const char *cmd = t->command ? t->command : "top level";
    for (size_t i = 0; i < listed.n; i++)
        cr_expect(has(&table, listed.v[i]), "%s lists %s for %s; the option table (cli/opt_tables.c) lacks it", doc,
                  listed.v[i], cmd);
    for (size_t i = 0; i < table.n; i++)
        cr_expect(has(&listed, table.v[i]), "%s lacks %s of %s (cli/opt_tables.c has it)", doc, table.v[i], cmd);
    cr_expect(table.n > 0);
    names_free(&table);
    names_free(&listed);
}

/* ---- bash: the completion function run for "tracecost CMD -" (the top level: "tracecost ''") ---- */

static void bash_listing(const tc_opt_table *t, listing *l) {
    char words[64], cmd[512];
    if (t->command) snprintf(words, sizeof words, "%s -", t->command); /* every option */
    else snprintf(words, sizeof words, "\"\""); /* every command and option */
    snprintf(cmd, sizeof cmd,
             "bash --norc -c 'source completions/tracecost.bash && COMP_WORDS=(tracecost %s) && "
             "COMP_CWORD=$((${#COMP_WORDS[@]}-1)) && _tracecost && printf \"%%s\\n\" \"${COMPREPLY[@]}\"'",
             words);
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s", cmd), 0, "%s\n%s", cmd, out);
    for (char *p = out; *p;) {
        size_t n = strcspn(p, "\n");
        if (n && !(n == 2 && !strncmp(p, "--", 2))) add(&l->opts, p, n); /* "--" ends record's options */
        p += n + (p[n] == '\n');
    }
    free(out);
}

/* ---- zsh: read from the file (zsh need not be installed) ---- */

/* text from the start of the line holding `start` up to the next `end` after it (malloc'd), or NULL. */
static char *block(const char *text, const char *start, const char *end) {
    const char *a = strstr(text, start);
    if (!a) return NULL;
    while (a > text && a[-1] != '\n') a--;
    const char *b = strstr(a + strlen(start), end);
    if (!b) return NULL;
    return strndup(a, (size_t)(b - a));
}

/* s without the [descriptions] of zsh option specs. */
static char *strip_descriptions(const char *s) {
    char *o = strdup(s), *w = o;
    int depth = 0;
    for (; *s; s++) {
        if (*s == '[') depth++;
        else if (*s == ']' && depth) depth--;
        else if (!depth) *w++ = *s;
    }
    *w = '\0';
    return o;
}

static void zsh_listing(const char *z, const tc_opt_table *t, listing *l) {
    listing cost = {0};
    char *c = block(z, "cost_opts=(", "\n    )");
    cr_assert_not_null(c, "completions/_tracecost: no cost_opts=( ... ) array");
    char *cs = strip_descriptions(c);
    add_dash_words(&cost, cs, strlen(cs), "'");
    free(cs);
    free(c);
    char *b;
    if (!t->command) {
        char *cmds = block(z, "commands=(", "\n    )");
        cr_assert_not_null(cmds);
        for (char *p = strstr(cmds, "\n"); p && (p = strstr(p, "'")); ) { /* 'analyze:description' */
            size_t n = strcspn(p + 1, ":'");
            add(&l->opts, p + 1, n);
            p = strchr(p + 1, '\n');
        }
        free(cmds);
        b = block(z, "_arguments -C", "&& return");
    } else {
        char head[64];
        snprintf(head, sizeof head, "\n        %s)\n", t->command);
        b = block(z, head, "\n            ;;");
    }
    cr_assert_not_null(b, "completions/_tracecost: no block for %s", t->command ? t->command : "the top level");
    char *s = strip_descriptions(b);
    add_dash_words(l, s, strlen(s), t->command ? "'{," : "{,");
    for (size_t i = 0; strstr(s, "$cost_opts") && i < cost.opts.n; i++) add(&l->opts, cost.opts.v[i], strlen(cost.opts.v[i]));
    for (size_t i = 0; strstr(s, "$b_opts") && i < cost.opts.n; i++) {
        char w[96];
        snprintf(w, sizeof w, "--b-%s", cost.opts.v[i] + 2);
        add(&l->opts, w, strlen(w));
    }
    free(s);
    free(b);
    names_free(&cost.opts);
}

/* ---- the man page: the .TP labels of each command's .SS section; .SS headings and the OPTIONS
 * section for the top level ---- */

/* line without roff font escapes (\fB ...), with \- as -, and without quotes. */
static char *man_clean(const char *line, size_t len) {
    char *o = malloc(len + 1), *w = o;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '\\' && i + 1 < len && line[i + 1] == 'f') { i += 2; continue; }
        if (line[i] == '\\' && i + 1 < len && line[i + 1] == '-') { *w++ = '-'; i++; continue; }
        if (line[i] == '"') continue;
        *w++ = line[i];
    }
    *w = '\0';
    return o;
}

static void man_listing(const char *man, const tc_opt_table *t, listing *l) {
    char section[32] = ""; /* command of the current .SS, "OPTIONS" in .SH OPTIONS, else "" */
    const char *want = t->command ? t->command : "OPTIONS";
    bool label_next = false;
    for (const char *p = man; *p;) {
        size_t n = strcspn(p, "\n");
        char *line = man_clean(p, n);
        if (!strncmp(line, ".SS tracecost ", 14)) {
            snprintf(section, sizeof section, "%.*s", (int)strcspn(line + 14, " "), line + 14);
            if (!t->command) add(&l->opts, section, strlen(section)); /* the commands */
        } else if (!strncmp(line, ".SH", 3)) {
            snprintf(section, sizeof section, "%s", strcmp(line, ".SH OPTIONS") ? "" : "OPTIONS");
        }
        if (label_next && !strcmp(section, want)) {
            const char *text = line[0] == '.' ? line + strcspn(line, " ") : line; /* after .B, .BI, .BR, .I */
            if (is_group_label(text)) l->cost_ref = true;
            else add_dash_words(l, text, strlen(text), NULL);
        }
        label_next = !strcmp(line, ".TP");
        free(line);
        p += n + (p[n] == '\n');
    }
}

/* ---- docs/cli.md: the first code block for the top level; the first cells of the tables under each
 * "## `tracecost CMD`" heading ---- */

static void md_listing(const char *md, const tc_opt_table *t, listing *l) {
    if (!t->command) {
        const char *a = strstr(md, "```\n"), *b = a ? strstr(a + 4, "```") : NULL;
        cr_assert(a && b, "docs/cli.md: no code block with the commands");
        for (const char *p = a + 4; p < b; p += strcspn(p, "\n") + 1) {
            if (strncmp(p, "tracecost ", 10)) continue;
            const char *w = p + 10;
            size_t n = strcspn(w, "\n");
            if (w[0] == '-') add_dash_words(l, w, n, NULL);
            else add(&l->opts, w, strcspn(w, " \n"));
        }
        return;
    }
    char head[64];
    snprintf(head, sizeof head, "\n## `tracecost %s", t->command);
    const char *s = strstr(md, head);
    cr_assert_not_null(s, "docs/cli.md: no section %s", head + 1);
    s += strlen(head);
    cr_assert(*s == ' ' || *s == '`', "docs/cli.md: no section %s", head + 1);
    const char *e = strstr(s, "\n## ");
    if (!e) e = s + strlen(s);
    for (const char *p = strchr(s, '\n'); p && p < e; p = strchr(p + 1, '\n')) {
        if (strncmp(p, "\n| ", 3)) continue;
        const char *cell = p + 3;
        size_t n = strcspn(cell, "|\n");
        char *c = strndup(cell, n);
        if (is_group_label(c)) l->cost_ref = true;
        else add_dash_words(l, c, n, "` ,");
        free(c);
    }
}

/* ---- the checks ---- */

typedef enum { DOC_BASH, DOC_ZSH, DOC_MAN, DOC_MD } doc_kind;

static void check_doc(doc_kind k) {
    static const char *const paths[] = {"completions/tracecost.bash", "completions/_tracecost", "docs/tracecost.1",
                                        "docs/cli.md"};
    char *text = tu_read_file(paths[k], NULL);
    for (size_t i = 0; tc_opt_tables[i]; i++) {
        const tc_opt_table *t = tc_opt_tables[i];
        listing l = {0};
        if (k == DOC_BASH) bash_listing(t, &l);
        else if (k == DOC_ZSH) zsh_listing(text, t, &l);
        else if (k == DOC_MAN) man_listing(text, t, &l);
        else md_listing(text, t, &l);
        expect_same(paths[k], t, &l);
        names_free(&l.opts);
    }
    free(text);
}

Test(options, bash_completion_lists_the_tables) { check_doc(DOC_BASH); }
Test(options, zsh_completion_lists_the_tables) { check_doc(DOC_ZSH); }
Test(options, man_page_lists_the_tables) { check_doc(DOC_MAN); }
Test(options, cli_md_lists_the_tables) { check_doc(DOC_MD); }

/* The readers' word rule: option words in roff and markdown, and --b-FLAG as compare's group. */
Test(options, option_words) {
    listing m = {0};
    const char *roff = ".BR -j \", \" --jobs \" N\" of file-name";
    add_dash_words(&m, roff, strlen(roff), NULL);
    cr_expect(has(&m.opts, "-j") && has(&m.opts, "--jobs") && m.opts.n == 2, "%zu words", m.opts.n);
    add_dash_words(&m, "`--b-FLAG V`", 12, "`");
    cr_expect(m.b_ref);
    cr_expect_eq(m.opts.n, 2);
    names_free(&m.opts);
}

/* No two rows of a table answer to the same word; every listed option has help text. */
Test(options, tables_are_consistent) {
    for (size_t i = 0; tc_opt_tables[i]; i++) {
        const tc_opt_table *t = tc_opt_tables[i];
        for (size_t a = 0; a < t->n_rows; a++) {
            const tc_opt *r = &t->rows[a];
            if (!r->name) { cr_expect_not_null(r->help); continue; }
            cr_expect(r->help || (a + 1 < t->n_rows && t->rows[a + 1].name), "%s: a row without help joins the next", r->name);
            for (size_t b = a + 1; b < t->n_rows; b++) {
                const tc_opt *q = &t->rows[b];
                cr_expect(!q->name || strcasecmp(r->name, q->name), "%s twice in one table", r->name);
                cr_expect(!r->short_name || !q->short_name || strcmp(r->short_name, q->short_name), "%s twice",
                          r->short_name);
            }
            cr_expect_eq(tc_opts_find(t, r->name), r, "%s is found as itself", r->name);
        }
    }
    /* the cost flags are model/cost_inputs.def's rows (plus --gpu, --config and --fabric-target) in every
     * command that takes them */
    size_t n_cost = 0;
    for (size_t i = 0; i < tc_opts_cost.n_rows; i++) n_cost += (tc_opts_cost.rows[i].flags & TC_OPT_COST) != 0;
    cr_expect_eq(n_cost, TC_COST_INPUT_COUNT + 3);
    const tc_opt *r = tc_opts_find(&tc_opts_compare, "--b-fabric-gbps"); /* any case, like the config keys */
    cr_assert_not_null(r);
    cr_expect_eq(r->id, TC_OPT_COST_FLAG_B);
    cr_expect_str_eq(r->name, "--b-fabric-GBps");
}

/* ---- the scanner ---- */

Test(options, scanner_forms) {
    char *argv[] = {"analyze", "--json=a.json", "--html", "b.html", "-j4", "-j", "8", "x", "-", "--quiet=1",
                    "--jsno", "-qj", "--", "--json", NULL};
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    tc_opts o;
    tc_opts_init(&o, &tc_opts_analyze, argc, argv, 1);
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPTION);
    cr_expect_eq(o.opt->id, TC_OPT_JSON);
    cr_expect_str_eq(o.value, "a.json");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPTION);
    cr_expect_str_eq(o.value, "b.html");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPTION);
    cr_expect_eq(o.opt->id, TC_OPT_JOBS);
    cr_expect_str_eq(o.value, "4");
    cr_expect_str_eq(o.word, "-j");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPTION);
    cr_expect_str_eq(o.value, "8");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPERAND);
    cr_expect_str_eq(o.operand, "x");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPERAND);
    cr_expect_str_eq(o.operand, "-");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_NO_VALUE);
    cr_expect_str_eq(o.word, "--quiet");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_UNKNOWN);
    cr_expect_str_eq(o.word, "--jsno");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_UNKNOWN);
    cr_expect_str_eq(o.word, "-qj");
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPERAND); /* after "--" */
    cr_expect_str_eq(o.operand, "--json");
    cr_expect_eq(tc_opts_next(&o), TC_OPTS_END);

    char *missing[] = {"compare", "--json", NULL};
    tc_opts_init(&o, &tc_opts_compare, 2, missing, 1);
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPTION);
    cr_expect_null(o.value);
    char *b[] = {"compare", "--b-PUE=1.2", NULL};
    tc_opts_init(&o, &tc_opts_compare, 2, b, 1);
    cr_assert_eq(tc_opts_next(&o), TC_OPTS_OPTION);
    cr_expect_eq(o.opt->id, TC_OPT_COST_FLAG_B);
    cr_expect_str_eq(o.value, "1.2");
}

/* One rule for commands, options and cost flags: the one name a word starts, else the nearest. */
Test(options, suggestions) {
    static const struct { const tc_opt_table *t; const char *word, *want; } cases[] = {
        {&tc_opts_top, "anlyze", "analyze"},
        {&tc_opts_top, "an", "analyze"},
        {&tc_opts_top, "c", NULL},
        {&tc_opts_top, "co", NULL}, /* compare and cost */
        {&tc_opts_top, "cots", "cost"},
        {&tc_opts_top, "gpu", "gpus"},
        {&tc_opts_top, "--verison", "--version"},
        {&tc_opts_top, "zzzzzzzz", NULL},
        {&tc_opts_analyze, "--jsno", "--json"},
        {&tc_opts_analyze, "--qiet", "--quiet"},
        {&tc_opts_analyze, "--price", "--price-per-gpu-hour"},
        {&tc_opts_analyze, "--fab", NULL}, /* --fabric and four cost flags start so; none is near */
        {&tc_opts_analyze, "--fabirc", "--fabric"},
        {&tc_opts_analyze, "--tok=3", "--tokens-per-step"},
        {&tc_opts_compare, "--b-pri", "--b-price-per-gpu-hour"},
        {&tc_opts_compare, "--b-price-per-gpu-hr", "--b-price-per-gpu-hour"},
        {&tc_opts_cost, "--network-effciency", "--network-efficiency"},
        {&tc_opts_cost, "--pu", "--pue"},
        {&tc_opts_gpus, "--JSON", "--json"},
        {&tc_opts_record, "--gzpi", "--gzip"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = tc_opts_suggest(cases[i].t, cases[i].word);
        if (cases[i].want) cr_expect(got && !strcmp(got, cases[i].want), "%s: got %s, want %s", cases[i].word, got ? got : "none", cases[i].want);
        else cr_expect_null(got, "%s: got %s, want none", cases[i].word, got);
    }
}

/* --help: every listed row in the table's two columns, continuation lines under the help column. */
Test(options, help_lines) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tc_opts_help(f, &tc_opts_gpus);
    tc_opts_help(f, &tc_opts_analyze);
    tc_opts_help(f, &tc_opts_compare);
    fclose(f);
    cr_expect(!strncmp(text, "  --json      write the catalog as JSON to stdout\n  --links     only the link catalog", 85),
              "%s", text);
    cr_expect_not_null(strstr(text, "\n  --params N --tokens-per-step T  the same as"), "%s", text);
    cr_expect_not_null(strstr(text, "the steps A\n                               runs in a month"), "%s", text);
    cr_expect_null(strstr(text, "--pue"), "cost flags are one line in analyze --help");
    tu_expect_width(text, 100);
    free(text);
}

/* Issue 31 item 8: the man page's SYNOPSIS has a line for every command of the top table
 * (analyze, compare, cost, timeline, gpus, record, help; `version` is the --version line's). */
Test(options, man_synopsis_lists_every_command) {
    char *man = tu_read_file("docs/tracecost.1", NULL);
    cr_assert_not_null(man);
    char *syn = strstr(man, "\n.SH SYNOPSIS\n");
    cr_assert_not_null(syn);
    char *end = strstr(syn + 1, "\n.SH ");
    cr_assert_not_null(end);
    *end = '\0';
    size_t commands = 0;
    for (size_t i = 0; i < tc_opts_top.n_rows; i++) {
        const tc_opt *r = &tc_opts_top.rows[i];
        if (!r->name || r->name[0] == '-' || r->id == TC_OPT_VERSION) continue; /* version: the --version line */
        char line[80];
        snprintf(line, sizeof line, "\n.B tracecost %s\n", r->name);
        cr_expect_not_null(strstr(syn, line), "SYNOPSIS has no '%s' line", r->name);
        commands++;
    }
    cr_expect_eq(commands, 7, "the top table lists %zu commands", commands);
    free(man);
}
