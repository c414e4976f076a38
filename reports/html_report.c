/* html_report.c: the self-contained HTML verdict report (see html_report.h and docs/html-report.md).
 * Sections are written top to bottom by one function each; charts are inline SVG built here.
 * Safety: every string that comes from a trace (kernel, stream, path, warning, collective and
 * group names, device names) goes through tc_html_escape; no trace string is ever written inside
 * a <script>; the one script is generic (tooltips from data-tip attributes, table sorting) and a
 * Content-Security-Policy allows only it (by nonce) and nothing from the network. */
#include "html_report.h"
#include "cost_report.h"
#include "findings_text.h"
#include "textfmt.h"
#include "host_wait_report.h"
#include "base/utf8.h"
#include "base/version.h"
#include "base/util.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ limits */
/* the timeline chart: width, left label column, right margin, lane height and gap, gap between
 * ranks, top margin (px) */
enum { TL_W = TC_HTML_CHART_W, TL_L = 170, TL_R = 30, TL_LH = 14, TL_LG = 3, TL_RG = 10, TL_TOP = 22 };
#define TL_PW ((double)(TL_W - TL_L - TL_R)) /* plot width, px */
#define TL_MAX_LANES_PER_RANK 8   /* streams per rank drawn (the busiest) */
#define TL_MAX_RECTS 4000         /* rectangles over all lanes; above it, merge wider */
#define TL_NAME_BYTES 160         /* kernel-name bytes in a timeline tooltip */

/* Okabe-Ito colours (colour-blind safe); every use also carries a text label. */
enum { CAT_COMPUTE, CAT_TRANSFER, CAT_WAIT, CAT_COMM, CAT_MEMORY, CAT_IDLE, CAT_N };
static const char *const cat_class[CAT_N] = {"c-compute", "c-transfer", "c-wait", "c-comm", "c-memory", "c-idle"};
static const char *const cat_label[CAT_N] = {"compute", "exposed transfer", "exposed wait",
                                             "exposed comm (not split)", "exposed memory", "idle"};
static const char *const tl_label[CAT_N] = {"compute kernel", "collective: transfer part", "collective: wait part",
                                            "collective (wait/transfer not split)", "memcpy/memset", "idle"};

typedef struct {
    FILE *out;
    const tc_job *j;
    bool oom;
} hr;

/* ------------------------------------------------------------------ output helpers */
static void put(hr *h, const char *s) { fputs(s, h->out); }

static void pf(hr *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void pf(hr *h, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(h->out, fmt, ap);
    va_end(ap);
}

/* Vertical grid lines at 0, 25, ..., 100 % of a bar chart's plot width (left edge L, width PW),
 * labelled under the bars; the chart is H high and its bars start at `top`. */
static void percent_grid(hr *h, int L, double PW, int top, int H) {
    for (int p = 0; p <= 100; p += 25) {
        double x = L + PW * p / 100.0;
        pf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d%%</text>\n",
           x, top, x, H - 22, x, H - 8, p);
    }
}

void tc_html_escape(FILE *out, const char *str, size_t len, size_t max_bytes) {
    const unsigned char *s = (const unsigned char *)str;
    size_t written = 0;
    if (!s) return;
    for (size_t i = 0; i < len;) {
        size_t n = tc_utf8_seq(s + i, len - i, NULL);
        size_t cost = n ? n : 1;
        if (max_bytes && written + cost > max_bytes) { fputs("\xE2\x80\xA6", out); return; }
        written += cost;
        if (n == 0) { fputs("\xEF\xBF\xBD", out); i++; continue; }
        if (n == 2 && s[i] == 0xC2 && s[i + 1] < 0xA0) { fputs("\xEF\xBF\xBD", out); i += 2; continue; } /* C1 control */
        if (n > 1) { fwrite(s + i, 1, n, out); i += n; continue; }
        unsigned char c = s[i++];
        switch (c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        case '\t': case '\n': fputc(c, out); break;
        default:
            if (c < 0x20 || c == 0x7F) fputs("\xEF\xBF\xBD", out);
            else fputc(c, out);
        }
    }
}

/* Escaped text of a NUL-terminated string (NULL writes nothing). */
static void esc(hr *h, const char *s) { if (s) tc_html_escape(h->out, s, strlen(s), 0); }
static void esc_max(hr *h, const char *s, size_t max) { if (s) tc_html_escape(h->out, s, strlen(s), max); }

/* ns as exact milliseconds: "12.345678" (6 decimals = every nanosecond). */
static const char *ms_exact(char *buf, size_t n, int64_t ns) {
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, n, "%s%" PRIu64 ".%06" PRIu64, ns < 0 ? "-" : "", a / 1000000u, a % 1000000u);
    return buf;
}

/* ns as exact microseconds: "12.345" (3 decimals). */
static const char *us_exact(char *buf, size_t n, int64_t ns) {
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000u, a % 1000u);
    return buf;
}

/* ns as milliseconds rounded for reading: 3 significant decimals below 10 ms, 2 below 100, else 1
 * ("94.555", "378.2"); the exact value goes in a tooltip (ms_exact). */
static const char *ms_round(char *buf, size_t n, int64_t ns) {
    double v = (double)ns / 1e6, a = v < 0 ? -v : v;
    snprintf(buf, n, "%.*f", a >= 100 ? 1 : a >= 10 ? 2 : 3, v);
    return buf;
}

/* A table cell of ns: rounded ms, the exact ms in its tooltip, the ns to sort by. */
static void ms_cell(hr *h, int64_t ns) {
    char a[40], b[40];
    pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms\">%s</td>", (long long)ns, ms_exact(a, sizeof a, ns),
       ms_round(b, sizeof b, ns));
}

/* A table cell of ns as µs rounded to 0.1, the exact µs in its tooltip. */
static void us_cell(hr *h, int64_t ns) {
    char a[40];
    pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s &micro;s\">%.1f</td>", (long long)ns, us_exact(a, sizeof a, ns),
       (double)ns / 1e3);
}

static double share(int64_t a, int64_t b) { return b > 0 ? (double)a / (double)b : 0; }

/* Dollars with thousands separators: "$1,234,567" (cents below $100). */
static const char *money(char *buf, size_t n, double v) {
    char digits[64];
    bool neg = v < 0;
    double a = neg ? -v : v;
    if (!(a < 1e15)) { snprintf(buf, n, "n/a"); return buf; }
    if (a < 100) { snprintf(buf, n, "%s$%.2f", neg ? "-" : "", a); return buf; }
    snprintf(digits, sizeof digits, "%.0f", a);
    size_t len = strlen(digits), o = 0;
    char tmp[96];
    if (neg) tmp[o++] = '-';
    tmp[o++] = '$';
    for (size_t i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) tmp[o++] = ',';
        tmp[o++] = digits[i];
    }
    tmp[o] = '\0';
    snprintf(buf, n, "%s", tmp);
    return buf;
}

/* Short money for axis labels: "$1.2M", "$350k". */
static const char *money_short(char *buf, size_t n, double v) {
    if (v >= 1e9) snprintf(buf, n, "$%.3gB", v / 1e9);
    else if (v >= 1e6) snprintf(buf, n, "$%.3gM", v / 1e6);
    else if (v >= 1e3) snprintf(buf, n, "$%.3gk", v / 1e3);
    else snprintf(buf, n, "$%.0f", v);
    return buf;
}

/* A "nice" axis step (1, 2 or 5 x 10^k) giving about `ticks` divisions of range. */
static double nice_step(double range, int ticks) {
    if (!(range > 0)) return 1;
    double raw = range / ticks, p = 1;
    while (p * 10 <= raw) p *= 10;
    while (p > raw) p /= 10;
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* ------------------------------------------------------------------ page frame */
static const char css[] =
    ":root{--fg:#1b1b1b;--muted:#555;--line:#d0d0d0;--bg:#fff;--panel:#f6f6f6}"
    "*{box-sizing:border-box}"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:var(--fg);"
    "background:var(--bg);margin:0 auto;max-width:1100px;padding:16px 24px 48px}"
    "p,li,dd,dt,h1,h2,h3,header,.card{overflow-wrap:anywhere}"
    /* a chart keeps its size (and its text's): its section scrolls sideways on a narrower screen */
    "section{overflow-x:auto}"
    "h1{font-size:30px;margin:0 0 6px}h2{font-size:20px;margin:28px 0 8px;border-bottom:2px solid var(--line);padding-bottom:4px}"
    "h3{font-size:15px;margin:16px 0 6px}"
    ".muted,.note{color:var(--muted)}.note{font-size:13px}"
    "header.top{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:2px 16px;"
    "color:var(--muted);font-size:13px}header.top b{color:var(--fg);font-size:15px}"
    ".verdict{border-left:10px solid #555;background:var(--panel);padding:14px 18px;margin:8px 0 16px}"
    ".verdict .kicker{text-transform:uppercase;letter-spacing:.08em;font-size:12px;margin:0;color:var(--muted)}"
    ".verdict .why{font-size:17px;margin:4px 0 8px}.verdict ul{margin:4px 0 0 18px;padding:0}"
    ".v-compute{border-color:#009E73}.v-network{border-color:#D55E00}.v-straggler{border-color:#E69F00}"
    ".v-host{border-color:#56B4E9}.v-none{border-color:#999}"
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(190px,1fr));gap:10px}"
    ".card{border:1px solid var(--line);border-radius:6px;padding:10px 12px;background:#fff}"
    ".card .k{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}"
    ".card .v{font-size:24px;font-weight:600;margin:2px 0}.card .d{font-size:12px;color:var(--muted)}"
    "table{border-collapse:collapse;width:100%;font-size:12.5px;margin:6px 0}"
    "th,td{border-bottom:1px solid var(--line);padding:3px 5px;text-align:left;vertical-align:top}th{vertical-align:bottom}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}td.n{white-space:nowrap}"
    "th{background:var(--panel);position:sticky;top:0}"
    "table.sortable th{cursor:pointer}table.sortable th::after{content:' \\2195';color:#999;font-size:11px}"
    "td.dev{white-space:nowrap;font-size:12px}td.name{word-break:break-all;font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12px}"
    ".scroll{max-height:520px;overflow:auto;border:1px solid var(--line)}"
    ".legend{list-style:none;padding:0;margin:6px 0;display:flex;flex-wrap:wrap;gap:6px 16px;font-size:13px}"
    ".legend li{display:flex;align-items:center;gap:6px}"
    ".sw{display:inline-block;width:14px;height:14px;border:1px solid #333;vertical-align:middle}"
    ".c-compute{fill:#0072B2;background:#0072B2}.c-transfer{fill:#D55E00;background:#D55E00}"
    ".c-wait{fill:#E69F00;background:#E69F00}.c-comm{fill:#CC79A7;background:#CC79A7}"
    ".c-memory{fill:#009E73;background:#009E73}.c-idle{fill:#DDDDDD;background:#DDDDDD}"
    ".c-lane{fill:#fafafa;stroke:#cfcfcf;stroke-width:.5}"
    /* idle causes (host_wait_report.c): gpu_side, sync, data_loading, memory_management, module_load,
     * launch_overhead, cpu_other, unattributed */
    ".c-i0{fill:#BBBBBB;background:#BBBBBB}.c-i1{fill:#F0E442;background:#F0E442}.c-i2{fill:#56B4E9;background:#56B4E9}"
    ".c-i3{fill:#882255;background:#882255}.c-i4{fill:#AA4499;background:#AA4499}.c-i5{fill:#44AA99;background:#44AA99}"
    ".c-i6{fill:#999933;background:#999933}.c-i7{fill:#EEEEEE;background:#EEEEEE}"
    ".c-own{stroke:#0072B2;background:#0072B2}.c-rent{stroke:#D55E00;background:#D55E00}"
    "svg{display:block;height:auto;font-size:11px}svg.chart{max-width:none}svg text{fill:#222}"
    "svg .ax{stroke:#888;stroke-width:1}svg .grid{stroke:#e4e4e4;stroke-width:1}"
    ".bar{height:10px;background:#0072B2;display:inline-block;vertical-align:middle}"
    ".barbox{display:inline-block;width:120px;background:#eee;margin-right:6px;vertical-align:middle}"
    "dl.defs dt{font-weight:600;margin-top:6px}dl.defs dd{margin:0 0 0 18px}"
    ".warn{color:#8a4b00}.tag{font-size:11px;border:1px solid #999;border-radius:3px;padding:0 4px;margin-left:4px}"
    "#tip{position:absolute;display:none;max-width:520px;background:#222;color:#fff;padding:6px 8px;"
    "border-radius:4px;font-size:12px;pointer-events:none;white-space:pre-wrap;word-break:break-all;z-index:10}"
    "footer{margin-top:32px;color:var(--muted);font-size:12px}"
    "@media print{body{max-width:none;padding:0;font-size:11px}table{font-size:9px}#tip{display:none!important}"
    ".scroll{max-height:none;overflow:visible;border:0}th{position:static}"
    "section{break-inside:avoid-page}h2{break-after:avoid}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
    "table.sortable th::after{content:''}}";

