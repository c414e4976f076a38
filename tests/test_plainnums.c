/* test_plainnums.c: the plain number forms of reports/textfmt.h (issue 31 item 2): no figure in text
 * or HTML is written in scientific notation, whatever its magnitude; tiny values read "<0.01"; HTML
 * sort keys and tooltips are plain decimals. The golden outputs are checked for exponents by
 * tests/golden/run.sh. */
#include "testutil.h"
#include "reports/textfmt.h"
#include "reports/html_kit.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static bool has_exponent(const char *s) {
    for (const char *p = s; *p; p++)
        if ((*p == 'e' || *p == 'E') && p > s && p[-1] >= '0' && p[-1] <= '9') return true;
    return false;
}

Test(plainnums, figures_of_any_magnitude_have_no_exponent) {
    const double vs[] = {6.049e-05, 1.862e4, 1.2e5, 2.71e4, 6.049e7, 6.597e12, 1e18, 3e25, 1.7e308, -4.2e20, 1e-300};
    char buf[TC_ATTR_LEN];
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        TC_SIG4(buf, vs[i]);
        cr_expect(!has_exponent(buf), "%g -> %s", vs[i], buf);
        tc_fmt_attr(buf, sizeof buf, vs[i], 9);
        cr_expect(!has_exponent(buf), "attr %g -> %s", vs[i], buf);
        tc_fmt_money(buf, sizeof buf, vs[i], 0);
        cr_expect(!has_exponent(buf), "money %g -> %s", vs[i], buf);
        tc_fmt_money_any(buf, sizeof buf, vs[i]);
        cr_expect(!has_exponent(buf), "money any %g -> %s", vs[i], buf);
    }
}

Test(plainnums, the_issue_figures_read_plainly) {
    char buf[TC_ATTR_LEN];
    cr_expect_str_eq(TC_SIG4(buf, 18620.0), "18,620");
    cr_expect_str_eq(TC_SIG4(buf, 120000.0), "120,000");
    cr_expect_str_eq(TC_SIG4(buf, 60490000.0), "60,490,000");
    cr_expect_str_eq(TC_SIG4(buf, 6.049e-05), "0.00006"); /* 6 decimals at most */
    cr_expect_str_eq(TC_SIG4(buf, 0.9), "0.9");           /* no trailing zeros, as %g */
    cr_expect_str_eq(TC_SIG4(buf, 36.0), "36");
    cr_expect_str_eq(TC_SIG4(buf, 1.785714286), "1.786");
    cr_expect_str_eq(tc_fmt_num(buf, sizeof buf, 0.004, 2), "<0.01");
    cr_expect_str_eq(tc_fmt_num(buf, sizeof buf, -0.004, 2), ">-0.01");
    cr_expect_str_eq(tc_fmt_num(buf, sizeof buf, 0.0, 2), "0.00");
    cr_expect_str_eq(tc_fmt_num(buf, sizeof buf, 1e-9, 6), "<0.000001");
    cr_expect_str_eq(tc_fmt_num(buf, sizeof buf, 1e18, 0), "1,000,000,000,000,000,000");
    cr_expect_str_eq(tc_fmt_attr(buf, sizeof buf, 4.66666667e-05, 9), "0.0000466666667");
    cr_expect_str_eq(tc_fmt_attr(buf, sizeof buf, 0.5, 9), "0.5");
    cr_expect_str_eq(tc_fmt_attr(buf, sizeof buf, 2e9, 9), "2000000000");
}

Test(plainnums, a_figure_too_wide_for_its_cell_is_a_bound) {
    char buf[64];
    cr_expect_str_eq(tc_fmt_num_fit(buf, sizeof buf, 1234.5, 1, "", " ms", 16), "1,234.5 ms");
    cr_expect_str_eq(tc_fmt_num_fit(buf, sizeof buf, 9.1e12, 0, "", " ms", 16), ">999,999,999 ms");
    cr_expect_str_eq(tc_fmt_num_fit(buf, sizeof buf, -9.1e12, 0, "$", "", 10), "<-$999,999");
    cr_expect_str_eq(tc_fmt_num_fit(buf, sizeof buf, 9.1e16, 0, "", "x", 9), ">999,999x");
    cr_expect_str_eq(tc_fmt_num_fit(buf, sizeof buf, 1e300, 0, "", "x", 9), ">999,999x");
}

/* Shares (issue 31): one form in text and HTML, "<0.1%" for a tiny nonzero share, never "0.0%" for
 * time that was there; HTML gets the same text escaped. */
