/* test_unix.c: tracecost as a Unix tool (issue 11): make install/uninstall into a DESTDIR, the man
 * page rendering without warnings, bash completion, progress only on a terminal (script(1) gives a
 * pseudo-terminal), --quiet, NO_COLOR, --version features, suggestions for misspelt commands and
 * options, and a terminal summary that fits 100 columns and cannot be made to emit escapes. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "reports/termtext.h"
#include "testutil.h"

#define PAIR "samples/hta-pair/sampled_rank-0.json.gz samples/hta-pair/sampled_rank-1.json.gz"

static const char *bin(void) {
    const char *b = getenv("TRACECOST_BIN");
    return b && *b ? b : "build/tracecost";
}

/* Runs cmd with /bin/sh; its stdout (add 2>&1 for stderr) into *out (malloc'd). Exit status. */
static int run(const char *cmd, char **out) {
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "popen %s", cmd);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += k;
        if (cap - n < 4096) buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    int st = pclose(p);
    if (out) *out = buf; else free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    cr_assert(vasprintf(&s, f, ap) >= 0);
    va_end(ap);
    return s;
}

static char *make_tmpdir(void) {
    char *d = strdup("/tmp/tc-unix-XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

static void rm_rf(const char *d) {
    char *c = fmt("rm -rf '%s'", d);
    cr_assert_eq(run(c, NULL), 0);
    free(c);
}


static bool is_file(const char *path, mode_t mode) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == mode;
}

/* The build folder the tests run against (dirname of TRACECOST_BIN), for nested make calls. */
static char *build_dir(void) {
    char *b = strdup(bin());
    char *slash = strrchr(b, '/');
    if (slash) *slash = 0; else strcpy(b, ".");
    return b;
}

/* A nested make, detached from the parent's jobserver and command-line variables. */
static int make(const char *args, char **out) {
    char *bd = build_dir();
    char *c = fmt("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s BUILD='%s' %s 2>&1", bd, args);
    int rc = run(c, out);
    free(c);
    free(bd);
    return rc;
}

/* ---- install / uninstall ---- */

static const char *const installed[] = {
    "usr/bin/tracecost", "usr/share/man/man1/tracecost.1", "usr/share/bash-completion/completions/tracecost",
    "usr/share/zsh/site-functions/_tracecost", NULL,
};

Test(unix_tool, install_uninstall_destdir) {
    char *d = make_tmpdir(), *out;
    char *args = fmt("install DESTDIR='%s' PREFIX=/usr CUPTI_LIB=/nonexistent.so", d);
    cr_assert_eq(make(args, &out), 0, "make install failed:\n%s", out);
    free(out);
    free(args);
    for (size_t i = 0; installed[i]; i++) {
        char *p = fmt("%s/%s", d, installed[i]);
        cr_expect(is_file(p, i == 0 ? 0755 : 0644), "missing or wrong mode: %s", p);
        free(p);
    }
    char *lib = fmt("%s/usr/lib/tracecost", d);
    cr_expect(access(lib, F_OK) != 0, "lib/tracecost installed without a CUPTI library");
    char *c = fmt("'%s/usr/bin/tracecost' --version", d);
    cr_expect_eq(run(c, &out), 0);
    cr_expect(strstr(out, "tracecost ") == out, "installed binary: %s", out);
    free(out);
    free(c);
    /* make install strips: the installed binary has no symbol table (the built one has, -g) */
    c = fmt("readelf -S '%s/usr/bin/tracecost' | grep -c '\\.symtab'", d);
    run(c, &out);
    cr_expect_eq(atoi(out), 0, "the installed tracecost is not stripped");
    free(out);
    free(c);

    args = fmt("uninstall DESTDIR='%s' PREFIX=/usr CUPTI_LIB=/nonexistent.so", d);
    cr_assert_eq(make(args, &out), 0, "make uninstall failed:\n%s", out);
    free(out);
    free(args);
    c = fmt("find '%s' -type f -o -type l", d);
    run(c, &out);
    cr_expect_str_empty(out, "left after uninstall:\n%s", out);
    free(out);
    free(c);
    free(lib);
    rm_rf(d);
    free(d);
}

Test(unix_tool, install_cupti_library_when_built) {
    char *d = make_tmpdir(), *out;
    char *fake = fmt("%s/libtracecost_cupti.so", d);
    FILE *f = fopen(fake, "w");
    cr_assert_not_null(f);
    fputs("not really a library\n", f);
    fclose(f);
    char *args = fmt("install DESTDIR='%s/root' CUPTI_LIB='%s'", d, fake);
    cr_assert_eq(make(args, &out), 0, "%s", out);
    free(out);
    free(args);
    char *lib = fmt("%s/root/usr/local/lib/tracecost/libtracecost_cupti.so", d); /* PREFIX default */
    cr_expect(is_file(lib, 0755), "CUPTI library not installed at %s", lib);
    char *b = fmt("%s/root/usr/local/bin/tracecost", d);
    cr_expect(is_file(b, 0755), "PREFIX default is not /usr/local");
    args = fmt("uninstall DESTDIR='%s/root' CUPTI_LIB='%s'", d, fake);
    cr_assert_eq(make(args, &out), 0, "%s", out);
    free(out);
    free(args);
    char *c = fmt("find '%s/root' -type f -o -type l; test -d '%s/root/usr/local/lib/tracecost' && echo dir-left", d, d);
    run(c, &out);
    cr_expect_str_empty(out, "left after uninstall:\n%s", out);
    free(out);
    free(c);
    free(lib);
    free(b);
    free(fake);
    rm_rf(d);
    free(d);
}

/* ---- man page ---- */

Test(unix_tool, man_page_renders_without_warnings) {
    char *out;
    cr_assert_eq(run("MANPAGER=cat MANWIDTH=100 man --warnings -l docs/tracecost.1 2>&1", &out), 0, "%s", out);
    cr_expect_null(strstr(out, "warning:"), "man -l warns:\n%s", out); /* troff: file:line: warning: ... */
    static const char *const sections[] = {"NAME", "SYNOPSIS", "COMMANDS", "DEFINITIONS", "EXIT STATUS",
                                           "ENVIRONMENT", "FILES", "EXAMPLES", NULL};
    for (size_t i = 0; sections[i]; i++) {
        char *h = fmt("\n%s\n", sections[i]);
        cr_expect_not_null(strstr(out, h), "section %s missing", sections[i]);
        free(h);
    }
    static const char *const env[] = {"NO_COLOR", "TERM", "TRACECOST_CUPTI_LIB", "TRACECOST_DELAY_S",
                                      "TRACECOST_DURATION_S", "TRACECOST_STEP_RANGE", "TRACECOST_GZIP", "CUDA_HOME",
                                      NULL};
    for (size_t i = 0; env[i]; i++) cr_expect_not_null(strstr(out, env[i]), "%s not documented", env[i]);
    static const char *const defs[] = {"compute", "exposed comm", "overlapped comm", "memory exposed", "idle",
                                       "transfer and wait", "shares", "verdict", "comm/compute ratio", NULL};
    for (size_t i = 0; defs[i]; i++) {
        char *h = fmt("\n       %s", defs[i]);
        cr_expect_not_null(strstr(out, h), "definition of '%s' missing", defs[i]);
        free(h);
    }
    free(out);
    cr_expect_eq(run("MANPAGER=cat MANWIDTH=100 man --warnings -l docs/tracecost.1 2>&1 >/dev/null", &out), 0);
    cr_expect_str_empty(out, "man -l writes to stderr:\n%s", out);
    free(out);
    cr_expect_eq(run("groff -man -ww -z docs/tracecost.1 2>&1", &out), 0);
    cr_expect_str_empty(out, "groff warns:\n%s", out);
    free(out);
}

/* Every option the built commands (analyze, cost, gpus, compare) print in --help is in the man page
 * (tests/test_options.c holds the man page to the option tables both ways). */
Test(unix_tool, man_page_has_every_help_option) {
    char *c = fmt("MANPAGER=cat MANWIDTH=100 man -l docs/tracecost.1 2>/dev/null > /tmp/tc-man-$$.txt; "
                  "for o in $(for c in analyze cost gpus compare; do '%s' $c --help; done | grep -o -- '--*[a-zA-Z][a-zA-Z-]*' | sort -u); do "
                  "grep -q -- \"$o\" /tmp/tc-man-$$.txt || echo \"missing $o\"; done; rm -f /tmp/tc-man-$$.txt", bin());
    char *out;
    run(c, &out);
    cr_expect_str_empty(out, "%s", out);
    free(out);
    free(c);
}

/* ---- completions ---- */

/* Runs the bash completion function for the words given (the last is being completed). */
static char *complete_bash(const char *words, const char *dir) {
    char cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    char *c = fmt("cd '%s' && bash --norc -c 'source \"$0\" && COMP_WORDS=(%s) && COMP_CWORD=$((${#COMP_WORDS[@]}-1)) "
                  "&& _tracecost && printf \"%%s\\n\" \"${COMPREPLY[@]}\" | sort' '%s/completions/tracecost.bash'",
                  dir, words, cwd);
    char *out;
    cr_expect_eq(run(c, &out), 0, "%s", c);
    free(c);
    return out;
}

Test(unix_tool, bash_completion_loads_and_completes) {
    char *out;
    cr_assert_eq(run("bash --norc -c 'source completions/tracecost.bash && complete -p tracecost'", &out), 0);
    cr_expect_str_eq(out, "complete -F _tracecost tracecost\n");
    free(out);
    static const char *const cases[][2] = { /* words typed, completions expected */
        {"tracecost an", "analyze\n"},
        {"tracecost analyze --js", "--json\n"},
        {"tracecost co", "compare\ncost\n"},
        {"tracecost compare --b-pri", "--b-price-per-gpu-hour\n"},
        {"tracecost analyze --tok", "--tokens-per-step\n"},
        {"tracecost analyze --gpu h20", "h20\nh200\nh200-nvl\n"},
        {"tracecost help cos", "cost\n"},
        {"tracecost record --out", "--output\n"},
        {"tracecost vers", "version\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        out = complete_bash(cases[i][0], ".");
        cr_expect_str_eq(out, cases[i][1], "completing '%s'", cases[i][0]);
        free(out);
    }
    out = complete_bash("tracecost record -", ".");
    cr_expect_not_null(strstr(out, "--duration\n"), "%s", out);
    free(out);

    char *d = make_tmpdir();
    char *c = fmt("cd '%s' && mkdir runs && touch a.json b.json.gz c.txt", d);
    cr_assert_eq(run(c, NULL), 0);
    free(c);
    out = complete_bash("tracecost analyze \"\"", d);
    cr_expect_str_eq(out, "a.json\nb.json.gz\nruns\n", "trace completion: %s", out);
    free(out);
    rm_rf(d);
    free(d);
}

/* Every option analyze, cost and compare print in --help completes (the completion keeps up with the help). */
Test(unix_tool, bash_completion_knows_every_help_option) {
    char *c = fmt("for cmd in analyze cost compare; do for o in $('%s' $cmd --help | grep -o -- ' --[a-zA-Z][a-zA-Z-]*' | "
                  "grep -vx -- ' --b-FLAG' | sort -u); do "
                  "bash --norc -c 'source completions/tracecost.bash && COMP_WORDS=(tracecost \"$1\" \"$2\") && COMP_CWORD=2 "
                  "&& _tracecost && printf \"%%s\\n\" \"${COMPREPLY[@]}\"' x \"$cmd\" \"$o\" | grep -qx -- \"$o\" "
                  "|| echo \"$cmd: $o does not complete\"; done; done", bin());
    char *out;
    run(c, &out);
    cr_expect_str_empty(out, "%s", out);
    free(out);
    free(c);
}

Test(unix_tool, zsh_completion_parses) {
    if (run("command -v zsh >/dev/null", NULL) != 0) cr_skip_test("zsh is not installed");
    char *out;
    cr_expect_eq(run("zsh -n completions/_tracecost 2>&1", &out), 0, "%s", out);
    free(out);
    cr_expect_eq(run("zsh -f -c 'fpath=(completions $fpath); autoload -Uz _tracecost; whence -w _tracecost' 2>&1", &out), 0);
    cr_expect_str_eq(out, "_tracecost: function\n");
    free(out);
}

/* ---- progress, quiet, colour ---- */

/* A shell pipeline feeding one gzip trace to stdin with a pause of 1.3 s in the middle, so that
 * loading takes more than the 1 s after which progress appears. */
#define SLOW_FEED "(head -c 60000 samples/hta-pair/sampled_rank-0.json.gz; sleep 1.3; tail -c +60001 samples/hta-pair/sampled_rank-0.json.gz)"

Test(unix_tool, no_progress_when_stderr_is_a_file) {
    char *c = fmt("%s | '%s' analyze - 2>&1 >/dev/null", SLOW_FEED, bin());
    char *out;
    cr_expect_eq(run(c, &out), 0);
    cr_expect_null(strstr(out, "read "), "progress written to a non-terminal: %s", out);
    cr_expect_null(strchr(out, '\r'));
    free(out);
    free(c);
}

/* Under script(1) stderr is a pseudo-terminal; stdout goes to /dev/null so only stderr is seen. */
static char *under_pty(const char *inner) {
    char *c = fmt("SHELL=/bin/sh script -qec \"%s\" /dev/null </dev/null", inner);
    char *out;
    cr_expect_eq(run(c, &out), 0, "%s", c);
    free(c);
    return out;
}

Test(unix_tool, progress_on_a_terminal) {
    char *inner = fmt("%s | '%s' analyze - >/dev/null", SLOW_FEED, bin());
    char *out = under_pty(inner);
    cr_expect_not_null(strstr(out, "\rtracecost: read "), "no progress on a terminal: %s", out);
    cr_expect_not_null(strstr(out, "MB/s), "), "%s", out);
    cr_expect_not_null(strstr(out, " of 1 files done"), "%s", out);
    free(out);
    free(inner);
}

Test(unix_tool, quiet_silences_progress_and_summary) {
    char *inner = fmt("%s | '%s' analyze -q -", SLOW_FEED, bin());
    char *out = under_pty(inner);
    cr_expect_null(strstr(out, "read "), "progress with --quiet: %s", out);
    cr_expect_null(strstr(out, "Verdict"), "summary with --quiet: %s", out);
    free(out);
    free(inner);
}

Test(unix_tool, colour_only_on_a_terminal_and_never_with_no_color) {
    char *inner = fmt("'%s' analyze " PAIR, bin());
    char *out = under_pty(inner);
    cr_expect_not_null(strchr(out, '\033'), "no colour on a terminal");
    free(out);
    free(inner);
    inner = fmt("NO_COLOR=1 '%s' analyze " PAIR, bin());
    out = under_pty(inner);
    cr_expect_null(strchr(out, '\033'), "colour despite NO_COLOR");
    cr_expect_not_null(strstr(out, "Verdict: "));
    free(out);
    free(inner);
    inner = fmt("TERM=dumb '%s' analyze " PAIR, bin());
    out = under_pty(inner);
    cr_expect_null(strchr(out, '\033'), "colour with TERM=dumb");
    free(out);
    free(inner);
    char *c = fmt("'%s' analyze " PAIR " 2>&1", bin());
    cr_expect_eq(run(c, &out), 0);
    cr_expect_null(strchr(out, '\033'), "colour into a pipe");
    free(out);
    free(c);
}

Test(unix_tool, cost_calculator_colour_follows_the_same_rules) {
    const char *args = "cost --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2";
    char *inner = fmt("'%s' %s", bin(), args);
    char *out = under_pty(inner);
    cr_expect_not_null(strchr(out, '\033'), "no colour on a terminal:\n%s", out);
    tu_expect_width(out, 100);
    free(out);
    free(inner);
    inner = fmt("NO_COLOR=1 '%s' %s", bin(), args);
    out = under_pty(inner);
    cr_expect_null(strchr(out, '\033'), "colour despite NO_COLOR");
    free(out);
    free(inner);
    inner = fmt("TERM=dumb '%s' %s", bin(), args);
    out = under_pty(inner);
    cr_expect_null(strchr(out, '\033'), "colour with TERM=dumb");
    free(out);
    free(inner);
}

/* ---- version, help, suggestions ---- */

/* README's first command is plain `make`: its default goal must build the tool (a merge once
 * dropped `all`, leaving `deps` as the default and building nothing). */
Test(unix_tool, plain_make_builds_the_tool) {
    char *out;
    cr_assert_eq(run("make -np 2>/dev/null | grep '^.DEFAULT_GOAL := ' ; make -np 2>/dev/null | grep '^all:'", &out), 0);
    cr_expect_not_null(strstr(out, ".DEFAULT_GOAL := all\n"), "%s", out);
    cr_expect_not_null(strstr(out, "/tracecost"), "all builds the tool: %s", out);
    free(out);
}

/* Issue 31 item 8: README's sample output (the block after "`build/tracecost analyze samples/`
 * starts with:") is what that command prints first, at the 100 columns the README is set in, so
 * it cannot go stale again. */
Test(unix_tool, readme_sample_is_what_analyze_prints) {
    char *readme = tu_read_file("README.md", NULL), *out;
    cr_assert_not_null(readme);
    const char *intro = "`build/tracecost analyze samples/` starts with:\n\n```\n";
    char *block = strstr(readme, intro);
    cr_assert_not_null(block, "README.md has no \"%s\" block", intro);
    block += strlen(intro);
    char *end = strstr(block, "\n```\n");
    cr_assert_not_null(end, "the README block is not closed");
    end[1] = '\0'; /* the block, each line with its newline */
    cr_assert_eq(run("COLUMNS=100 build/tracecost analyze samples/ 2>/dev/null", &out), 0);
    size_t lines = 0;
    for (const char *p = block; *p; p++) lines += *p == '\n';
    char *cut = out;
    for (size_t n = 0; n < lines && cut; n++) cut = strchr(cut, '\n') ? strchr(cut, '\n') + 1 : NULL;
    cr_assert_not_null(cut, "the command printed fewer than the README's %zu lines:\n%s", lines, out);
    *cut = '\0';
    cr_expect_str_eq(block, out, "README.md's sample differs from `COLUMNS=100 build/tracecost analyze samples/`: "
                     "paste the command's first %zu lines into the block", lines);
    free(out);
    free(readme);
}

/* Issue 31 item 8: with every package there (a stand-in dpkg-query says so), setup-deps says so and
 * installs nothing; --check (behind every build) stays quiet. */
Test(unix_tool, setup_deps_says_when_nothing_is_missing) {
    char *d = make_tmpdir(), *out;
    char *c = fmt("for t in apt-get sudo; do printf '#!/bin/sh\\ntouch %s/called-$t\\n' > %s/$t; done; "
                  "printf '#!/bin/sh\\necho install ok installed\\n' > %s/dpkg-query; chmod +x %s/*; "
                  "PATH='%s':$PATH sh scripts/setup-deps.sh base test 2>&1", d, d, d, d, d);
    cr_expect_eq(run(c, &out), 0, "%s", out);
    cr_expect_str_eq(out, "setup-deps: every package for base test is installed; nothing to do\n");
    free(out);
    free(c);
    c = fmt("PATH='%s':$PATH sh scripts/setup-deps.sh --check base 2>&1", d);
    cr_expect_eq(run(c, &out), 0, "%s", out);
    cr_expect_str_eq(out, "", "--check says nothing when nothing is missing");
    free(out);
    free(c);
    c = fmt("ls '%s'", d);
    run(c, &out);
    cr_expect_null(strstr(out, "called-"), "apt-get or sudo called with nothing missing: %s", out);
    free(out);
    free(c);
    rm_rf(d);
    free(d);
}

/* Plain `make` installs nothing: with packages missing (a stand-in dpkg-query says so) the check it
 * runs names them and the command that installs them, exits 1 and never calls apt-get or sudo. */
Test(unix_tool, plain_make_never_installs_packages) {
    char *d = make_tmpdir(), *out;
    char *c = fmt("for t in apt-get sudo; do printf '#!/bin/sh\\ntouch %s/called-$t\\n' > %s/$t; done; "
                  "printf '#!/bin/sh\\nexit 1\\n' > %s/dpkg-query; chmod +x %s/*; "
                  "PATH='%s':$PATH sh scripts/setup-deps.sh --check base test 2>&1", d, d, d, d, d);
    cr_expect_eq(run(c, &out), 1, "%s", out);
    cr_expect_not_null(strstr(out, "setup-deps: missing Debian packages: gcc make"), "%s", out);
    cr_expect_not_null(strstr(out, "install them with: sh scripts/setup-deps.sh base test"), "%s", out);
    free(out);
    free(c);
    c = fmt("ls '%s'", d);
    run(c, &out);
    cr_expect_null(strstr(out, "called-"), "the check called apt-get or sudo: %s", out);
    free(out);
    free(c);
    /* what make runs for the build and the test build: the check, and only make deps installs (the
     * build folder is build/ or, under make sanitize, build-sanitize/: MAKEFLAGS carries BUILD) */
    cr_assert_eq(run("make -np 2>/dev/null | grep -A9 '^[^ :]*/.deps-base:\\|^[^ :]*/.deps-test:\\|^deps:'", &out), 0);
    cr_expect_not_null(strstr(out, "scripts/setup-deps.sh --check base\n"), "%s", out);
    cr_expect_not_null(strstr(out, "scripts/setup-deps.sh --check base test\n"), "%s", out);
    cr_expect_not_null(strstr(out, "@scripts/setup-deps.sh base\n"), "%s", out);
    free(out);
    rm_rf(d);
    free(d);
}

Test(unix_tool, version_prints_features) {
    char *c = fmt("'%s' --version", bin()), *out;
    cr_assert_eq(run(c, &out), 0);
    char gz[32], cu[8], mpi[8];
    const char *nl = strchr(out, '\n');
    cr_assert_not_null(nl);
    cr_expect(strncmp(out, "tracecost ", 10) == 0);
    cr_assert_eq(sscanf(nl + 1, "features: gzip=%31s json=yajl cupti=%7s mpi=%7s", gz, cu, mpi), 3, "%s", out);
    cr_expect(!strcmp(gz, "zlib") || !strcmp(gz, "isa-l"), "gzip=%s", gz);
    cr_expect(!strcmp(cu, "yes") || !strcmp(cu, "no"));
    cr_expect(!strcmp(mpi, "yes") || !strcmp(mpi, "no"));
    free(out);
    free(c);
    c = fmt("'%s' -V", bin());
    char *out2;
    cr_assert_eq(run(c, &out2), 0);
    free(c);
    c = fmt("'%s' --version", bin());
    run(c, &out);
    cr_expect_str_eq(out, out2);
    free(out);
    free(out2);
    free(c);
}

Test(unix_tool, help_command_and_subcommand_help) {
    char *c = fmt("'%s' help analyze", bin()), *a, *b;
    cr_assert_eq(run(c, &a), 0);
    free(c);
    c = fmt("'%s' analyze --help", bin());
    cr_assert_eq(run(c, &b), 0);
    cr_expect_str_eq(a, b);
    cr_expect_not_null(strstr(b, "Examples:"));
    size_t lines = 0;
    for (const char *p = b; *p; p++) lines += *p == '\n';
    cr_expect(lines <= 30, "analyze --help is %zu lines; keep it short", lines);
    free(a);
    free(b);
    free(c);
    c = fmt("'%s' --help", bin());
    cr_assert_eq(run(c, &a), 0);
    cr_expect_not_null(strstr(a, "help COMMAND"));
    free(a);
    free(c);
}

static void expect_usage_error(const char *args, const char *needle) {
    char *c = fmt("'%s' %s 2>&1", bin(), args), *out;
    cr_expect_eq(run(c, &out), 1, "%s", c);
    cr_expect_not_null(strstr(out, needle), "'%s': expected '%s' in:\n%s", args, needle, out);
    free(out);
    free(c);
}

Test(unix_tool, suggestions_for_misspellings) {
    expect_usage_error("anlyze x", "unknown command 'anlyze' (did you mean 'analyze'?)");
    expect_usage_error("an x", "(did you mean 'analyze'?)");
    expect_usage_error("--verison", "unknown option '--verison' (did you mean '--version'?)");
    expect_usage_error("help anlyze", "(did you mean 'analyze'?)");
    expect_usage_error("analyze --jsn out.json x", "unknown option '--jsn' (did you mean --json?)");
    expect_usage_error("analyze --qiet x", "(did you mean --quiet?)");
    expect_usage_error("analyze --bound-treshold 0.2 x", "(did you mean --bound-threshold?)");
    expect_usage_error("zzzzzzzz", "unknown command 'zzzzzzzz'\nTry 'tracecost --help'.");
    expect_usage_error("cots", "(did you mean 'cost'?)");
    expect_usage_error("gpu", "(did you mean 'gpus'?)");
    expect_usage_error("gpus --jsno", "unknown option '--jsno' (did you mean --json?)");
    expect_usage_error("cost --price-per-gpu-hr 2", "did you mean --price-per-gpu-hour?");
    /* one rule everywhere: a cost flag in analyze and compare, by its unique prefix */
    expect_usage_error("analyze --price 2 x", "unknown option '--price' (did you mean --price-per-gpu-hour?)");
    expect_usage_error("compare --b-pri 2 a b", "(did you mean --b-price-per-gpu-hour?)");
    expect_usage_error("analyze --quiet=1 x", "--quiet takes no value");
}

/* ---- terminal summary ---- */

/* Every line of text, ANSI CSI sequences removed, is at most `width` code points. */
Test(unix_tool, summary_fits_100_columns_verdict_first_actions_last) {
    char *c = fmt("'%s' analyze " PAIR, bin()), *out;
    cr_assert_eq(run(c, &out), 0);
    tu_expect_width(out, 100);
    cr_expect(strncmp(out, "Verdict: ", 9) == 0, "verdict is not first:\n%s", out);
    const char *act = strstr(out, "\nActions\n");
    cr_assert_not_null(act, "no Actions section:\n%s", out);
    cr_expect_not_null(strstr(act, "\n  1. "));
    cr_expect_not_null(strstr(act, "\n  2. "));
    cr_expect_null(strstr(act, "\n  4. "), "more than three actions");
    cr_expect_null(strstr(act + 9, "\n\n"), "Actions is not the last section");
    free(out);
    free(c);
    /* the bundled 4-rank job with its cost section: the actions still come last */
    c = fmt("'%s' analyze samples/", bin());
    cr_assert_eq(run(c, &out), 0);
    tu_expect_width(out, 100);
    act = strstr(out, "\nActions\n");
    cr_assert_not_null(act, "no Actions section:\n%s", out);
    cr_expect_null(strstr(act + 9, "\n\n"), "Actions is not the last section:\n%s", act);
    cr_expect_not_null(strstr(out, "\nStraggler: rank 3\n"), "%s", out);
    free(out);
    free(c);
    /* coloured, one rank */
    char *inner = fmt("'%s' analyze samples/hta-pair/sampled_rank-1.json.gz", bin());
    out = under_pty(inner);
    tu_expect_width(out, 100);
    free(out);
    free(inner);
}

/* One rank of a two-rank job: a GEMM of gemm_us, an allreduce of comm_us, another GEMM of 100 us.
 * Device, kernel, collective and group names carry escape sequences, BEL, CR, BS and a C1 CSI. */
static void write_rank(const char *path, int rank, int gemm_us, int comm_us) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"distributedInfo\":{\"rank\":%d,\"world_size\":2},\n"
               "\"deviceProperties\":[{\"id\":0,\"name\":\"EVIL\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m GPU\"}],\n"
               "\"traceEvents\":[\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\\u001b[31mred\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":%d,\"args\":{}},\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce\\u001b[2J\\r\\b\",\"pid\":0,\"tid\":9,"
               "\"ts\":%d,\"dur\":%d,\"args\":{\"Collective name\":\"all\\u001breduce\",\"Process Group Name\":\"0\\u001b[1m\","
               "\"In msg nelems\":1048576,\"Out msg nelems\":1048576,\"Group size\":2,\"dtype\":\"Float\"}},\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\\u001b[31mred\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":100,\"args\":{}}\n"
               "]}\n", rank, gemm_us, gemm_us, comm_us, gemm_us + comm_us);
    fclose(f);
}