/* Generic: tooltips from data-tip (textContent, never HTML) and numeric/text column sorting. */
static const char js[] =
    "(function(){var tip=document.getElementById('tip');"
    "function tgt(e){var t=e.target;while(t&&t.getAttribute){if(t.hasAttribute('data-tip'))return t;t=t.parentNode;}return null;}"
    "document.addEventListener('mouseover',function(e){var t=tgt(e);if(!t){tip.style.display='none';return;}"
    "tip.textContent=t.getAttribute('data-tip');tip.style.display='block';});"
    "document.addEventListener('mousemove',function(e){if(tip.style.display!=='block')return;"
    "var x=e.pageX+14,w=tip.offsetWidth;if(x+w>document.documentElement.scrollWidth)x=e.pageX-w-14;"
    "tip.style.left=Math.max(0,x)+'px';tip.style.top=(e.pageY+14)+'px';});"
    "var ts=document.querySelectorAll('table.sortable');"
    "for(var i=0;i<ts.length;i++)(function(tb){var hs=tb.tHead?tb.tHead.rows[0].cells:[];"
    "for(var c=0;c<hs.length;c++)(function(c,th){th.addEventListener('click',function(){"
    "var body=tb.tBodies[0],rows=Array.prototype.slice.call(body.rows),asc=th.getAttribute('data-dir')!=='asc';"
    "th.setAttribute('data-dir',asc?'asc':'desc');"
    "function key(r){var d=r.cells[c];if(!d)return '';var v=d.getAttribute('data-v');return v!==null?parseFloat(v):d.textContent;}"
    "rows.sort(function(a,b){var x=key(a),y=key(b),r;if(typeof x==='number'&&typeof y==='number')r=(isNaN(x)?-1e300:x)-(isNaN(y)?-1e300:y);"
    "else r=String(x).localeCompare(String(y));return asc?r:-r;});"
    "for(var k=0;k<rows.length;k++)body.appendChild(rows[k]);});})(c,hs[c]);})(ts[i]);"
    "document.documentElement.setAttribute('data-js','ready');})();";

/* Per-report nonce for the CSP: the page's own script runs, nothing injected could. */
static void make_nonce(const hr *h, char *buf, size_t n) {
    uint64_t x = 0xcbf29ce484222325ULL;
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    uint64_t seeds[5] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)(uintptr_t)h,
                         (uint64_t)(uintptr_t)&ts, (uint64_t)clock()};
    for (size_t i = 0; i < 5; i++)
        for (int b = 0; b < 8; b++) { x ^= (seeds[i] >> (8 * b)) & 0xFF; x *= 0x100000001b3ULL; }
    x ^= x >> 31; x *= 0x9E3779B97F4A7C15ULL; x ^= x >> 29;
    snprintf(buf, n, "%016" PRIx64, x);
}

/* ------------------------------------------------------------------ verdict and key numbers */
static const char *verdict_class(tc_verdict v) {
    switch (v) {
    case TC_VERDICT_COMPUTE: return "v-compute";
    case TC_VERDICT_NETWORK: return "v-network";
    case TC_VERDICT_STRAGGLER: return "v-straggler";
    case TC_VERDICT_HOST: return "v-host";
    default: return "v-none";
    }
}

static const char *verdict_title(tc_verdict v) {
    switch (v) {
    case TC_VERDICT_COMPUTE: return "Compute-bound";
    case TC_VERDICT_NETWORK: return "Network-bound";
    case TC_VERDICT_STRAGGLER: return "Straggler-bound";
    case TC_VERDICT_HOST: return "Host-bound";
    default: return "No verdict";
    }
}

static size_t max_steps(const tc_job *j) {
    size_t s = 0;
    for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].n_steps > s) s = j->ranks[r].n_steps;
    return s;
}

static void section_verdict(hr *h) {
    const tc_summary *sm = &h->j->summary;
    const tc_findings *f = &h->j->findings;
    char a[40], reason[TC_FINDING_TEXT];
    pf(h, "<section id=\"verdict\" class=\"verdict %s\" data-verdict=\"%s\">\n", verdict_class(sm->verdict),
       tc_verdict_name(sm->verdict));
    put(h, "<p class=\"kicker\">Verdict</p>\n<h1 id=\"verdict-title\">");
    put(h, verdict_title(sm->verdict));
    if (sm->partial) {
        char basis[TC_FINDING_TEXT];
        put(h, " <span id=\"verdict-basis\" class=\"warn\">(on partial data: ");
        esc(h, tc_basis_summary_text(basis, sizeof basis, sm));
        put(h, ")</span>");
    }
    put(h, "</h1>\n<p class=\"why\">");
    if (f->n_reasons) { esc(h, tc_reason_text(reason, sizeof reason, &f->reasons[0], h->j)); put(h, "."); }
    else if (sm->ranks == 0) put(h, "No rank had GPU activity to analyze.");
    put(h, "</p>\n");
    if (sm->ranks) {
        char r[40];
        pf(h, "<p class=\"figures\">Of <span data-tip=\"%s ms\">%s ms</span> summed GPU time over %zu rank%s: compute %.1f%%",
           ms_exact(a, sizeof a, sm->b.window_ns), ms_round(r, sizeof r, sm->b.window_ns), sm->ranks, sm->ranks == 1 ? "" : "s",
           100 * sm->share_compute);
        if (sm->split_known)
            pf(h, " &middot; exposed transfer %.1f%% &middot; exposed wait %.1f%%", 100 * sm->share_exposed_transfer,
               100 * sm->share_exposed_wait);
        else pf(h, " &middot; exposed comm %.1f%% (not split: one rank)", 100 * sm->share_exposed_comm);
        pf(h, " &middot; exposed memory %.1f%% &middot; idle %.1f%%.</p>\n", 100 * sm->share_memory_exposed,
           100 * sm->share_idle);
    }
    if (f->n_reasons > 1) {
        put(h, "<ul>\n");
        for (size_t i = 1; i < f->n_reasons; i++) {
            put(h, "<li>");
            esc(h, tc_reason_text(reason, sizeof reason, &f->reasons[i], h->j));
            put(h, "</li>\n");
        }
        put(h, "</ul>\n");
    }
    if (sm->n_basis_reasons) {
        put(h, "<ul id=\"basis\" class=\"warn\">\n");
        for (size_t i = 0; i < sm->n_basis_reasons; i++) {
            put(h, "<li>partial data: ");
            esc(h, tc_basis_reason_text(reason, sizeof reason, &sm->basis_reasons[i]));
            put(h, "</li>\n");
        }
        put(h, "</ul>\n");
    }
    put(h, "</section>\n");
}

static void card(hr *h, const char *id, const char *k, const char *v, const char *d, const char *tip) {
    pf(h, "<div class=\"card\" id=\"%s\"", id);
    if (tip) { put(h, " data-tip=\""); esc(h, tip); put(h, "\""); }
    pf(h, "><div class=\"k\">%s</div><div class=\"v\">", k);
    esc(h, v);
    put(h, "</div><div class=\"d\">");
    esc(h, d);
    put(h, "</div></div>\n");
}

static void section_key_numbers(hr *h) {
    const tc_summary *sm = &h->j->summary;
    const tc_cost_result *c = h->j->cost.computed ? &h->j->cost.result : NULL;
    char v[96], d[256], t[256], a[40];
    put(h, "<section id=\"key-numbers\">\n<h2>Key numbers</h2>\n<div class=\"cards\">\n");
    if (sm->has_step_time) {
        snprintf(v, sizeof v, "%.3f ms", (double)sm->step_time_ns / 1e6);
        snprintf(d, sizeof d, "mean ProfilerStep duration, averaged over ranks");
        snprintf(t, sizeof t, "step time %s ms", ms_exact(a, sizeof a, sm->step_time_ns));
        card(h, "kn-step", "Step time", v, d, t);
    } else card(h, "kn-step", "Step time", "n/a", "no ProfilerStep spans in the traces", NULL);
    if (sm->has_mfu) {
        snprintf(v, sizeof v, "%.1f%%", 100 * sm->mfu);
        snprintf(t, sizeof t, "MFU %.4f%%", 100 * sm->mfu);
        card(h, "kn-mfu", "MFU", v, "model FLOPs per second / the GPU's dense peak", t);
    } else
        card(h, "kn-mfu", "MFU", "n/a",
             "needs FLOP counts (traces recorded with record_shapes) and a known GPU peak", NULL);
    if (sm->has_ratio) {
        snprintf(v, sizeof v, "%.3f", sm->comm_compute_ratio);
        snprintf(t, sizeof t, "comm/compute %.6f", sm->comm_compute_ratio);
        card(h, "kn-ratio", "Comm / compute", v, "time in collectives / time in compute kernels (unions)", t);
    } else card(h, "kn-ratio", "Comm / compute", "n/a", "no compute kernels", NULL);
    bool lower = c && c->efficiency_bound == TC_COST_LOWER; /* partial data: e is a lower bound */
    if (c) {
        snprintf(v, sizeof v, "%s%.2f of %.0f", lower ? "at least " : "", c->effective_gpus, c->used.gpus.value);
        snprintf(d, sizeof d, "GPUs' worth of work done: N x network efficiency (%.1f%%)",
                 100 * c->used.network_efficiency.value);
        snprintf(t, sizeof t, "effective GPUs %.6f", c->effective_gpus);
        card(h, "kn-effective", "Effective GPUs", v, d, t);
    } else if (sm->ranks) {
        const tc_findings *f = &h->j->findings; /* network efficiency e and ranks x e */
        snprintf(v, sizeof v, "%s%.2f of %zu", sm->transfer_upper_bound ? "at least " : "", f->effective_gpus, sm->ranks);
        snprintf(d, sizeof d, "ranks x (1 - exposed %s share %.1f%%)", sm->split_known ? "transfer" : "comm",
                 100 * (1 - f->network_efficiency));
        snprintf(t, sizeof t, "effective GPUs %.6f", f->effective_gpus);
        card(h, "kn-effective", "Effective GPUs", v, d, t);
    } else card(h, "kn-effective", "Effective GPUs", "n/a", "no ranks", NULL);
    if (c) {
        double total = c->network_loss_per_month + (c->has_straggler_loss ? c->straggler_loss_per_month : 0) +
                       (c->has_idle_loss ? c->idle_loss_per_month : 0);
        char m1[48], m2[48], m3[48], m4[48];
        money(m4, sizeof m4, c->network_loss_per_month);
        snprintf(v, sizeof v, "%s%s", lower ? "at most " : "", m4);
        snprintf(d, sizeof d, "network, per month; plus stragglers %s%s and idle %s",
                 c->straggler_loss_bound == TC_COST_LOWER ? "at least " : "",
                 c->has_straggler_loss ? money(m1, sizeof m1, c->straggler_loss_per_month) : "n/a",
                 c->has_idle_loss ? money(m2, sizeof m2, c->idle_loss_per_month) : "n/a");
        snprintf(t, sizeof t, "network %s + stragglers %s + idle %s = %s per month", money(m3, sizeof m3, c->network_loss_per_month),
                 c->has_straggler_loss ? m1 : "n/a", c->has_idle_loss ? m2 : "n/a", money(m4, sizeof m4, total));
        card(h, "kn-money", "Money lost / month", v, d, t);
    } else {
        char note[TC_COST_NOTE_TEXT];
        const char *why = h->j->cost.missing != TC_COST_UNPRICED ? tc_cost_missing_text(note, sizeof note, &h->j->cost)
                                                                 : "no cost inputs: pass --price-per-gpu-hour (and --gpus) to price the losses";
        card(h, "kn-money", "Money lost / month", "n/a", why, NULL);
    }
    put(h, "</div>\n</section>\n");
}

