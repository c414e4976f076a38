/* html_kit.c: the HTML toolkit (see html_kit.h): the one escaper, the page's frame (style sheet,
 * script, Content-Security-Policy nonce) and the number and money forms of the HTML report. */
#include "html_kit.h"
#include "base/utf8.h"
#include "textfmt.h"
#include "base/version.h"
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

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

/* ns as exact milliseconds: "12.345678" (6 decimals = every nanosecond). */
const char *tc_html_ms_exact(char *buf, size_t n, int64_t ns) {
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, n, "%s%" PRIu64 ".%06" PRIu64, ns < 0 ? "-" : "", a / 1000000u, a % 1000000u);
    return buf;
}

/* ns as exact microseconds: "12.345" (3 decimals). */
const char *tc_html_us_exact(char *buf, size_t n, int64_t ns) {
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000u, a % 1000u);
    return buf;
}

/* ns as milliseconds rounded for reading: 3 significant decimals below 10 ms, 2 below 100, else 1
 * ("94.555", "378.2"); the exact value goes in a tooltip (tc_html_ms_exact). */
const char *tc_html_ms_round(char *buf, size_t n, int64_t ns) {
    double v = (double)ns / 1e6, a = v < 0 ? -v : v;
    snprintf(buf, n, "%.*f", a >= 100 ? 1 : a >= 10 ? 2 : 3, v);
    return buf;
}

/* Dollars with thousands separators: "$1,234,567" (cents below $100). */
const char *tc_html_money(char *buf, size_t n, double v) {
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

/* s's bound sign ("<0.1", ">-0.1") as HTML text, into buf. */
static const char *html_bound(char *buf, size_t n, const char *s) {
    snprintf(buf, n, "%s%s", s[0] == '<' ? "&lt;" : s[0] == '>' ? "&gt;" : "", s + (s[0] == '<' || s[0] == '>'));
    return buf;
}

const char *tc_html_pct(char *buf, size_t n, double share, int decimals) {
    char t[TC_PCT_LEN];
    return html_bound(buf, n, tc_fmt_pct(t, sizeof t, share, decimals));
}

const char *tc_html_pct_pt(char *buf, size_t n, double diff, int decimals) {
    char t[TC_PCT_LEN];
    return html_bound(buf, n, tc_fmt_pct_pt(t, sizeof t, diff, decimals));
}

const char *tc_html_pct_num(char *buf, size_t n, double share, int decimals) {
    char t[TC_PCT_LEN];
    return html_bound(buf, n, tc_fmt_pct_num(t, sizeof t, share, decimals));
}

/* A "nice" axis step (1, 2 or 5 x 10^k) giving about `ticks` divisions of range. */
double tc_html_nice_step(double range, int ticks) {
    if (!(range > 0)) return 1;
    double raw = range / ticks, p = 1;
    while (p * 10 <= raw) p *= 10;
    while (p > raw) p /= 10;
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

void tc_html_svg_open(FILE *out, const char *id, int narrow, int H, const char *aria) {
    int W = tc_html_chart_w(narrow);
    fprintf(out, "<svg id=\"%s%s\" class=\"chart %s\" viewBox=\"0 0 %d %d\" width=\"100%%\" role=\"img\" aria-label=\"%s\">\n",
            id, narrow ? "-narrow" : "", narrow ? "narrow" : "wide", W, H, aria);
}

/* ------------------------------------------------------------------ page frame */
static const char css[] =
    ":root{--fg:#1b1b1b;--muted:#555;--line:#d0d0d0;--bg:#fff;--panel:#f6f6f6}"
    "*{box-sizing:border-box}"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:var(--fg);"
    "background:var(--bg);margin:0 auto;max-width:1100px;padding:16px 24px 48px}"
    "p,li,dd,dt,h1,h2,h3,header,.card{overflow-wrap:anywhere}"
    /* a wide table scrolls inside its frame; charts scale to the section (TC_HTML_CHART_CSS) */
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
    "svg{display:block;height:auto;font-size:11px}" TC_HTML_CHART_CSS "svg text{fill:#222}"
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
void tc_html_nonce(const void *seed, char *buf, size_t n) {
    uint64_t x = 0xcbf29ce484222325ULL;
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    uint64_t seeds[5] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)(uintptr_t)seed,
                         (uint64_t)(uintptr_t)&ts, (uint64_t)clock()};
    for (size_t i = 0; i < 5; i++)
        for (int b = 0; b < 8; b++) { x ^= (seeds[i] >> (8 * b)) & 0xFF; x *= 0x100000001b3ULL; }
    x ^= x >> 31; x *= 0x9E3779B97F4A7C15ULL; x ^= x >> 29;
    snprintf(buf, n, "%016" PRIx64, x);
}

void tc_html_head_begin(FILE *out, const char *nonce) {
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "script-src 'nonce-%s'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"generator\" content=\"tracecost %s\">\n<title>", nonce, TC_VERSION);
}

void tc_html_head_end(FILE *out) {
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<div id=\"tip\" role=\"tooltip\"></div>\n", css);
}

void tc_html_doc_end(FILE *out, const char *nonce) {
    fprintf(out, "<script nonce=\"%s\">%s</script>\n</body>\n</html>\n", nonce, js);
}