static void write_hostile(const char *path, int rank) { write_rank(path, rank, 100, rank ? 150 : 250); }

Test(unix_tool, hostile_names_cannot_emit_escapes) {
    char *d = make_tmpdir();
    char *r0 = fmt("%s/rank0.json", d), *r1 = fmt("%s/rank1.json", d);
    write_hostile(r0, 0);
    write_hostile(r1, 1);
    char *c = fmt("'%s' analyze '%s' '%s' 2>/dev/null", bin(), r0, r1), *out;
    int rc = run(c, &out);
    cr_expect(rc == 0 || rc == 3, "rc %d:\n%s", rc, out);
    cr_expect_not_null(strstr(out, "EVIL?]0;o"), "device name not shown cleaned:\n%s", out);
    cr_expect_null(strchr(out, '\033'), "ESC reached the terminal:\n%s", out);
    cr_expect_null(strchr(out, '\007'), "BEL reached the terminal");
    cr_expect_null(strchr(out, '\b'), "backspace reached the terminal");
    cr_expect_null(strstr(out, "\xc2\x9b"), "C1 CSI reached the terminal");
    for (const char *p = out; *p; p++) cr_expect(*p != '\r', "CR reached the terminal");
    tu_expect_width(out, 100);
    free(out);
    free(c);
    free(r0);
    free(r1);
    rm_rf(d);
    free(d);
}