/* ------------------------------------------------------------------ per-rank stacked bars */
typedef struct { int64_t ns[CAT_N]; } rank_split;

/* A rank's window split into the categories; the parts add up to window_ns. */
static rank_split split_of(const tc_breakdown *b) {
    rank_split s;
    memset(&s, 0, sizeof s);
    s.ns[CAT_COMPUTE] = b->compute_ns;
    if (b->split_known) {
        s.ns[CAT_TRANSFER] = b->exposed_transfer_ns;
        s.ns[CAT_WAIT] = b->exposed_wait_ns;
        int64_t rest = b->exposed_comm_ns - b->exposed_transfer_ns - b->exposed_wait_ns;
        s.ns[CAT_COMM] = rest > 0 ? rest : 0;
    } else s.ns[CAT_COMM] = b->exposed_comm_ns;
    s.ns[CAT_MEMORY] = b->memory_exposed_ns;
    s.ns[CAT_IDLE] = b->idle_ns;
    return s;
}

static void legend(hr *h, const int *cats, size_t n, const char *const *labels, const char *extra) {
    put(h, "<ul class=\"legend\">");
    for (size_t i = 0; i < n; i++)
        pf(h, "<li><span class=\"sw %s\"></span>%s</li>", cat_class[cats[i]], labels[cats[i]]);
    if (extra) put(h, extra);
    put(h, "</ul>\n");
}

/* One stacked bar per rank split into the categories, with its note and legend above it. */
static void rank_bars(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    size_t n = j->n_ranks;
    char a[40], b[40], tip[512];
    bool any_rest = false;
    for (size_t r = 0; r < n; r++) {
        rank_split s = split_of(&j->ranks[r].b);
        if (j->ranks[r].b.split_known && s.ns[CAT_COMM] > 0) any_rest = true;
    }
    int cats[CAT_N];
    size_t nc = 0;
    cats[nc++] = CAT_COMPUTE;
    if (sm->split_known) { cats[nc++] = CAT_TRANSFER; cats[nc++] = CAT_WAIT; if (any_rest) cats[nc++] = CAT_COMM; }
    else cats[nc++] = CAT_COMM;
    cats[nc++] = CAT_MEMORY;
    cats[nc++] = CAT_IDLE;
    put(h, "<p class=\"note\">One bar per rank: its GPU window (first to last GPU event) split into compute, "
           "exposed collective time (transfer vs waiting for slower peers), exposed memory copies and idle. "
           "Hover a segment for exact values; the table below has every number.</p>\n");
    legend(h, cats, nc, cat_label, NULL);

    int bh = n <= 16 ? 20 : n <= 64 ? 11 : n <= 256 ? 5 : 2;
    int gap = bh >= 10 ? 4 : 1;
    int label_every = bh >= 10 ? 1 : bh >= 5 ? 8 : 32;
    const int W = TC_HTML_CHART_W, L = 80, R = 90, top = 6;
    double PW = W - L - R;
    int H = top + (int)n * (bh + gap) + 26;
    pf(h, "<svg id=\"rank-bars\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
          "aria-label=\"stacked bar per rank: compute, exposed transfer, exposed wait, memory, idle\">\n", W, H, W, H);
    percent_grid(h, L, PW, top, H);
    for (size_t r = 0; r < n; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        rank_split s = split_of(&rr->b);
        int y = top + (int)r * (bh + gap);
        double x = L;
        for (size_t k = 0; k < nc; k++) {
            int cat = cats[k];
            double sh = share(s.ns[cat], rr->b.window_ns);
            double w = sh * PW;
            if (s.ns[cat] <= 0) continue;
            snprintf(tip, sizeof tip, "rank %lld - %s: %s ms = %.2f%% of its window %s ms", (long long)rr->rank,
                     cat_label[cat], ms_exact(a, sizeof a, s.ns[cat]), 100 * sh, ms_exact(b, sizeof b, rr->b.window_ns));
            pf(h, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\" data-tip=\"%s\"/>", x, y, w, bh,
               cat_class[cat], tip);
            x += w;
        }
        if (r % (size_t)label_every == 0 || (sm->has_straggler && rr->rank == sm->straggler.rank))
            pf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %lld</text>", L - 6, y + bh - (bh >= 10 ? 5 : 0),
               (long long)rr->rank);
        if (sm->has_straggler && rr->rank == sm->straggler.rank)
            pf(h, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">&#9664; straggler</text>", W - R + 6, y + bh - (bh >= 10 ? 5 : 0));
        put(h, "\n");
    }
    pf(h, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", L, H - 22, W - R, H - 22);
    put(h, "</svg>\n");
}

/* Whether every rank names the same device (the table then leaves its column out). */
static bool one_device(const tc_job *j) {
    for (size_t r = 1; r < j->n_ranks; r++) {
        const char *x = j->ranks[0].device, *y = j->ranks[r].device;
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y))) return false;
    }
    return true;
}

/* The per-rank table: numbers rounded for reading, each exact in its tooltip. */
static void rank_table(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    size_t n = j->n_ranks;
    bool dev = !one_device(j);
    char a[40], b[40], c[40];
    put(h, "<h3>Per rank</h3>\n<p class=\"note\">Shares of the rank's own GPU window");
    if (!dev && j->ranks[0].device) { put(h, "; every rank on "); esc(h, j->ranks[0].device); }
    put(h, ". Hover a number for its exact value; click a column to sort.</p>\n"
           "<div class=\"scroll\"><table id=\"rank-table\" class=\"sortable\">\n<thead><tr><th class=\"n\">rank</th>");
    if (dev) put(h, "<th>device</th>");
    put(h, "<th class=\"n\">window<br>ms</th><th class=\"n\">compute<br>%</th>"
           "<th class=\"n\">exp. transfer<br>%</th><th class=\"n\">exp. wait<br>%</th><th class=\"n\">exp. comm<br>%</th>"
           "<th class=\"n\">exp. memory<br>%</th><th class=\"n\">idle<br>%</th><th class=\"n\">comm/<br>compute</th>"
           "<th class=\"n\">step<br>ms, mean</th><th class=\"n\">clock offset<br>&micro;s</th><th class=\"n\">last arrival<br>%</th>"
           "<th class=\"n\">others wait<br>ms/step</th></tr></thead>\n<tbody>\n");
    for (size_t r = 0; r < n; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        const tc_breakdown *bd = &rr->b;
        pf(h, "<tr><td class=\"n\" data-v=\"%lld\">%lld%s</td>", (long long)rr->rank, (long long)rr->rank,
           sm->has_straggler && rr->rank == sm->straggler.rank ? " <span class=\"tag\">straggler</span>" : "");
        if (dev) { put(h, "<td class=\"dev\">"); esc(h, rr->device ? rr->device : "?"); put(h, "</td>"); }
        ms_cell(h, bd->window_ns);
#define PCELL(ns, known)                                                                                            \
    do {                                                                                                            \
        if (known) pf(h, "<td class=\"n\" data-v=\"%.6f\" data-tip=\"%s ms = %.4f%%\">%.1f</td>", share(ns, bd->window_ns), \
                      ms_exact(b, sizeof b, ns), 100 * share(ns, bd->window_ns), 100 * share(ns, bd->window_ns));   \
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");                                                     \
    } while (0)
        PCELL(bd->compute_ns, true);
        PCELL(bd->exposed_transfer_ns, bd->split_known);
        PCELL(bd->exposed_wait_ns, bd->split_known);
        PCELL(bd->exposed_comm_ns, true);
        PCELL(bd->memory_exposed_ns, true);
        PCELL(bd->idle_ns, true);
#undef PCELL
        if (rr->has_ratio)
            pf(h, "<td class=\"n\" data-v=\"%.9g\" data-tip=\"%.6f\">%.2f</td>", rr->comm_compute_ratio, rr->comm_compute_ratio,
               rr->comm_compute_ratio);
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        if (rr->has_step_time) ms_cell(h, rr->step_time_ns); else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        if (rr->has_clock_offset) us_cell(h, rr->clock_offset_ns); else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        if (rr->matched_instances) {
            double sh = rr->last_arrival_share;
            pf(h, "<td class=\"n\" data-v=\"%.6f\" data-tip=\"%.2f of %llu matched collectives\">%.1f</td>", sh,
               rr->last_arrival_credit, (unsigned long long)rr->matched_instances, 100 * sh);
            int64_t cw = rr->caused_wait_per_rank_ns_per_step;
            pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms per step for each other rank; %s GPU-ms per step in "
                  "total over the other ranks\">%s</td>", (long long)cw, ms_exact(a, sizeof a, cw),
               ms_exact(b, sizeof b, rr->caused_wait_ns_per_step), ms_round(c, sizeof c, cw));
        } else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td><td class=\"n\" data-v=\"NaN\">n/a</td>");
        put(h, "</tr>\n");
    }
    put(h, "</tbody></table></div>\n");
}

static void section_ranks(hr *h) {
    put(h, "<section id=\"ranks\">\n<h2>Where each rank's GPU time went</h2>\n");
    if (!h->j->n_ranks) { put(h, "<p class=\"note\">No rank had GPU activity.</p>\n</section>\n"); return; }
    rank_bars(h);
    rank_table(h);
    put(h, "</section>\n");
}

/* ------------------------------------------------------------------ timeline */
typedef struct {
    double x0, x1;          /* px within the plot */
    int64_t t0, t1;         /* ns on the reference clock, relative to the axis start */
    int64_t ns[CAT_N];      /* busy ns per category merged into this rectangle */
    uint32_t count;         /* segments merged */
    uint32_t ev;            /* event index of the first segment (for its name) */
    uint8_t first_cat;      /* category of the first segment */
    int64_t ev_dur_ns;      /* that event's full duration (ns) */
} tl_rect;

typedef struct {
    size_t rank;            /* index into j->ranks */
    uint32_t stream;        /* strtab id of the stream */
    int64_t busy_ns;        /* summed segment ns in the window */
    tl_rect *r; size_t n, cap;
} tl_lane;

typedef struct {
    size_t rank;            /* index into j->ranks */
    bool has_window;
    int64_t first, last;    /* step GPU window, trace ns */
    int64_t shift;          /* trace ns -> reference-clock ns */
    size_t lanes_total;     /* streams seen */
} tl_rank;

typedef struct {
    tl_lane *lanes; size_t n, cap;
} tl_lanes;

static void lanes_free(tl_lanes *ls) {
    for (size_t i = 0; i < ls->n; i++) free(ls->lanes[i].r);
    free(ls->lanes);
    ls->lanes = NULL; ls->n = ls->cap = 0;
}

/* Adds one segment [t0,t1) of category cat (ns relative to the axis) to a lane, merging it with
 * the previous rectangle when the gap is under px_merge and either is narrower than px_merge. */
