/* termtext.h: safe, width-bounded text for the terminal summary: trace-derived strings with
 * control characters replaced (a hostile kernel name cannot emit escape sequences), word wrapping
 * to a column limit, and numbers that keep to their column. Pure functions: they write only into
 * the caller's buffer or FILE. Widths count UTF-8 code points, one column each. */
#ifndef TC_TERMTEXT_H
#define TC_TERMTEXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TC_TERM_WIDTH 100     /* the width when standard output is no terminal and COLUMNS is unset */
#define TC_TERM_MIN_WIDTH 80  /* narrower terminals get the 80-column layout (the tables' minimum) */
#define TC_TERM_MAX_WIDTH 120 /* wider ones get 120: prose wider than that is hard to read */

/* How a terminal report is drawn; cli/ decides (tc_term_for in cli/commands.h). */
typedef struct {
    bool color;  /* ANSI colour and bold */
    int width;   /* columns every line fits in, TC_TERM_MIN_WIDTH..TC_TERM_MAX_WIDTH */
} tc_term_opts;

/* Copies src into dst (always NUL-terminated when n > 0), keeping at most max_cols code points
 * (0 = no limit) and replacing C0/C1 control characters, DEL and invalid UTF-8 bytes with '?'.
 * NULL src copies "?". Returns dst. */
char *tc_term_clean(char *dst, size_t n, const char *src, size_t max_cols);

/* Writes text (cleaned as above) to out, wrapped at `width` columns at spaces; words longer than
 * a line are broken. The first line is indented by indent_first spaces, the rest by indent_rest.
 * Ends with a newline. */
void tc_term_wrap(FILE *out, const char *text, int indent_first, int indent_rest, int width);

/* As tc_term_wrap, but the caller has already written `col` columns on the current line (a label
 * such as "Conclusion: ", which may carry its own colour codes): the text continues there. */
void tc_term_wrap_from(FILE *out, const char *text, int col, int indent_rest, int width);

/* The columns s takes (its code points; s as tc_term_clean leaves it). */
size_t tc_term_cols(const char *s);

/* A table cell of |width| columns, like printf's %*s: src cleaned as by tc_term_clean, cut to
 * |width| columns ending in "…" when it is longer, then padded with spaces, on the left when
 * width > 0 (right-aligned), on the right when width < 0 (left-aligned). Returns dst, which should
 * hold 4 * |width| + 1 bytes to never cut early. */
char *tc_term_cell(char *dst, size_t n, const char *src, int width);

/* A table cell of |width| columns (as tc_term_cell) for one of a column's names that keeps what
 * tells it apart from the others: cut at the end ("…") when the first difference from every other
 * name in others[0, n_others) (itself and equal texts are skipped) falls within the cell; else the
 * head, "…", and the part around the first difference (with "…" when the name goes on), so that
 * four "void at::native::elementwise_kernel<128, 4, …" rows differ. Returns dst, which should hold
 * 4 * |width| + 1 bytes. */
char *tc_term_name_cell(char *dst, size_t n, const char *name, const char *const *others, size_t n_others, int width);

/* The left-aligned name cell of a table row whose name column is nw wide: tc_term_name_cell's when
 * the name fits; else the name goes on a line of its own (as tc_term_name_cell at `width`, its
 * padding dropped), written to out, and the cell is nw spaces, so the row's figures follow on the
 * next line under their headings. Returns dst (4 * width + 1 bytes). */
char *tc_term_name_row(FILE *out, char *dst, size_t n, const char *name, const char *const *others, size_t n_others,
                       int nw, int width);

/* Writes items to out joined by sep, wrapped at `width` columns between items only (an item longer
 * than a line is wrapped at its spaces): "compute 66.1% | exposed comm 28.7% | ..." never breaks
 * inside "exposed comm 28.7%". Indents as tc_term_wrap. Ends with a newline. */
void tc_term_join(FILE *out, const char *const *items, size_t n, const char *sep, int indent_first, int indent_rest,
                  int width);

/* Formats v with up to `decimals` digits after the point, dropping digits until the text fits in
 * `width` columns (it may still be wider when the integer part alone is). Returns buf. */
char *tc_term_fit(char *buf, size_t n, double v, int decimals, int width);
#endif