Test(unix_tool, term_clean_and_wrap) {
    char buf[64];
    cr_expect_str_eq(tc_term_clean(buf, sizeof buf, "a\033[31mb\x07\xc2\x9b" "c\xff" "d", 0), "a?[31mb???c?d");
    cr_expect_str_eq(tc_term_clean(buf, sizeof buf, "H100 \xc3\xa9t\xc3\xa9", 6), "H100 \xc3\xa9");
    cr_expect_str_eq(tc_term_clean(buf, sizeof buf, NULL, 0), "?");
    cr_expect_str_eq(tc_term_fit(buf, sizeof buf, 1234567.891, 3, 10), "1234567.89");
    cr_expect_str_eq(tc_term_fit(buf, sizeof buf, 12.5, 3, 10), "12.500");
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    tc_term_wrap(m, "one two three four five six seven eight nine ten eleven twelve thirteen", 2, 4, 20);
    tc_term_wrap(m, "averyveryverylongwordthatcannotfitonaline x", 2, 4, 20);
    fclose(m);
    tu_expect_width(text, 20);
    cr_expect(strncmp(text, "  one two three four\n    five six", 33) == 0, "%s", text);
    cr_expect_not_null(strstr(text, "  averyveryverylongw\n    ordthatcannotfit\n    onaline x\n"), "%s", text);
    free(text);
}