static int lane_add(tl_lane *ln, double px_per_ns, double px_merge, int64_t t0, int64_t t1, int cat, uint32_t ev,
                    int64_t ev_dur) {
    double x0 = (double)t0 * px_per_ns, x1 = (double)t1 * px_per_ns;
    if (ln->n) {
        tl_rect *p = &ln->r[ln->n - 1];
        if (x0 - p->x1 < px_merge && (p->x1 - p->x0 < px_merge || x1 - x0 < px_merge)) {
            if (x1 > p->x1) { p->x1 = x1; p->t1 = t1; }
            p->ns[cat] += t1 - t0;
            p->count++;
            ln->busy_ns += t1 - t0;
            return 0;
        }
    }
    tl_rect r;
    memset(&r, 0, sizeof r);
    r.x0 = x0; r.x1 = x1; r.t0 = t0; r.t1 = t1;
    r.ns[cat] = t1 - t0;
    r.count = 1; r.ev = ev; r.first_cat = (uint8_t)cat; r.ev_dur_ns = ev_dur;
    ln->busy_ns += t1 - t0;
    return TC_PUSH(ln->r, ln->n, ln->cap, r);
}

/* The lane of (rank, stream), made when new; lane_of[stream id] is its index in ls (UINT32_MAX:
 * none yet), a table per rank, so a trace with 100 000 streams costs one lookup per event. */
static tl_lane *lane_for(tl_lanes *ls, uint32_t *lane_of, size_t rank, uint32_t stream) {
    if (lane_of[stream] != UINT32_MAX) return &ls->lanes[lane_of[stream]];
    tl_lane ln;
    memset(&ln, 0, sizeof ln);
    ln.rank = rank; ln.stream = stream;
    if (TC_PUSH(ls->lanes, ls->n, ls->cap, ln)) return NULL;
    lane_of[stream] = (uint32_t)(ls->n - 1);
    return &ls->lanes[ls->n - 1];
}

/* One rank's lanes (build_lanes): its GPU events in the window, each added to its stream's lane. */
static int lanes_of_rank(const tl_rank *tk, const tc_trace *t, const tc_rank_result *rr, int64_t axis0,
                         double px_per_ns, double px_merge, tl_lanes *ls, uint32_t *lane_of) {
    for (size_t i = 0; i < t->n_gpu; i++) {
        const tc_gpu_event *e = &t->gpu[i];
        int64_t s = e->start_ns, end = e->start_ns + e->dur_ns;
        if (s >= tk->last) break; /* sorted by start */
        if (end <= tk->first) continue;
        tl_lane *ln = lane_for(ls, lane_of, tk->rank, e->stream);
        if (!ln) return -1;
        int64_t cs = s < tk->first ? tk->first : s, ce = end > tk->last ? tk->last : end;
        int64_t a0 = cs + tk->shift - axis0, a1 = ce + tk->shift - axis0;
        int rc = 0;
        if (e->is_comm) {
            if (rr->wait_ns) {
                int64_t w = rr->wait_ns[i];
                if (w < 0) w = 0;
                if (w > e->dur_ns) w = e->dur_ns;
                int64_t split = s + w + tk->shift - axis0;
                if (split < a0) split = a0;
                if (split > a1) split = a1;
                if (split > a0) rc |= lane_add(ln, px_per_ns, px_merge, a0, split, CAT_WAIT, (uint32_t)i, e->dur_ns);
                if (a1 > split) rc |= lane_add(ln, px_per_ns, px_merge, split, a1, CAT_TRANSFER, (uint32_t)i, e->dur_ns);
            } else rc = lane_add(ln, px_per_ns, px_merge, a0, a1, CAT_COMM, (uint32_t)i, e->dur_ns);
        } else if (e->kind == TC_GPU_MEMCPY || e->kind == TC_GPU_MEMSET)
            rc = lane_add(ln, px_per_ns, px_merge, a0, a1, CAT_MEMORY, (uint32_t)i, e->dur_ns);
        else rc = lane_add(ln, px_per_ns, px_merge, a0, a1, CAT_COMPUTE, (uint32_t)i, e->dur_ns);
        if (rc) return -1;
    }
    return 0;
}

/* Builds every lane of the chosen ranks with merge threshold px_merge. 0, or -1 out of memory. */
static int build_lanes(const tc_job *j, const tl_rank *tr, size_t ntr, int64_t axis0, double px_per_ns,
                       double px_merge, tl_lanes *ls) {
    for (size_t k = 0; k < ntr; k++) {
        if (!tr[k].has_window) continue;
        const tc_rank_result *rr = &j->ranks[tr[k].rank];
        const tc_trace *t = &j->traces[rr->input];
        size_t n_streams = tc_strtab_count(t->strings);
        uint32_t *lane_of = malloc((n_streams ? n_streams : 1) * sizeof *lane_of);
        if (!lane_of) return -1;
        for (size_t i = 0; i < n_streams; i++) lane_of[i] = UINT32_MAX;
        int rc = lanes_of_rank(&tr[k], t, rr, axis0, px_per_ns, px_merge, ls, lane_of);
        free(lane_of);
        if (rc) return -1;
    }
    return 0;
}

/* Numeric order of stream labels where they are numbers ("7" < "13"), text order otherwise. */
static int stream_cmp(const char *a, const char *b) {
    char *ea, *eb;
    long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);
    if (*a && *b && !*ea && !*eb) return x < y ? -1 : x > y;
    return strcmp(a, b);
}

static void tl_tip(hr *h, const tc_job *j, const tl_lane *ln, const tl_rect *r) {
    const tc_rank_result *rr = &j->ranks[ln->rank];
    const tc_trace *t = &j->traces[rr->input];
    char a[40], b[40], c[40];
    put(h, " data-tip=\"");
    if (r->count == 1) {
        const tc_gpu_event *e = &t->gpu[r->ev];
        esc_max(h, tc_trace_str(t, e->name), TL_NAME_BYTES);
        pf(h, "\n%s - rank %lld, stream ", tl_label[r->first_cat], (long long)rr->rank);
        esc_max(h, tc_trace_str(t, ln->stream), 40);
        pf(h, "\nstart +%s ms, this part %s ms", ms_exact(a, sizeof a, r->t0), ms_exact(b, sizeof b, r->t1 - r->t0));
        if (r->first_cat == CAT_WAIT || r->first_cat == CAT_TRANSFER || r->t1 - r->t0 != r->ev_dur_ns)
            pf(h, " of the event's %s ms", ms_exact(c, sizeof c, r->ev_dur_ns));
    } else {
        pf(h, "%u events narrower than a pixel, merged - rank %lld, stream ", r->count, (long long)rr->rank);
        esc_max(h, tc_trace_str(t, ln->stream), 40);
        pf(h, "\nfrom +%s to +%s ms; busy:", ms_exact(a, sizeof a, r->t0), ms_exact(b, sizeof b, r->t1));
        for (int k = 0; k < CAT_N; k++)
            if (r->ns[k]) pf(h, " %s %s ms;", tl_label[k], ms_exact(a, sizeof a, r->ns[k]));
    }
    put(h, "\"");
}

static int rect_cat(const tl_rect *r) {
    int best = r->first_cat;
    for (int k = 0; k < CAT_N; k++) if (r->ns[k] > r->ns[best]) best = k;
    return best;
}

/* Each drawn rank's window on the reference clock: its GPU events of the representative step
 * (tc_findings), or its whole GPU window when there is none; [*axis0, *axis1) spans them all.
 * False when there is nothing to draw. */
static bool timeline_windows(const tc_job *j, tl_rank *tr, size_t ntr, int64_t *axis0, int64_t *axis1) {
    const tc_findings *f = &j->findings;
    *axis0 = INT64_MAX;
    *axis1 = INT64_MIN;
    for (size_t k = 0; k < ntr; k++) {
        const tc_rank_result *rr = &j->ranks[f->timeline_ranks[k]];
        const tc_trace *t = &j->traces[rr->input];
        tr[k].rank = f->timeline_ranks[k];
        tr[k].shift = (t->has_base ? t->base_ns : 0) - (rr->has_clock_offset ? rr->clock_offset_ns : 0);
        const tc_breakdown *b = NULL;
        if (f->has_step) {
            for (size_t s = 0; s < rr->n_steps; s++)
                if (rr->steps[s].number == f->step_number && rr->steps[s].b.gpu_events) b = &rr->steps[s].b;
        } else if (rr->b.gpu_events) b = &rr->b;
        if (!b || b->last_ns <= b->first_ns) continue;
        tr[k].has_window = true;
        tr[k].first = b->first_ns;
        tr[k].last = b->last_ns;
        if (b->first_ns + tr[k].shift < *axis0) *axis0 = b->first_ns + tr[k].shift;
        if (b->last_ns + tr[k].shift > *axis1) *axis1 = b->last_ns + tr[k].shift;
    }
    return *axis0 < *axis1;
}

/* Busiest first; among lanes as busy, the one made first (so the lanes kept are those the old
 * one-at-a-time removal of the least busy, last made, kept). */
static int cmp_lane_busy(const void *a, const void *b) {
    const tl_lane *const *x = a, *const *y = b;
    if ((*x)->busy_ns != (*y)->busy_ns) return (*x)->busy_ns > (*y)->busy_ns ? -1 : 1;
    return (*x > *y) - (*x < *y);
}

/* Drops the least busy lanes of each rank beyond TL_MAX_LANES_PER_RANK (tr[k].lanes_total counts
 * them all), keeping the order of the others: a sort per rank, not a pass per lane dropped (a
 * trace may have 100 000 streams). 0, or -1 out of memory. */
static int keep_busiest_lanes(tl_lanes *ls, tl_rank *tr, size_t ntr) {
    tl_lane **by_busy = malloc((ls->n ? ls->n : 1) * sizeof *by_busy);
    bool *drop = calloc(ls->n ? ls->n : 1, sizeof *drop);
    if (!by_busy || !drop) { free(by_busy); free(drop); return -1; }
    for (size_t k = 0; k < ntr; k++) {
        size_t cnt = 0;
        for (size_t i = 0; i < ls->n; i++) if (ls->lanes[i].rank == tr[k].rank) by_busy[cnt++] = &ls->lanes[i];
        tr[k].lanes_total = cnt;
        if (cnt <= TL_MAX_LANES_PER_RANK) continue;
        tc_sort(by_busy, cnt, sizeof *by_busy, cmp_lane_busy);
        for (size_t i = TL_MAX_LANES_PER_RANK; i < cnt; i++) drop[by_busy[i] - ls->lanes] = true;
    }
    size_t kept = 0;
    for (size_t i = 0; i < ls->n; i++) {
        if (drop[i]) { free(ls->lanes[i].r); continue; }
        ls->lanes[kept++] = ls->lanes[i];
    }
    ls->n = kept;
    free(by_busy);
    free(drop);
    return 0;
}

/* The lanes of the drawn ranks, merging events narrower than *px_merge pixels, doubled (up to 64)
 * until at most TL_MAX_RECTS rectangles remain; ordered by rank, then stream label. 0, or -1 out
 * of memory. */
static int timeline_lanes(const tc_job *j, tl_rank *tr, size_t ntr, int64_t axis0, double px_per_ns, tl_lanes *ls,
                          double *px_merge) {
    for (;;) {
        if (build_lanes(j, tr, ntr, axis0, px_per_ns, *px_merge, ls)) return -1;
        if (keep_busiest_lanes(ls, tr, ntr)) return -1;
        size_t total = 0;
        for (size_t i = 0; i < ls->n; i++) total += ls->lanes[i].n;
        if (total <= TL_MAX_RECTS || *px_merge >= 64) break;
        lanes_free(ls);
        *px_merge *= 2;
    }
    for (size_t a = 1; a < ls->n; a++)
        for (size_t b = a; b > 0; b--) {
            tl_lane *p = &ls->lanes[b - 1], *q = &ls->lanes[b];
            const tc_trace *tp = &j->traces[j->ranks[p->rank].input], *tq = &j->traces[j->ranks[q->rank].input];
            bool swap = p->rank > q->rank ||
                        (p->rank == q->rank && stream_cmp(tc_trace_str(tp, p->stream), tc_trace_str(tq, q->stream)) > 0);
            if (!swap) break;
            tl_lane t = *p; *p = *q; *q = t;
        }
    return 0;
}