Test(plainnums, a_tiny_share_reads_under_a_tenth_of_a_percent) {
    char buf[TC_PCT_LEN];
    cr_expect_str_eq(tc_fmt_pct(buf, sizeof buf, 0.123, 1), "12.3%");
    cr_expect_str_eq(tc_fmt_pct(buf, sizeof buf, 0, 1), "0.0%");
    cr_expect_str_eq(tc_fmt_pct(buf, sizeof buf, 0.00003, 1), "<0.1%");
    cr_expect_str_eq(tc_fmt_pct(buf, sizeof buf, 0.0005, 1), "0.1%"); /* 0.05% rounds to 0.1 */
    cr_expect_str_eq(tc_fmt_pct(buf, sizeof buf, -0.00001, 1), ">-0.1%");
    cr_expect_str_eq(tc_fmt_pct(buf, sizeof buf, 1, 1), "100.0%");
    cr_expect_str_eq(tc_fmt_pct(buf, sizeof buf, 0.000004, 2), "<0.01%");
    cr_expect_str_eq(tc_fmt_pct(buf, sizeof buf, 25, 1), "2,500.0%");
    cr_expect_str_eq(tc_fmt_pct_num(buf, sizeof buf, 0.00002, 1), "<0.1");
    cr_expect_str_eq(TC_PCT1(buf, 0.6549), "65.5%");
    cr_expect_str_eq(tc_html_pct(buf, sizeof buf, 0.00003, 1), "&lt;0.1%");
    cr_expect_str_eq(tc_html_pct_num(buf, sizeof buf, -0.00003, 1), "&gt;-0.1");
    cr_expect_str_eq(TC_HTML_PCT1(buf, 0.5), "50.0%");
}

/* The one formatter is the only place a share becomes text: no report source writes a figure
 * followed by a literal "%" ("%.1f%%", "%s%%" after tc_fmt_num) or signed points ("%+.1f pt") by
 * itself, so every share reads "<0.1%" when tiny and "0.0%" when none, alike everywhere. A CSS
 * length ("width:%.1f%%") is not a figure. */
static bool own_percent_form(const char *line) {
    for (const char *p = strchr(line, '%'); p; p = strchr(p + 1, '%')) {
        if (p[1] == '%') { p++; continue; } /* a literal "%%" alone (a heading's "%") */
        const char *q = p + 1;
        while (*q && strchr("-+ #0123456789.", *q)) q++;
        bool figure = *q && strchr("fFgGeEs", *q);
        if (!figure) continue;
        bool css = p >= line + 6 && strncmp(p - 6, "width:", 6) == 0;
        if ((strncmp(q + 1, "%%", 2) == 0 && !css) || (*q == 'f' && p[1] == '+' && strncmp(q + 1, " pt", 3) == 0))
            return true;
    }
    return false;
}

/* Counts the product sources of folder dir that write a share by themselves (own_percent_form),
 * expecting none; returns the sources read. */
static size_t scan_folder(const char *dir) {
    DIR *d = opendir(dir);
    cr_assert(d, "%s", dir);
    size_t files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0) continue;
        if (!strcmp(e->d_name, "textfmt.c") || !strcmp(e->d_name, "html_kit.c")) continue; /* the formatter */
        char path[300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *src = tu_read_file(path, NULL);
        cr_assert(src, "%s", path);
        files++;
        int no = 1;
        for (char *line = src; line && *line; no++) {
            char *nl = strchr(line, '\n');
            if (nl) *nl = '\0';
            cr_expect(!own_percent_form(line), "%s:%d writes a share by itself: %s", path, no, line);
            line = nl ? nl + 1 : NULL;
        }
        free(src);
    }
    closedir(d);
    return files;
}

/* Every layer that writes words (reports, and the warnings and notes of the parsers, the analyzer
 * and the command) writes its shares through base/numfmt.h. */
Test(plainnums, every_share_in_reports_goes_through_the_one_formatter) {
    cr_expect(own_percent_form("\"%.1f%%\""));
    cr_expect(own_percent_form("\"rank %lld (%s%%)\""));
    cr_expect(own_percent_form("\"%+.1f pt\""));
    cr_expect(!own_percent_form("\"width:%.1f%%\""));
    cr_expect(!own_percent_form("\"each cause as %% of\""));
    cr_expect(!own_percent_form("WHOLE(\"%lf%% of exposed communication unmatched\", &v)")); /* a reader's pattern */
    size_t files = scan_folder("reports");
    cr_expect(files > 10, "%zu report sources", files);
    const char *others[] = {"model", "parsers", "analyzer", "cli", "cli/mpi"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) cr_expect(scan_folder(others[i]) > 0, "%s", others[i]);
}

Test(plainnums, points_are_signed_and_tiny_ones_bounded) {
    char buf[TC_PCT_LEN];
    cr_expect_str_eq(tc_fmt_pct_pt(buf, sizeof buf, 0.012, 1), "+1.2 pt");
    cr_expect_str_eq(tc_fmt_pct_pt(buf, sizeof buf, -0.004, 1), "-0.4 pt");
    cr_expect_str_eq(tc_fmt_pct_pt(buf, sizeof buf, 0, 1), "+0.0 pt");
    cr_expect_str_eq(tc_fmt_pct_pt(buf, sizeof buf, 0.00001, 1), "<+0.1 pt");
    cr_expect_str_eq(tc_fmt_pct_pt(buf, sizeof buf, -0.00001, 1), ">-0.1 pt");
    cr_expect_str_eq(tc_html_pct_pt(buf, sizeof buf, 0.00001, 1), "&lt;+0.1 pt");
}