/* Rank 1 computes 500 us before the allreduce, rank 0 only 100 us and waits 400 us for it: the
 * job is straggler-bound and the actions name rank 1 and its trace file. */
Test(unix_tool, straggler_actions_name_the_rank_and_its_trace) {
    char *d = make_tmpdir();
    char *r0 = fmt("%s/node-a.rank0.json", d), *r1 = fmt("%s/node-b.rank1.json", d);
    write_rank(r0, 0, 1000, 5000); /* 12.2 ms of GPU time: enough to judge (docs/definitions.md) */
    write_rank(r1, 1, 5000, 1000);
    char *c = fmt("'%s' analyze '%s' '%s' 2>/dev/null", bin(), r0, r1), *out;
    run(c, &out);
    cr_expect(strncmp(out, "Verdict: straggler-bound", 24) == 0, "%s", out);
    const char *act = strstr(out, "\nActions\n");
    cr_assert_not_null(act, "%s", out);
    cr_expect_not_null(strstr(act, "rank 1 (trace node-b.rank1.json"), "%s", act);
    cr_expect_not_null(strstr(act, "5.100 ms per step against a median of 3.100 ms"), "%s", act);
    tu_expect_width(out, 100);
    free(out);
    free(c);
    free(r0);
    free(r1);
    rm_rf(d);
    free(d);
}