/* The paragraph above the chart: which step, the clock offsets, the merging; and the legend. */
static void timeline_note(hr *h, const tl_rank *tr, size_t ntr, double px_merge) {
    const tc_job *j = h->j;
    const tc_findings *f = &j->findings;
    char a[40];
    put(h, "<p class=\"note\">");
    if (f->has_step)
        pf(h, "ProfilerStep#%lld: the step of median duration (%s ms) of rank %lld. ", (long long)f->step_number,
           ms_round(a, sizeof a, f->step_time_ns), (long long)j->ranks[f->step_rank].rank);
    else put(h, "No ProfilerStep spans: the whole GPU window is drawn. ");
    put(h, "One lane per CUDA stream; each rank's window is its GPU events of that step. Clocks are aligned to the "
           "reference rank by the estimated offsets (");
    for (size_t k = 0; k < ntr; k++) {
        const tc_rank_result *rr = &j->ranks[tr[k].rank];
        if (rr->has_clock_offset) pf(h, "%srank %lld %s%s &micro;s", k ? ", " : "", (long long)rr->rank,
                                     rr->clock_offset_ns >= 0 ? "+" : "", us_exact(a, sizeof a, rr->clock_offset_ns));
        else pf(h, "%srank %lld unknown, not shifted", k ? ", " : "", (long long)rr->rank);
    }
    pf(h, "). Empty lane background is idle time. Events narrower than %.0f pixel%s are merged into one block "
          "(hover for what it holds); the tables keep exact values.</p>\n", px_merge, px_merge == 1 ? "" : "s");
    int tl_cats[] = {CAT_COMPUTE, CAT_TRANSFER, CAT_WAIT, CAT_COMM, CAT_MEMORY};
    legend(h, tl_cats, 5, tl_label, "<li><span class=\"sw\" style=\"background:#fafafa\"></span>idle (empty lane)</li>");
}

/* One lane: its label, its background and its rectangles, at height y. */
static void timeline_lane(hr *h, const tl_lane *ln, int y, int64_t span) {
    const tc_job *j = h->j;
    const tc_rank_result *rr = &j->ranks[ln->rank];
    const tc_trace *t = &j->traces[rr->input];
    char a[40], b[40];
    pf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %lld &middot; stream ", TL_L - 6, y + TL_LH - 3, (long long)rr->rank);
    esc_max(h, tc_trace_str(t, ln->stream), 24);
    pf(h, "</text><rect class=\"c-lane\" x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%d\" data-tip=\"rank %lld, stream ", TL_L, y,
       TL_PW, TL_LH, (long long)rr->rank);
    esc_max(h, tc_trace_str(t, ln->stream), 40);
    pf(h, ": busy %s ms of %s ms drawn; the rest is idle\"/>\n", ms_exact(a, sizeof a, ln->busy_ns), ms_exact(b, sizeof b, span));
    for (size_t k = 0; k < ln->n; k++) {
        const tl_rect *r = &ln->r[k];
        double w = r->x1 - r->x0;
        if (w < 0.6) w = 0.6;
        pf(h, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"%s\"", TL_L + r->x0, y, w, TL_LH,
           cat_class[rect_cat(r)]);
        tl_tip(h, j, ln, r);
        put(h, "/>\n");
    }
}

/* The chart: a ms grid, then the lanes grouped by rank. */
static void timeline_svg(hr *h, const tl_lanes *ls, const tl_rank *tr, size_t ntr, int64_t span, double px_per_ns) {
    size_t ranks_drawn = 0;
    for (size_t k = 0; k < ntr; k++) if (tr[k].has_window) ranks_drawn++;
    int H = TL_TOP + (int)ls->n * (TL_LH + TL_LG) + (int)ranks_drawn * TL_RG + 30;
    pf(h, "<svg id=\"timeline-chart\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
          "aria-label=\"timeline of one step, one lane per stream\">\n", TL_W, H, TL_W, H);
    double step_ms = nice_step((double)span / 1e6, 8);
    for (double t = 0; t <= (double)span / 1e6 + 1e-9; t += step_ms) {
        double x = TL_L + t * 1e6 * px_per_ns;
        pf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text x=\"%.1f\" y=\"%d\" "
              "text-anchor=\"middle\">%g ms</text>\n", x, TL_TOP - 4, x, H - 26, x, H - 10, t);
    }
    int y = TL_TOP;
    size_t prev_rank = SIZE_MAX;
    for (size_t i = 0; i < ls->n; i++) {
        const tl_lane *ln = &ls->lanes[i];
        if (ln->rank != prev_rank) { if (prev_rank != SIZE_MAX) y += TL_RG; prev_rank = ln->rank; }
        timeline_lane(h, ln, y, span);
        y += TL_LH + TL_LG;
    }
    put(h, "</svg>\n");
}

/* Notes under the chart: ranks without events in the step, lanes left out, ranks not drawn. */
static void timeline_footnotes(hr *h, const tl_rank *tr, size_t ntr) {
    const tc_job *j = h->j;
    for (size_t k = 0; k < ntr; k++) {
        const tc_rank_result *rr = &j->ranks[tr[k].rank];
        if (!tr[k].has_window)
            pf(h, "<p class=\"note\">rank %lld: no GPU events in this step.</p>\n", (long long)rr->rank);
        else if (tr[k].lanes_total > TL_MAX_LANES_PER_RANK)
            pf(h, "<p class=\"note\">rank %lld: the %d busiest of its %zu streams are drawn.</p>\n", (long long)rr->rank,
               TL_MAX_LANES_PER_RANK, tr[k].lanes_total);
    }
    if (j->n_ranks > ntr)
        pf(h, "<p class=\"note\">%zu of %zu ranks drawn (the first, the straggler, the one that waited most, the last); "
              "every rank is in the table above.</p>\n", ntr, j->n_ranks);
}

/* The representative step of the timeline's ranks (tc_findings: both chosen by the analyzer). Only
 * these ranks' events are read (an MPI process 0 holds no others: docs/mpi.md). */
static void section_timeline(hr *h) {
    const tc_job *j = h->j;
    put(h, "<section id=\"timeline\">\n<h2>Timeline of one representative step</h2>\n");
    if (!j->n_ranks) { put(h, "<p class=\"note\">No rank had GPU activity.</p>\n</section>\n"); return; }
    size_t ntr = j->findings.n_timeline_ranks;
    tl_rank *tr = calloc(ntr ? ntr : 1, sizeof *tr);
    tl_lanes ls = {NULL, 0, 0};
    int64_t axis0, axis1;
    double px_merge = 1.0;
    if (!tr) h->oom = true;
    else if (!timeline_windows(j, tr, ntr, &axis0, &axis1)) put(h, "<p class=\"note\">No GPU events to draw.</p>\n");
    else {
        int64_t span = axis1 - axis0;
        double px_per_ns = TL_PW / (double)span;
        if (timeline_lanes(j, tr, ntr, axis0, px_per_ns, &ls, &px_merge)) h->oom = true;
        else {
            timeline_note(h, tr, ntr, px_merge);
            timeline_svg(h, &ls, tr, ntr, span, px_per_ns);
            timeline_footnotes(h, tr, ntr);
        }
    }
    lanes_free(&ls);
    free(tr);
    put(h, "</section>\n");
}

/* ------------------------------------------------------------------ process groups */
/* A cell with a bar of busbw against the rated figure of its link (the bar's full width), or why
 * there is none (no busbw, or the link unknown). */
static void rated_bar_cell(hr *h, bool has_busbw, bool has_share, double share_of_rated) {
    if (!has_share) {
        pf(h, "<td data-v=\"NaN\">%s</td>", !has_busbw ? "n/a" : "n/a: link unknown");
        return;
    }
    double w = share_of_rated >= 1 ? 100 : 100 * share_of_rated;
    pf(h, "<td data-v=\"%.9g\"><span class=\"barbox\"><span class=\"bar\" style=\"width:%.1f%%\"></span></span>"
          "%.0f%% of rated</td>", share_of_rated, w, 100 * share_of_rated);
}

/* The names of row k's groups, "1, 2" (at most 8, then how many in all). */
static void row_names(hr *h, size_t k) {
    const tc_job *j = h->j;
    size_t shown = 0;
    for (size_t i = j->group_rows[k].first; i < j->n_groups; i++) {
        if (j->groups[i].row != k) continue;
        if (shown == 8) { pf(h, ", &hellip; (%zu in all)", j->group_rows[k].groups); break; }
        if (shown++) put(h, ", ");
        esc_max(h, j->groups[i].name, 64);
    }
}

static void section_groups(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    if (!j->n_group_rows) {
        if (sm->b.comm_ns > 0) /* said where it matters, beside the collectives */
            put(h, "<section id=\"groups\">\n<h2>Process groups and their links</h2>\n<p class=\"note\">No collective "
                   "kernel names a process group (the traces carry no Process Group Name), so the links cannot be told "
                   "apart.</p>\n</section>\n");
        return; /* no collective kernel: the section is left out */
    }
    put(h, "<section id=\"groups\">\n<h2>Process groups and their links</h2>\n");
    put(h, "<p class=\"note\">One row per description, scope and link (groups folded, their figures summed over the "
           "groups and their ranks among the inputs). Exposed shares are of the GPU time summed over all ranks; groups "
           "whose kernels run at the same time each count that time. busbw = bytes x the nccl-tests factor / transfer "
           "over the groups' matched collectives of 1 MiB or more; the bar is that against the link's rated bandwidth "
           "per GPU in one direction (intra-node: the GPU's own link from the catalog; inter-node: --fabric or "
           "--nic-gbps, one NIC per GPU). GB = 1e9 bytes.");
    if (sm->groups_without_comm) pf(h, " %zu more process groups have no collective kernel in these traces.", sm->groups_without_comm);
    put(h, "</p>\n<div class=\"scroll\"><table id=\"group-table\" class=\"sortable\">\n<thead><tr><th>description"
           "</th><th>groups</th><th>scope</th><th>link</th><th class=\"n\">exposed transfer</th><th class=\"n\">"
           "exposed wait</th><th class=\"n\">exposed comm</th><th class=\"n\">busbw GB/s</th><th class=\"n\">rated "
           "GB/s</th><th>busbw vs rated</th></tr></thead>\n<tbody>\n");
    for (size_t k = 0; k < j->n_group_rows; k++) {
        const tc_group_row *row = &j->group_rows[k];
        const tc_group_figures *f = &row->f;
        const tc_process_group *g = &j->groups[row->first];
        put(h, "<tr><td class=\"name\">");
        esc_max(h, g->desc ? g->desc : "(none)", 96);
        if (f->partial) put(h, " <span class=\"note\">(ranks missing: transfer an upper bound, busbw a lower bound)</span>");
        put(h, "</td><td>");
        row_names(h, k);
        pf(h, "</td><td>%s</td><td>", tc_scope_text(f->scope));
        esc(h, f->link.id ? f->link.name : "unknown");
        int64_t w = sm->b.window_ns;
        if (f->split_known)
            pf(h, "</td><td class=\"n\" data-v=\"%.9g\">%.2f%%</td><td class=\"n\" data-v=\"%.9g\">%.2f%%</td>",
               row->exposed_transfer_share, 100 * row->exposed_transfer_share, share(f->sums.exposed_wait_ns, w),
               100 * share(f->sums.exposed_wait_ns, w));
        else put(h, "</td><td class=\"n\" data-v=\"NaN\">n/a</td><td class=\"n\" data-v=\"NaN\">n/a</td>");
        pf(h, "<td class=\"n\" data-v=\"%.9g\">%.2f%%</td>", row->exposed_comm_share, 100 * row->exposed_comm_share);
        if (f->has_busbw) pf(h, "<td class=\"n\" data-v=\"%.9g\">%.3f</td>", f->busbw_GBps, f->busbw_GBps);
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        if (f->link.id) pf(h, "<td class=\"n\" data-v=\"%.9g\">%.4g</td>", f->link.rated_GBps, f->link.rated_GBps);
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        rated_bar_cell(h, f->has_busbw, f->has_share, f->share_of_rated);
        put(h, "</tr>\n");
    }
    put(h, "</tbody></table></div>\n</section>\n");
}

/* ------------------------------------------------------------------ collectives */
/* Where the communication came from, when some of it is not NCCL's or RCCL's (as the terminal). */
static void comm_libraries(hr *h) {
    const tc_summary *sm = &h->j->summary;
    bool other = false;
    for (uint8_t lib = 1; lib < TC_COMM_LIB_COUNT; lib++)
        other |= sm->comm_kernels[lib] && lib != TC_COMM_NCCL && lib != TC_COMM_RCCL && lib != TC_COMM_ARGS;
    if (!other) return;
    put(h, "<p class=\"note\" id=\"comm-libraries\">Communication kernels by library (docs/definitions.md lists the "
           "kernels recognised):");
    const char *sep = " ";
    for (uint8_t lib = 1; lib < TC_COMM_LIB_COUNT; lib++) {
        if (!sm->comm_kernels[lib]) continue;
        put(h, sep);
        esc(h, tc_comm_lib_name(lib));
        pf(h, " %llu (%.3f ms)", (unsigned long long)sm->comm_kernels[lib], (double)sm->comm_kernel_ns[lib] / 1e6);
        sep = ", ";
    }
    put(h, ".</p>\n");
}

/* Collectives: the terminal's table (its columns, every row), with the bar against the rated
 * figure; left out when nothing was matched across ranks. */
static void section_collectives(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    char a[40];
    if (!j->n_colls) return;
    put(h, "<section id=\"collectives\">\n<h2>Communication: collectives and bus bandwidth</h2>\n");
    comm_libraries(h);
    put(h, "<p class=\"note\">One row per (process group, collective, message size), as in the terminal. Transfer = "
           "the median instance of the fastest rank's kernel (the others waited for it); wait = summed over ranks and "
           "instances. algbw = bytes / transfer; busbw = algbw x the nccl-tests factor (allreduce 2(n-1)/n, "
           "allgather and reduce-scatter (n-1)/n, others 1); GB = 1e9 bytes. The bar shows each row's busbw against "
           "the rated bandwidth of its process group's link. ");
    if (sm->has_fabric_busbw)
        pf(h, "Over every process group together the collectives of 1 MiB or more reach %.1f GB/s (bytes-weighted; a "
              "blend of the links).", sm->fabric_busbw_GBps);
    else put(h, "No collective of 1 MiB or more with sizes was matched.");
    put(h, "</p>\n<div class=\"scroll\"><table id=\"coll-table\" class=\"sortable\">\n<thead><tr><th>collective</th>"
           "<th>group</th><th class=\"n\">n<br>ranks</th><th class=\"n\">count</th><th class=\"n\">size<br>each</th>"
           "<th class=\"n\">transfer<br>&micro;s, med</th><th class=\"n\">wait<br>&micro;s, sum</th><th class=\"n\">algbw"
           "<br>GB/s</th><th class=\"n\">busbw<br>GB/s</th><th>busbw vs rated</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < j->n_colls; i++) {
        const tc_collective_result *c = &j->colls[i];
        put(h, "<tr><td class=\"name\" data-tip=\"dtype ");
        esc(h, c->dtype ? c->dtype : "unknown");
        put(h, "\">");
        esc(h, c->name);
        put(h, "</td><td>"); esc(h, c->process_group);
        if (c->group_size > 0) pf(h, "</td><td class=\"n\" data-v=\"%lld\">%lld</td>", (long long)c->group_size, (long long)c->group_size);
        else put(h, "</td><td class=\"n\" data-v=\"NaN\">?</td>");
        pf(h, "<td class=\"n\" data-v=\"%llu\">%llu</td>", (unsigned long long)c->count, (unsigned long long)c->count);
        if (c->bytes >= 0)
            pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%lld bytes\">%s</td>", (long long)c->bytes, (long long)c->bytes,
               tc_fmt_bytes(a, sizeof a, c->bytes));
        else put(h, "<td class=\"n\" data-v=\"NaN\">?</td>");
        us_cell(h, c->transfer_ns_median);
        us_cell(h, c->wait_ns_total);
        if (c->has_bw) {
            pf(h, "<td class=\"n\" data-v=\"%.9g\" data-tip=\"%.6f GB/s\">%.1f</td><td class=\"n\" data-v=\"%.9g\" "
                  "data-tip=\"%.6f GB/s\">%.1f</td>", c->algbw_GBps, c->algbw_GBps, c->algbw_GBps, c->busbw_GBps,
               c->busbw_GBps, c->busbw_GBps);
            rated_bar_cell(h, true, c->has_share, c->share_of_rated);
        } else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td><td class=\"n\" data-v=\"NaN\">n/a</td><td data-v=\"NaN\">n/a</td>");
        put(h, "</tr>\n");
    }
    put(h, "</tbody></table></div>\n</section>\n");
}