/* A failed write (disk full: /dev/full) to stdout, --json or --html is exit 4 with a message naming
 * the output, for every command; never exit 0 with the output lost. */
Test(unix_tool, failed_writes_exit_4_for_every_command) {
    static const char *const cases[] = {
        "analyze samples/ >/dev/full",
        "analyze --json - samples/ >/dev/full",
        "analyze -q --json /dev/full samples/",
        "analyze -q --html /dev/full samples/",
        "analyze -q --json /nonexistent-dir/out.json samples/",
        "compare samples/ samples/hta-pair/ >/dev/full",
        "compare -q --json /dev/full samples/ samples/hta-pair/",
        "compare -q --html /dev/full samples/ samples/hta-pair/",
        "cost --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2 >/dev/full",
        "cost --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2 --json - >/dev/full",
        "gpus >/dev/full",
        "gpus --json >/dev/full",
        "--help >/dev/full",
        "analyze --help >/dev/full",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = NULL;
        int rc = tu_sh(&out, "%s %s", tu_bin(), cases[i]);
        cr_expect_eq(rc, 4, "tracecost %s: exit %d, want 4\n%s", cases[i], rc, out);
        cr_expect(strstr(out, "write failed") || strstr(out, "cannot write"), "tracecost %s: %s", cases[i], out);
        free(out);
    }
}