/* ------------------------------------------------------------------ straggler */
static void section_straggler(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    char a[40], b[40], c[40], tip[256];
    size_t n = j->n_ranks;
    uint64_t matched = 0;
    for (size_t r = 0; r < n; r++) matched += j->ranks[r].matched_instances;
    if (n < 2 || !matched) return; /* no arrival order: the section is left out */
    put(h, "<section id=\"straggler\">\n<h2>Straggler evidence</h2>\n");
    if (sm->has_straggler) {
        const tc_straggler *s = &sm->straggler;
        char wait[TC_FINDING_TEXT];
        pf(h, "<p id=\"straggler-finding\"><b>Rank %lld is the straggler.</b> It causes %.1f%% of the charged wait and "
              "arrives last at %.1f%% of the collectives it takes part in (a fair share is %.1f%%); ",
           (long long)s->rank, 100 * s->caused_wait_share, 100 * s->last_arrival_share, 100.0 / (double)n);
        esc(h, tc_straggler_wait_text(wait, sizeof wait, s->waiting_ranks, s->wait_per_rank_ns_per_step,
                                      s->caused_wait_ns_per_step));
        pf(h, ". Its compute is %s ms per step against a median of %s ms over all ranks.</p>\n",
           ms_round(b, sizeof b, s->compute_ns_per_step), ms_round(c, sizeof c, s->median_compute_ns_per_step));
    } else
        put(h, "<p id=\"straggler-finding\">No rank stands out as the straggler.</p>\n");
    put(h, "<p class=\"note\" id=\"straggler-rule\">");
    esc(h, tc_straggler_rule_text());
    put(h, "</p>\n");
    put(h, "<p class=\"note\">Share of matched collectives each rank arrived at last (ties share the credit). The dashed "
           "line is a fair share, 1 / ranks.</p>\n");
    int bh = n <= 16 ? 16 : n <= 64 ? 9 : n <= 256 ? 4 : 2, gap = bh >= 9 ? 3 : 1;
    int label_every = bh >= 9 ? 1 : bh >= 4 ? 8 : 32;
    const int W = TC_HTML_CHART_W, L = 80, R = 110, top = 20; /* the fair-share label above the bars */
    double PW = W - L - R;
    int H = top + (int)n * (bh + gap) + 26;
    pf(h, "<svg id=\"straggler-chart\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
          "aria-label=\"last-arrival share per rank\">\n", W, H, W, H);
    percent_grid(h, L, PW, top, H);
    for (size_t r = 0; r < n; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        double s = rr->last_arrival_share;
        int y = top + (int)r * (bh + gap);
        bool is = sm->has_straggler && rr->rank == sm->straggler.rank;
        snprintf(tip, sizeof tip, "rank %lld: last at %.2f of %llu collectives (%.2f%%); each other rank waited %s ms/step "
                 "for it%s", (long long)rr->rank, rr->last_arrival_credit, (unsigned long long)rr->matched_instances,
                 100 * s, ms_exact(a, sizeof a, rr->caused_wait_per_rank_ns_per_step), is ? " - the straggler" : "");
        pf(h, "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\" data-tip=\"%s\"/>", L, y, s * PW, bh,
           is ? "c-transfer" : "c-compute", tip);
        if (r % (size_t)label_every == 0 || is)
            pf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %lld</text>", L - 6, y + bh - (bh >= 9 ? 4 : 0), (long long)rr->rank);
        if (is) pf(h, "<text x=\"%.1f\" y=\"%d\" font-weight=\"bold\">straggler %.0f%%</text>", L + s * PW + 6,
                   y + bh - (bh >= 9 ? 4 : 0), 100 * s);
        put(h, "\n");
    }
    double fx = L + PW / (double)n;
    pf(h, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" stroke-dasharray=\"4 3\"/>"
          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">fair share %.1f%%</text>\n", fx, top - 2, fx, H - 22, fx,
       top - 6, 100.0 / (double)n);
    pf(h, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</svg>\n", L, H - 22, W - R, H - 22);
    put(h, "<ul class=\"legend\"><li><span class=\"sw c-transfer\"></span>the straggler</li>"
           "<li><span class=\"sw c-compute\"></span>other ranks</li></ul>\n</section>\n");
}

/* ------------------------------------------------------------------ top kernels */
/* The terminal's top compute kernels (tc_job.top_kernels: compute kernels over all ranks, share of
 * the summed compute-kernel time, achieved TFLOP/s where FLOPs are known); every GPU event name is in
 * --csv's kernels.csv. Left out when there is no compute kernel. */
static void section_kernels(hr *h) {
    const tc_job *j = h->j;
    if (!j->n_top_kernels) return;
    put(h, "<section id=\"kernels\">\n<h2>Top compute kernels</h2>\n");
    pf(h, "<p class=\"note\">Compute kernels over all ranks by summed time, as in the terminal (the top %zu). Share = of "
          "the summed compute-kernel time; achieved TFLOP/s = the FLOPs of the kernel's ops / its time, where the trace "
          "recorded shapes. Communication kernels are in the collectives table; every GPU event (kernels, copies, "
          "sets) is in <code>--csv</code>'s kernels.csv.</p>\n", j->n_top_kernels);
    put(h, "<div class=\"scroll\"><table id=\"kernel-table\" class=\"sortable\">\n<thead><tr><th class=\"n\">#</th>"
           "<th>kernel</th><th class=\"n\">time<br>ms, sum</th><th class=\"n\">count<br>launches</th>"
           "<th class=\"n\">share<br>% comp</th><th class=\"n\">TFLOP/s<br>achieved</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < j->n_top_kernels; i++) {
        const tc_kernel_row *k = &j->top_kernels[i];
        pf(h, "<tr><td class=\"n\" data-v=\"%zu\">%zu</td><td class=\"name\">", i + 1, i + 1);
        esc(h, k->name);
        put(h, "</td>");
        ms_cell(h, k->time_ns);
        pf(h, "<td class=\"n\" data-v=\"%llu\">%llu</td><td class=\"n\" data-v=\"%.9g\" data-tip=\"%.4f%%\">%.1f</td>",
           (unsigned long long)k->count, (unsigned long long)k->count, k->share_of_compute, 100 * k->share_of_compute,
           100 * k->share_of_compute);
        if (k->has_tflops)
            pf(h, "<td class=\"n\" data-v=\"%.9g\" data-tip=\"%.6f TFLOP/s\">%.1f</td></tr>\n", k->achieved_tflops,
               k->achieved_tflops, k->achieved_tflops);
        else put(h, "<td class=\"n\" data-v=\"NaN\">-</td></tr>\n");
    }
    put(h, "</tbody></table></div>\n</section>\n");
}

/* ------------------------------------------------------------------ cost */
static void cost_row(hr *h, const char *label, bool known, double v, bool is_money, const char *unit, const char *how) {
    char m[64];
    pf(h, "<tr><td>%s</td><td class=\"n\"", label);
    if (!known) put(h, ">n/a");
    else if (is_money) pf(h, " data-tip=\"%.6f\">%s", v, money(m, sizeof m, v));
    else pf(h, " data-tip=\"%.9g\">%.2f", v, v);
    pf(h, "%s%s</td><td class=\"note\">%s</td></tr>\n", known && unit ? " " : "", known && unit ? unit : "", how);
}

static void cost_chart(hr *h, const tc_cost_result *c) {
    char a[48], b[48];
    size_t n = c->timeline_len;
    if (n < 2) return;
    int M = c->timeline[n - 1].month;
    double maxv = 0;
    for (size_t i = 0; i < n; i++) {
        if (c->has_own && c->timeline[i].own > maxv) maxv = c->timeline[i].own;
        if (c->timeline[i].rent > maxv) maxv = c->timeline[i].rent;
    }
    if (!(maxv > 0)) maxv = 1;
    double ystep = nice_step(maxv, 5);
    double ymax = ystep * (double)(long long)(maxv / ystep + 0.999999);
    const int W = TC_HTML_CHART_W, H = 340, L = 80, R = 80, T = 16, B = 40;
    double PW = W - L - R, PH = H - T - B;
#define XM(m) (L + PW * (double)(m) / (double)M)
#define YV(v) (T + PH - PH * (v) / ymax)
    pf(h, "<svg id=\"cost-chart\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
          "aria-label=\"cumulative cost of owning versus renting over %d months\">\n", W, H, W, H, M);
    for (double v = 0; v <= ymax * 1.000001; v += ystep)
        pf(h, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" "
              "text-anchor=\"end\">%s</text>\n", L, YV(v), W - R, YV(v), L - 6, YV(v) + 4, money_short(a, sizeof a, v));
    int mstep = M <= 12 ? 1 : M <= 48 ? 6 : M <= 120 ? 12 : 60;
    for (int m = 0; m <= M; m += mstep)
        pf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%d\" "
              "text-anchor=\"middle\">%d</text>\n", XM(m), T, XM(m), T + PH, XM(m), H - 22, m);
    pf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">months</text>\n", L + PW / 2, H - 6);
    pf(h, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", L, T + PH, W - R, T + PH);
    for (int side = 0; side < 2; side++) {
        if (side == 0 && !c->has_own) continue;
        pf(h, "<polyline fill=\"none\" class=\"%s\" stroke-width=\"2.5\"%s points=\"", side == 0 ? "c-own" : "c-rent",
           side == 0 ? "" : " stroke-dasharray=\"8 4\"");
        for (size_t i = 0; i < n; i++)
            pf(h, "%.1f,%.1f ", XM(c->timeline[i].month), YV(side == 0 ? c->timeline[i].own : c->timeline[i].rent));
        put(h, "\"/>\n");
        double endv = side == 0 ? c->timeline[n - 1].own : c->timeline[n - 1].rent;
        pf(h, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", (double)(W - R + 6), YV(endv) + 4,
           side == 0 ? "own" : "rent");
    }
    size_t every = n > 61 ? (n + 59) / 60 : 1;
    for (size_t i = 0; i < n; i += every) {
        const tc_cost_month *p = &c->timeline[i];
        char tip[200];
        if (c->has_own)
            snprintf(tip, sizeof tip, "month %d: own %s, rent %s", p->month, money(a, sizeof a, p->own), money(b, sizeof b, p->rent));
        else snprintf(tip, sizeof tip, "month %d: rent %s", p->month, money(b, sizeof b, p->rent));
        if (c->has_own)
            pf(h, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#0072B2\" data-tip=\"%s\"/>", XM(p->month), YV(p->own), tip);
        pf(h, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"#D55E00\" data-tip=\"%s\"/>\n", XM(p->month) - 3,
           YV(p->rent) - 3, tip);
    }
    if (c->has_own && c->has_breakeven && c->breakeven_months <= (double)M) {
        double bm = c->breakeven_months, bv = c->own_capex + bm * c->own_opex_monthly;
        pf(h, "<g id=\"breakeven\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-dasharray=\"3 3\"/>"
              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\" "
              "data-tip=\"breakeven at %.4f months: both cost %s\"/>"
              "<text x=\"%.1f\" y=\"%d\" font-weight=\"bold\">breakeven %.1f months</text></g>\n",
           XM(bm), T, XM(bm), T + PH, XM(bm), YV(bv), bm, money(a, sizeof a, bv), XM(bm) + 6, T + 12, bm);
    }
#undef XM
#undef YV
    put(h, "</svg>\n<ul class=\"legend\">");
    if (c->has_own) put(h, "<li><span class=\"sw c-own\"></span>own (solid line, dots): purchase + fabric, then power and operations each month</li>");
    put(h, "<li><span class=\"sw c-rent\"></span>rent (dashed line, squares): GPU-hours x price</li>");
    if (c->has_own && c->has_breakeven) put(h, "<li>dashed vertical line: breakeven</li>");
    put(h, "</ul>\n");
}

static void section_cost(hr *h) {
    const tc_cost_result *c = h->j->cost.computed ? &h->j->cost.result : NULL;
    char a[64], b[64], note[TC_COST_NOTE_TEXT];
    put(h, "<section id=\"cost\">\n<h2>Cost: own vs rent</h2>\n");
    if (!c) {
        put(h, "<p class=\"note\" id=\"cost-missing\">");
        if (h->j->cost.missing != TC_COST_UNPRICED) esc(h, tc_cost_missing_text(note, sizeof note, &h->j->cost));
        else put(h, "No cost inputs: pass --price-per-gpu-hour (rent, $ per GPU-hour) and optionally --gpus, "
                    "--purchase-per-gpu, --fabric-cost, --months, --fabric-target-GBps to price the losses, compare owning "
                    "with renting over 36 months and see what a faster fabric would recover.");
        put(h, "</p>\n</section>\n");
        return;
    }
    char head[1024];
    tc_cost_headline(head, sizeof head, c);
    put(h, "<p id=\"cost-headline\"><b>");
    esc(h, head);
    put(h, "</b></p>\n");
    pf(h, "<h3>Cumulative cost over %.0f months</h3>\n", c->used.months.value);
    if (!c->has_own) put(h, "<p class=\"note\">No purchase price (--purchase-per-gpu or --gpu with a catalog price): only renting is drawn.</p>\n");
    else if (!c->has_breakeven)
        put(h, "<p class=\"note\">No breakeven: owning costs more each month than renting, so it never pays back.</p>\n");
    else if (c->breakeven_months > c->used.months.value)
        pf(h, "<p class=\"note\">Breakeven at %.1f months, after the %.0f-month horizon.</p>\n", c->breakeven_months,
           c->used.months.value);
    cost_chart(h, c);

    put(h, "<h3>Results</h3>\n<table id=\"cost-table\"><thead><tr><th>figure</th><th class=\"n\">value</th><th>how</th></tr></thead><tbody>\n");
    bool lower = c->efficiency_bound == TC_COST_LOWER, slower = c->straggler_loss_bound == TC_COST_LOWER;
    cost_row(h, "effective GPUs", true, c->effective_gpus, false, "GPUs",
             lower ? "N x network efficiency e; a lower bound on this data" : "N x network efficiency e");
    cost_row(h, "effective price", true, c->effective_price_per_gpu_hour, true, "per GPU-hour",
             lower ? "P / e; an upper bound on this data" : "P / e");
    cost_row(h, "network loss", true, c->network_loss_per_month, true, "per month",
             lower ? "N x P x 730 h x u x (1 - e); an upper bound on this data" : "N x P x 730 h x u x (1 - e)");
    cost_row(h, "straggler loss", c->has_straggler_loss, c->straggler_loss_per_month, true, "per month",
             slower ? "N x P x 730 h x u x exposed wait share; a lower bound on this data"
                    : "N x P x 730 h x u x exposed wait share");
    cost_row(h, "idle loss", c->has_idle_loss, c->idle_loss_per_month, true, "per month", "N x P x 730 h x u x (idle + exposed memory share)");
    cost_row(h, "rent per month", true, c->rent_monthly, true, NULL, "N x P x 730 h x u");
    cost_row(h, "rent, total", true, c->tco_rent, true, NULL, "months x rent per month");
    cost_row(h, "own: purchase", c->has_own, c->own_capex, true, NULL, "N x purchase per GPU + fabric");
    cost_row(h, "own: running cost", c->has_own, c->own_opex_monthly, true, "per month", "N x kW x 730 h x u x PUE x $/kWh + operations");
    cost_row(h, "own, total", c->has_own, c->tco_own, true, NULL, "purchase + months x running cost");
    cost_row(h, "breakeven", c->has_own && c->has_breakeven, c->breakeven_months, false, "months", "purchase / (rent - running cost per month)");
    cost_row(h, "own: per effective GPU-hour", c->has_own, c->own_cost_per_effective_gpu_hour, true, NULL, "own total / (N x 730 h x u x months x e)");
    cost_row(h, "rent: per effective GPU-hour", true, c->rent_cost_per_effective_gpu_hour, true, NULL, "P / rented fabric's efficiency");
    put(h, "</tbody></table>\n");

    put(h, "<h3>What if the fabric were faster</h3>\n");
    if (c->has_what_if) {
        const tc_cost_what_if *w = &c->what_if;
        if (w->inter_node_only)
            pf(h, "<p id=\"what-if\">With a fabric of %.1f GB/s bus bandwidth between nodes instead of the measured %.1f GB/s, "
                  "only the inter-node process groups' exposed transfer time shrinks (%.2f%% of GPU time, scaled by %.1f / "
                  "%.1f; the groups within a node keep theirs): the exposed transfer share becomes %.2f%%", w->target_GBps,
               w->fabric_GBps, 100 * w->scaled_transfer_share, w->fabric_GBps, w->target_GBps,
               100 * w->projected_exposed_transfer_share);
        else
            pf(h, "<p id=\"what-if\">With a fabric of %.1f GB/s bus bandwidth instead of the measured %.1f GB/s, only exposed "
                  "transfer time shrinks (scaled by %.1f / %.1f): its share becomes %.2f%%", w->target_GBps, w->fabric_GBps,
               w->fabric_GBps, w->target_GBps, 100 * w->projected_exposed_transfer_share);
        if (w->has_step_time) pf(h, ", the step takes %.3f ms", w->projected_step_time_us / 1e3);
        pf(h, ", the GPUs do the work of %.2f, and %s a month is recovered", w->projected_effective_gpus,
           money(a, sizeof a, w->monthly_value_recovered));
        if (w->has_upgrade_cost) {
            pf(h, "; the upgrade costs %s", money(b, sizeof b, w->upgrade_cost));
            if (w->has_payback) pf(h, " and pays back in %.1f months", w->payback_months);
            else put(h, " and never pays back");
        }
        put(h, ".</p>\n");
    } else
        put(h, "<p class=\"note\" id=\"what-if\">No what-if: pass --fabric-target-GBps (and optionally --fabric-upgrade-cost) "
               "with a measured fabric bandwidth.</p>\n");

    put(h, "<h3>Inputs used</h3>\n<table id=\"cost-inputs\"><thead><tr><th>input</th><th class=\"n\">value</th><th>from</th></tr></thead><tbody>\n");
    const tc_cost_inputs *u = &c->used;
    const struct { const char *name; const tc_cost_value *v; } rows[] = {
        {"GPUs (N)", &u->gpus}, {"rent $ per GPU-hour (P)", &u->price_per_gpu_hour},
        {"purchase $ per GPU (C)", &u->purchase_per_gpu}, {"fabric $ (F)", &u->fabric_cost},
        {"power kW per GPU (W)", &u->power_kw_per_gpu}, {"electricity $ per kWh (E)", &u->electricity_per_kwh},
        {"PUE", &u->pue}, {"operations $ per month (O)", &u->ops_per_month}, {"months (M)", &u->months},
        {"utilization (u)", &u->utilization}, {"network efficiency (e)", &u->network_efficiency},
        {"rented fabric's efficiency (e_r)", &u->rent_network_efficiency}, {"fabric busbw GB/s (B)", &u->fabric_GBps},
        {"what-if busbw GB/s (B')", &u->fabric_target_GBps}, {"upgrade $ (X)", &u->fabric_upgrade_cost},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pf(h, "<tr><td>%s</td>", rows[i].name);
        if (rows[i].v->set) pf(h, "<td class=\"n\" data-tip=\"%.10g\">%.4g</td><td>", rows[i].v->value, rows[i].v->value);
        else put(h, "<td class=\"n\">unset</td><td>");
        esc(h, rows[i].v->set ? rows[i].v->origin : "");
        put(h, "</td></tr>\n");
    }
    if (u->gpu) {
        put(h, "<tr><td>GPU model</td><td class=\"n\">"); esc(h, u->gpu->name);
        put(h, "</td><td>"); esc(h, u->gpu_origin); put(h, "</td></tr>\n");
    }
    put(h, "</tbody></table>\n");
    if (c->n_notes) {
        put(h, "<ul class=\"note\">");
        for (size_t i = 0; i < c->n_notes; i++) { put(h, "<li>"); esc(h, c->notes[i]); put(h, "</li>"); }
        put(h, "</ul>\n");
    }
    put(h, "</section>\n");
}

/* ------------------------------------------------------------------ definitions, inputs */
static void section_definitions(hr *h) {
    const tc_summary *sm = &h->j->summary;
    put(h, "<section id=\"definitions\">\n<h2>Definitions and assumptions</h2>\n<dl class=\"defs\">\n"
           "<dt>Window</dt><dd>Per rank, from its first GPU event's start to its last GPU event's end. Shares in the "
           "verdict are of the windows summed over ranks.</dd>\n"
           "<dt>Compute</dt><dd>The length of the union of every kernel that is not a collective or memory copy.</dd>\n"
           "<dt>Exposed communication</dt><dd>Time in collective kernels (NCCL/RCCL, every naming generation) not "
           "overlapped by compute. Split, when two or more ranks are given, into <b>wait</b> (the head of a collective "
           "kernel before the last rank arrived: the rank waits for a slower peer) and <b>transfer</b> (the rest: the "
           "fastest rank's kernel time, moving bytes). Collectives are matched across ranks by process group and "
           "order.</dd>\n"
           "<dt>Exposed memory</dt><dd>memcpy/memset time not overlapped by compute or collectives.</dd>\n"
           "<dt>Idle</dt><dd>Window minus the union of all GPU activity: the GPU waited for the host.</dd>\n"
           "<dt>Idle causes</dt><dd>Each idle gap goes, instant by instant, to what the CPU thread that launched the "
           "work ending the gap was doing (data loading, sync, memory management, module load, launch overhead, CPU "
           "other), or to GPU side (the work was handed over before the GPU ran dry) or unattributed (no launch call "
           "in the trace). They add up to idle exactly.</dd>\n"
           "<dt>Verdict</dt><dd>Two loss classes: communication (exposed transfer + exposed wait) and host (idle + "
           "exposed memory). When both are below the threshold share of GPU time the job is compute-bound; otherwise "
           "the larger names it: host-bound, or network-bound when transfer is at least the wait, else straggler-bound. "
           "The speed-up is 1 / (1 - the named loss's share). Partial data (ranks missing, unmatched collectives, inputs "
           "cut short, one rank) is said in the verdict line.</dd>\n"
           "<dt>Comm/compute ratio</dt><dd>Union of collective kernels over union of compute kernels.</dd>\n"
           "<dt>MFU</dt><dd>Model FLOPs (from GEMM shapes recorded with record_shapes) per second of step time, over the "
           "GPU's dense peak for the dtype.</dd>\n"
           "<dt>Bus bandwidth</dt><dd>As nccl-tests: algbw = bytes / time, busbw = algbw x 2(n-1)/n for allreduce, "
           "(n-1)/n for allgather, reduce-scatter and all-to-all, 1 otherwise. GB = 10<sup>9</sup> bytes.</dd>\n"
           "<dt>Process groups</dt><dd>Each group of the job, joined from every input's pg_config and the collectives' "
           "process-group arguments: intra-node when its ranks are on one node, else inter-node. Its exposed figures are "
           "unions over its own kernels summed over its ranks; its link is the GPU's own (NVLink, Infinity Fabric, PCIe) "
           "inside a node and --fabric or --nic-gbps between nodes, rated per GPU in one direction. A network-bound "
           "verdict calls the groups with the most exposed transfer saturated from 70% of their link's rating on.</dd>\n"
           "<dt>Straggler</dt><dd>");
    esc(h, tc_straggler_rule_text());
    put(h, "</dd>\n"
           "<dt>Clock alignment</dt><dd>Each rank's clock offset against the reference rank is the median, over matched "
           "collectives, of the difference of their end times (collectives end together on every rank).</dd>\n"
           "<dt>Effective GPUs, money</dt><dd>Network efficiency e = 1 - exposed transfer share; N GPUs do the work "
           "of N x e. A month is 730 hours. See the cost model documentation for every formula.</dd>\n"
           "<dt>Times</dt><dd>Tables give times in ms with 6 decimals or &micro;s with 3, that is every nanosecond the "
           "traces hold.</dd>\n</dl>\n");
    (void)sm;
    put(h, "</section>\n");
}

static void section_inputs(hr *h) {
    const tc_job *j = h->j;
    put(h, "<section id=\"inputs\">\n<h2>Inputs and warnings</h2>\n<div class=\"scroll\"><table id=\"input-table\" "
           "class=\"sortable\">\n<thead><tr><th>file</th><th class=\"n\">rank</th><th class=\"n\">bytes read</th>"
           "<th class=\"n\">events</th><th class=\"n\">GPU events</th><th class=\"n\">skipped</th><th>state</th>"
           "</tr></thead>\n<tbody>\n");
    size_t nwarn = j->n_warnings;
    for (size_t i = 0; i < j->n_traces; i++) {
        const tc_trace *t = &j->traces[i];
        nwarn += t->n_warnings;
        put(h, "<tr><td class=\"name\">");
        esc(h, t->path);
        pf(h, "</td><td class=\"n\" data-v=\"%lld\">%lld</td><td class=\"n\" data-v=\"%llu\">%llu</td>"
              "<td class=\"n\" data-v=\"%llu\">%llu</td><td class=\"n\" data-v=\"%llu\">%llu</td>"
              "<td class=\"n\" data-v=\"%llu\">%llu</td><td>%s%s</td></tr>\n",
           (long long)t->rank, (long long)t->rank, (unsigned long long)t->bytes, (unsigned long long)t->bytes,
           (unsigned long long)t->events_total, (unsigned long long)t->events_total, (unsigned long long)tc_trace_gpu_events(t),
           (unsigned long long)tc_trace_gpu_events(t),
           (unsigned long long)t->events_skipped, (unsigned long long)t->events_skipped,
           t->truncated ? "<span class=\"warn\">damaged or truncated</span>" : "complete",
           t->n_warnings ? " <span class=\"warn\">(warnings)</span>" : "");
    }
    put(h, "</tbody></table></div>\n");
    if (!nwarn) put(h, "<p class=\"note\" id=\"warnings\">No warnings.</p>\n");
    else {
        pf(h, "<h3 class=\"warn\">Warnings (%zu)</h3>\n<ul id=\"warnings\">\n", nwarn);
        for (size_t i = 0; i < j->n_traces; i++) {
            const tc_trace *t = &j->traces[i];
            for (size_t k = 0; k < t->n_warnings; k++) {
                put(h, "<li><span class=\"name\">"); esc(h, t->path); put(h, "</span>: "); esc(h, t->warnings[k]); put(h, "</li>\n");
            }
            if (t->warnings_dropped) {
                put(h, "<li>"); esc(h, t->path);
                pf(h, ": %llu more warnings not listed</li>\n", (unsigned long long)t->warnings_dropped);
            }
        }
        for (size_t i = 0; i < j->n_warnings; i++) { put(h, "<li>"); esc(h, j->warnings[i]); put(h, "</li>\n"); }
        put(h, "</ul>\n");
    }
    put(h, "</section>\n");
}

/* ------------------------------------------------------------------ document */
/* The folder the inputs share ("traces/run42/"), as given: the common start of their paths up to
 * a '/'; empty when they share none (files of the current folder, standard input). */
static size_t common_folder(const tc_job *j) {
    if (!j->n_traces) return 0;
    const char *p0 = j->traces[0].path;
    size_t len = strlen(p0);
    for (size_t i = 1; i < j->n_traces; i++) {
        size_t k = 0;
        while (k < len && p0[k] == j->traces[i].path[k]) k++;
        len = k;
    }
    while (len && p0[len - 1] != '/') len--;
    return len;
}

/* The job's name: the last folder its inputs share ("run42"), else the one input's file name,
 * else "job". */
static void job_name(char *buf, size_t n, const tc_job *j) {
    size_t len = common_folder(j);
    const char *p = j->n_traces ? j->traces[0].path : "";
    while (len > 1 && p[len - 1] == '/') len--; /* "run42/" -> "run42" */
    size_t from = len;
    while (from && p[from - 1] != '/') from--;
    if (len > from && !(len - from == 1 && p[from] == '.'))
        snprintf(buf, n, "%.*s", (int)(len - from), p + from);
    else if (j->n_traces == 1) {
        const char *base = strrchr(p, '/');
        snprintf(buf, n, "%s", base ? base + 1 : p);
    } else snprintf(buf, n, "job");
}

/* <title> and the header: the job's name, when it was traced, what was read, the tool. */
static void page_head(hr *h, const char *nonce) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    char name[300], date[40] = "";
    job_name(name, sizeof name, j);
    if (sm->has_capture_time) tc_utc_text(date, sizeof date, sm->capture_unix_s);
    pf(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
           "script-src 'nonce-%s'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta name=\"generator\" content=\"tracecost %s\">\n<title>", nonce, TC_VERSION);
    esc(h, name);
    pf(h, ": %s, %zu rank%s%s%s &middot; tracecost</title>\n<style>%s</style>\n"
           "</head>\n<body>\n<div id=\"tip\" role=\"tooltip\"></div>\n",
       tc_verdict_name(sm->verdict), sm->ranks, sm->ranks == 1 ? "" : "s", date[0] ? ", " : "", date, css);
    put(h, "<header class=\"top\" id=\"report-head\"><span><b id=\"job-name\">");
    esc(h, name);
    pf(h, "</b> &middot; <span id=\"trace-date\">%s</span></span>", date[0] ? date : "trace date unknown");
    size_t folder = common_folder(j);
    pf(h, "<span id=\"report-inputs\">%zu rank%s &middot; %zu step%s &middot; %zu input%s", sm->ranks,
       sm->ranks == 1 ? "" : "s", max_steps(j), max_steps(j) == 1 ? "" : "s", j->n_traces, j->n_traces == 1 ? "" : "s");
    if (folder) {
        put(h, " in ");
        tc_html_escape(h->out, j->traces[0].path, folder, 0);
    } else if (j->n_traces == 1) {
        put(h, ": ");
        esc(h, j->traces[0].path);
    }
    pf(h, " &middot; tracecost %s</span></header>\n", TC_VERSION);
}

int tc_html_report_write(FILE *out, const tc_job *j) {
    hr h = {out, j, false};
    char nonce[32];
    make_nonce(&h, nonce, sizeof nonce);
    page_head(&h, nonce);
    section_verdict(&h);
    section_key_numbers(&h);
    section_ranks(&h);
    tc_host_wait_html(out, j);
    section_timeline(&h);
    section_groups(&h);
    section_collectives(&h);
    section_straggler(&h);
    section_kernels(&h);
    if (j->cost.computed || j->cost.missing != TC_COST_LEFT_OUT) section_cost(&h); /* --no-cost: none */
    section_definitions(&h);
    section_inputs(&h);
    pf(&h, "<footer>Written by tracecost %s. This file is self-contained: it loads nothing from the network and opens "
           "offline in any browser. Trace-derived text is shown as text, never run.</footer>\n"
           "<script nonce=\"%s\">%s</script>\n</body>\n</html>\n", TC_VERSION, nonce, js);
    if (h.oom) return -1;
    return ferror(out) ? -1 : 0;
}