/* ---- the layer checker (scripts/check-layers.sh) rejects what it exists to reject ---- */

static void put_file(const char *root, const char *name, const char *text) {
    char *p = fmt("%s/%s", root, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    cr_assert(fputs(text, f) >= 0);
    cr_assert_eq(fclose(f), 0);
    free(p);
}

/* A scratch tree with every layer folder holding one clean file. */
static char *layer_tree(void) {
    char *d = make_tmpdir();
    static const char *const dirs[] = {"base", "model", "parsers", "analyzer", "reports", "cli", "cli/mpi", "cupti"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char *c = fmt("mkdir -p '%s/%s'", d, dirs[i]);
        cr_assert_eq(run(c, NULL), 0);
        free(c);
        char *name = fmt("%s/ok.h", dirs[i]);
        put_file(d, name, "/* ok.h: nothing */\n");
        free(name);
    }
    return d;
}

static int check_layers(const char *root, char **out) {
    char *c = fmt("sh scripts/check-layers.sh '%s' 2>&1", root);
    int rc = run(c, out);
    free(c);
    return rc;
}

Test(unix_tool, check_layers_rejects_an_include_circle_inside_a_folder) {
    char *d = layer_tree(), *out;
    cr_assert_eq(check_layers(d, &out), 0, "clean tree rejected:\n%s", out);
    free(out);
    /* a.c includes b.h, b.c includes a.h: a circle of two units, neither header including the other */
    put_file(d, "parsers/a.h", "/* a */\n");
    put_file(d, "parsers/a.c", "#include \"a.h\"\n#include \"b.h\"\n");
    put_file(d, "parsers/b.h", "/* b */\n#include \"model/ok.h\"\n");
    put_file(d, "parsers/b.c", "#include \"b.h\"\n#include \"a.h\"\n");
    cr_expect_eq(check_layers(d, &out), 1);
    cr_expect(strstr(out, "parsers/: include circle: ") && strstr(out, "a") && strstr(out, "b"), "%s", out);
    free(out);
    /* broken the usual way (what both need in a header of its own): accepted again */
    put_file(d, "parsers/b.c", "#include \"b.h\"\n");
    cr_expect_eq(check_layers(d, &out), 0, "%s", out);
    free(out);
    /* a three-unit circle through headers only */
    put_file(d, "reports/x.h", "#include \"y.h\"\n");
    put_file(d, "reports/y.h", "#include \"z.h\"\n");
    put_file(d, "reports/z.c", "#include \"x.h\"\n");
    cr_expect_eq(check_layers(d, &out), 1);
    cr_expect(strstr(out, "reports/: include circle: "), "%s", out);
    free(out);
    rm_rf(d);
    free(d);
}

Test(unix_tool, check_layers_rejects_a_later_layer_and_io_in_the_analyzer) {
    char *d = layer_tree(), *out;
    put_file(d, "model/m.c", "#include \"analyzer/ok.h\"\n");
    cr_expect_eq(check_layers(d, &out), 1);
    cr_expect(strstr(out, "model/m.c:1:") && strstr(out, "later layer analyzer/"), "%s", out);
    free(out);
    put_file(d, "model/m.c", "#include \"base/ok.h\"\n");
    put_file(d, "analyzer/p.c", "static void f(void) { printf(\"x\"); }\n");
    cr_expect_eq(check_layers(d, &out), 1);
    cr_expect(strstr(out, "analyzer/p.c:1: analyzer/ and model/ do no I/O"), "%s", out);
    free(out);
    rm_rf(d);
    free(d);
}
