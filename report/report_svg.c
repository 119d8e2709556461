/* report/report_svg: inline SVG plots (CDFs, bar charts, grouped bars, a log-log scatter). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"

#define W 520
#define H 300
#define L 60   /* left margin */
#define R 16
#define T 30
#define B 48

static void head(FILE *f, const char *title, int w, int h)
{
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
            "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
            "<text x=\"%d\" y=\"18\" text-anchor=\"middle\" font-size=\"13\" "
            "font-weight=\"bold\">",
            w, h, w, h, w, h, w / 2);
    rp_html_escape(f, title);
    fputs("</text>\n", f);
}

/* the axis lines from the left margin to column right, and the two axis labels */
static void axes(FILE *f, int right, const char *xlabel, const char *ylabel)
{
    fprintf(f,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n"
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
            L, H - B, right, H - B, L, T, L, H - B);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (L + right) / 2, H - 10);
    rp_html_escape(f, xlabel);
    fprintf(f, "</text>\n<text x=\"14\" y=\"%d\" text-anchor=\"middle\" "
               "transform=\"rotate(-90 14 %d)\">",
            (T + H - B) / 2, (T + H - B) / 2);
    rp_html_escape(f, ylabel);
    fputs("</text>\n", f);
}

/* The value axis: zoomed to the data (padded by at most 10 % of its range, snapped to a
 * round tick when that stays within the budget), ticks at 1/2/5 x 10^k steps. */
struct yaxis {
    double lo, hi;         /* axis ends (log10 of the value when logy) */
    double dlo, dhi;       /* the data's range, same scale */
    int logy;
};

static double nice_step(double range)
{
    double raw = range / 5, mag = pow(10, floor(log10(raw))), norm = raw / mag;
    return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
}

static void range_add(double *lo, double *hi, double v)
{
    if (isnan(v) || isinf(v))
        return;
    *lo = isnan(*lo) || v < *lo ? v : *lo;
    *hi = isnan(*hi) || v > *hi ? v : *hi;
}

static struct yaxis yaxis_fit(double dlo, double dhi, int logy)
{
    struct yaxis a = {0, 1, 0, 1, logy};
    if (isnan(dlo))
        return a;
    if (logy) {
        dlo = log10(dlo > 0 ? dlo : 1e-9);
        dhi = log10(dhi > 0 ? dhi : 1e-9);
    }
    double range = dhi - dlo;
    double span = range > 0 ? range : fabs(dhi) > 0 ? fabs(dhi) * 0.2 : 1;
    double pad = range > 0 ? 0.1 * range : span / 2, step = nice_step(span + 2 * pad);
    double lo = floor(dlo / step) * step, hi = ceil(dhi / step) * step;
    if (range <= 0) {
        /* one value: a round interval around it */
        lo = floor((dlo - pad) / step) * step;
        hi = ceil((dhi + pad) / step) * step;
    }
    a.lo = dlo - lo <= pad ? lo : dlo - pad / 2;
    a.hi = hi - dhi <= pad ? hi : dhi + pad / 2;
    if (!logy && dlo >= 0 && a.lo < 0)
        a.lo = 0;
    a.dlo = dlo;
    a.dhi = dhi;
    return a;
}

static double ymap(const struct yaxis *a, double v)
{
    double x = a->logy ? log10(v > 0 ? v : 1e-300) : v;
    double u = a->hi > a->lo ? (x - a->lo) / (a->hi - a->lo) : 0;
    if (u < 0)
        u = 0;
    if (u > 1)
        u = 1;
    return (H - B) - u * (H - B - T);
}

/* the axis as data-* attributes of the <svg> (read by tests/cli/report.sh) */
static void yaxis_attrs(FILE *f, const struct yaxis *a)
{
    fprintf(f, "<desc data-axis-lo=\"%.9g\" data-axis-hi=\"%.9g\" data-data-lo=\"%.9g\" "
               "data-data-hi=\"%.9g\" data-logy=\"%d\" data-plot-top=\"%d\" "
               "data-plot-bottom=\"%d\">value axis</desc>\n",
            a->lo, a->hi, a->dlo, a->dhi, a->logy, T, H - B);
}

/* a log axis' tick label: 500, 2k, 1.5M, 1G */
static void log_label(FILE *f, double v)
{
    static const char unit[] = "kMGT";
    int k = 0;
    while (k < 4 && fabs(v) >= pow(1000, k + 1) * (1 - 1e-9))
        k++;
    if (k)
        fprintf(f, "%g%c", v / pow(1000, k), unit[k - 1]);
    else
        fprintf(f, "%g", v);
}

static void ytick(FILE *f, const struct yaxis *a, double x, int width, int decimals)
{
    double v = a->logy ? pow(10, x) : x, y = ymap(a, v);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
               "<text class=\"ytick\" data-v=\"%.9g\" x=\"%d\" y=\"%.1f\" "
               "text-anchor=\"end\">",
            L, y, width - R, y, v, L - 4, y + 4);
    if (a->logy)
        log_label(f, v);
    else
        fprintf(f, "%.*f", decimals, x);
    fputs("</text>\n", f);
}

/* The tick positions of an axis (log10 of the value when logy), at most TICKS_MAX, and the
 * decimals a linear axis' labels need. */
#define TICKS_MAX 48
static int tick_values(const struct yaxis *a, double *xs, int *decimals)
{
    int n = 0;
    double step = nice_step(a->hi - a->lo);
    *decimals = 0;
    if (a->logy && step < 1) {
        /* under a decade per tick: 1, 2 and 5 x 10^k */
        for (double k = floor(a->lo); k <= a->hi && n < TICKS_MAX; k++)
            for (int i = 0; i < 3 && n < TICKS_MAX; i++) {
                double x = k + log10((double[]){1, 2, 5}[i]);
                if (x >= a->lo - 1e-9 && x <= a->hi + 1e-9)
                    xs[n++] = x;
            }
        if (n == 0) {
            /* an axis between two of them (3.1 .. 4.5): round values in linear steps */
            double vlo = pow(10, a->lo), vhi = pow(10, a->hi), vs = nice_step(vhi - vlo);
            for (double i = ceil(vlo / vs - 1e-9); i * vs <= vhi * (1 + 1e-9) && n < TICKS_MAX;
                 i++)
                xs[n++] = log10(i * vs);
        }
        return n;
    }
    if (a->logy)
        step = ceil(step);
    /* an axis zoomed into a range far below its values (99.97 .. 100 % of the best) gets
     * coarser ticks, as long as one stays on the axis: labels of more significant digits
     * than that would only repeat the values' leading ones */
    double mag = fmax(fabs(a->lo), fabs(a->hi));
    while (!a->logy && step < 1e-3 * mag &&
           ceil(a->lo / (10 * step) - 1e-9) * 10 * step <= a->hi + step * 1e-9)
        step *= 10;
    *decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    for (double x = ceil(a->lo / step - 1e-9) * step; x <= a->hi + step * 1e-9 && n < TICKS_MAX;
         x += step)
        xs[n++] = fabs(x) < step * 1e-9 ? 0 : x;
    return n;
}

static void yticks(FILE *f, const struct yaxis *a, int width)
{
    yaxis_attrs(f, a);
    double xs[TICKS_MAX];
    int decimals, n = tick_values(a, xs, &decimals);
    for (int i = 0; i < n; i++)
        ytick(f, a, xs[i], width, decimals);
}

static double xmap(double pct)
{
    return L + pct / 100.0 * (W - R - L);
}

/* the reference line, drawn only where the zoomed axis shows it */
static void ref_line(FILE *f, const struct yaxis *a, double v, int width)
{
    double x = a->logy ? log10(v) : v;
    if (isnan(v) || x < a->lo || x > a->hi)
        return;
    double y = ymap(a, v);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" "
               "stroke-dasharray=\"5,4\"/>\n",
            L, y, width - R, y);
}

/* Markers: seven closed shapes centred on 0,0; with ten colours, shape (g + g / 10) % 7
 * gives 70 distinct (colour, shape) pairs. Dash patterns: four, solid first. */
static const char *const shape[] = {
    "M-3.5,0a3.5,3.5 0 1,0 7,0a3.5,3.5 0 1,0 -7,0", "M-3,-3h6v6h-6z", "M0,-4.2L3.8,2.8H-3.8z",
    "M0,-4.3L4.3,0L0,4.3L-4.3,0z", "M0,4.2L3.8,-2.8H-3.8z",
    "M-1.4,-4.2h2.8v2.8h2.8v2.8h-2.8v2.8h-2.8v-2.8h-2.8v-2.8h2.8z",
    "M-4,0L-2,-3.5H2L4,0L2,3.5H-2z"};
static const char *const dash[] = {"", "7,3", "2,2.5", "9,3,2,3"};
#define NSHAPE 7
#define NDASH 4

static void marker(FILE *f, int style, double cx, double cy, const char *color, const char *cls)
{
    fprintf(f, "<path class=\"%s\" transform=\"translate(%.2f,%.2f)\" d=\"%s\" fill=\"%s\" "
               "stroke=\"#fff\" stroke-width=\"0.6\"/>\n",
            cls, cx, cy, shape[style % NSHAPE], color);
}

/* A legend entry: the line sample in the series' dash pattern with its marker, and the name. */
static void legend_entry(FILE *f, int x, int y, int style, const char *color, const char *name)
{
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\" "
               "stroke-dasharray=\"%s\"/>",
            x, y - 3, x + 26, y - 3, color, dash[style % NDASH]);
    marker(f, style, x + 13, y - 3, color, "key");
    fprintf(f, "<text x=\"%d\" y=\"%d\">", x + 31, y + 1);
    rp_html_escape(f, name);
    fputs("</text>\n", f);
}

/* two series of the same values (empty ones draw nothing: they coincide with none) */
static int same_series(const struct rp_series *a, const struct rp_series *b)
{
    return a->n > 0 && a->n == b->n && !memcmp(a->y, b->y, sizeof *a->y * (size_t)a->n);
}

int rp_coincide_note(const struct rp_series *s, int ns, char *buf, size_t n)
{
    size_t len = 0;
    int groups = 0;
    buf[0] = 0;
    for (int i = 0; i < ns; i++) {
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = !same_series(&s[j], &s[i]);
        if (!first)
            continue;
        int same = 0;
        for (int j = i + 1; j < ns; j++) {
            if (!same_series(&s[i], &s[j]))
                continue;
            /* "A = B" for the first, " = C" for the next ones */
            const char *sep = same ? "" : groups ? "; " : "", *head = same ? "" : s[i].name;
            if (len < n)
                len += (size_t)snprintf(buf + len, n - len, "%s%s = %s", sep, head, s[j].name);
            same++;
        }
        groups += same > 0;
    }
    return groups;
}

static void cdf_series(FILE *f, const struct yaxis *a, const struct rp_series *s, int k, int ns)
{
    /* a step function: point i covers [i/n, (i+1)/n) of the models */
    fprintf(f, "<polyline class=\"data\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
               "stroke-dasharray=\"%s\" points=\"",
            s->color, dash[s->style % NDASH]);
    for (int i = 0; i < s->n; i++) {
        double y = ymap(a, s->y[i]);
        fprintf(f, "%.2f,%.2f %.2f,%.2f ", xmap(100.0 * i / s->n), y, xmap(100.0 * (i + 1) / s->n),
                y);
    }
    fputs("\"/>\n", f);
    /* markers staggered within each step (series k at (k + 1) / (ns + 1) of it), so that
     * series on top of each other still show every marker; at most about 40 per series */
    int every = s->n / 40 + 1;
    for (int i = 0; i < s->n; i += every)
        marker(f, s->style, xmap(100.0 * (i + (k + 1.0) / (ns + 1)) / s->n), ymap(a, s->y[i]),
               s->color, "mark");
}

void rp_svg_cdf(FILE *f, const char *title, const char *ylabel, const struct rp_series *s,
                int ns, int logy, double hline)
{
    double lo = NAN, hi = NAN;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++)
            range_add(&lo, &hi, s[k].y[i]);
    struct yaxis a = yaxis_fit(lo, hi, logy);
    char note[256];
    int coincide = rp_coincide_note(s, ns, note, sizeof note);
    head(f, title, W, H + 18 * ((ns + 2) / 3) + (coincide ? 18 : 0));
    yticks(f, &a, W);
    for (int i = 0; i <= 4; i++)
        fprintf(f, "<text class=\"xtick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
                xmap(25.0 * i), H - B + 14, 25 * i);
    axes(f, W - R, "% of models", ylabel);
    ref_line(f, &a, hline, W);
    for (int k = 0; k < ns; k++)
        if (s[k].n > 0)
            cdf_series(f, &a, &s[k], k, ns);
    for (int k = 0; k < ns; k++)
        legend_entry(f, L + (k % 3) * 150, H + 4 + 18 * (k / 3), s[k].style, s[k].color,
                     s[k].name);
    if (coincide) {
        fprintf(f, "<text class=\"coincide\" x=\"%d\" y=\"%d\">lines coincide: ", L,
                H + 5 + 18 * ((ns + 2) / 3));
        rp_html_escape(f, note);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
}

/* One bar of value v from the baseline (a value on the axis) to v. */
static void bar(FILE *f, const struct yaxis *a, double x, double w, double v, double base,
                const char *color)
{
    double y = ymap(a, v), y0 = ymap(a, base);
    fprintf(f, "<rect class=\"data\" data-v=\"%.9g\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" "
               "height=\"%.2f\" fill=\"%s\"><title>%.4g</title></rect>\n",
            v, x, y < y0 ? y : y0, w, fabs(y0 - y), color, v);
}

/* the bars' baseline: the reference value when the axis shows it, else the axis bottom */
static double bar_base(const struct yaxis *a, double ref)
{
    if (!isnan(ref) && ref >= a->lo && ref <= a->hi)
        return ref;
    return a->lo;
}

void rp_svg_bars(FILE *f, const char *title, const char *xlabel, const char *ylabel,
                 const char *const *cats, const double *vals, int n, const char *color,
                 int percent_labels)
{
    head(f, title, W, H);
    double lo = NAN, hi = NAN;
    for (int i = 0; i < n; i++)
        range_add(&lo, &hi, vals[i]);
    struct yaxis a = yaxis_fit(lo, hi, 0);
    yticks(f, &a, W);
    axes(f, W - R, xlabel, ylabel);
    double slot = n ? (double)(W - R - L) / n : 0, base = bar_base(&a, 0);
    for (int i = 0; i < n; i++) {
        if (isnan(vals[i]))
            continue;
        double x = L + slot * i + slot * 0.15, w = slot * 0.7, y = ymap(&a, vals[i]);
        bar(f, &a, x, w, vals[i], base, color);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f%s</text>\n",
                x + w / 2, y - 3, vals[i], percent_labels ? "%" : "");
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x + w / 2, H - B + 14);
        rp_html_escape(f, cats[i]);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
}

static void grouped_legend(FILE *f, const char *const *snames, const char *const *colors,
                           int nser)
{
    for (int s = 0; s < nser; s++) {
        int lx = L + 10 + (s % 3) * 170, ly = H + 44 + 18 * (s / 3);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">",
                lx, ly - 9, colors[s], lx + 14, ly);
        rp_html_escape(f, snames[s]);
        fputs("</text>\n", f);
    }
}

void rp_svg_grouped(FILE *f, const char *title, const char *ylabel, const char *const *cats,
                    int ncat, const char *const *snames, const char *const *colors, int nser,
                    const double *vals, double hline)
{
    int w = ncat * (nser * 14 + 20) + L + R;
    if (w < W)
        w = W;
    int h = H + 18 * ((nser + 2) / 3) + 40;
    head(f, title, w, h);
    double lo = NAN, hi = NAN;
    for (int i = 0; i < ncat * nser; i++)
        range_add(&lo, &hi, vals[i]);
    struct yaxis a = yaxis_fit(lo, hi, 0);
    yticks(f, &a, w);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n", L, H - B,
            w - R, H - B);
    fprintf(f,
            "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">",
            (T + H - B) / 2, (T + H - B) / 2);
    rp_html_escape(f, ylabel);
    fputs("</text>\n", f);
    ref_line(f, &a, hline, w);
    double base = bar_base(&a, hline);
    double slot = (double)(w - R - L) / (ncat ? ncat : 1), bw = (slot - 12) / (nser ? nser : 1);
    for (int c = 0; c < ncat; c++) {
        for (int s = 0; s < nser; s++)
            if (!isnan(vals[s * ncat + c]))
                bar(f, &a, L + slot * c + 6 + bw * s, bw * 0.9, vals[s * ncat + c], base,
                    colors[s]);
        double cx = L + slot * c + slot / 2;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" "
                   "transform=\"rotate(-35 %.1f %d)\">",
                cx, H - B + 12, cx, H - B + 12);
        rp_html_escape(f, cats[c]);
        fputs("</text>\n", f);
    }
    grouped_legend(f, snames, colors, nser);
    fputs("</svg>\n", f);
}

/* The scatter's square plot area: both axes share the value axis (log10), the x axis maps
 * it from the left edge L over SIDE pixels as the y axis does from the bottom up. */
#define SIDE (H - B - T)
#define LEGEND_ROWS 14
static double smap(const struct yaxis *a, double v)
{
    return L + ((H - B) - ymap(a, v));
}

/* x tick labels of the scatter, at the columns smap gives */
static void xticks(FILE *f, const struct yaxis *a)
{
    double xs[TICKS_MAX];
    int decimals, n = tick_values(a, xs, &decimals);
    for (int i = 0; i < n; i++) {
        double v = pow(10, xs[i]), x = smap(a, v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                   "<text class=\"xtick\" data-v=\"%.9g\" x=\"%.1f\" y=\"%d\" "
                   "text-anchor=\"middle\">",
                x, T, x, H - B, v, x, H - B + 14);
        log_label(f, v);
        fputs("</text>\n", f);
    }
}

/* The band where |x - y| / y <= e, i.e. y between x / (1 + e) and x / (1 - e): the square
 * cut by two lines parallel to the diagonal (log axes), as a hexagon. */
static void band(FILE *f, const struct yaxis *a, double e, const char *fill)
{
    double lo = a->lo, hi = a->hi, c1 = -log10(1 + e), c2 = -log10(1 - e);
    double px[6] = {lo, fmin(hi, lo - c1), hi, hi, fmax(lo, hi - c2), lo};
    double py[6] = {lo, lo, fmax(lo, hi + c1), hi, hi, fmin(hi, lo + c2)};
    fputs("<polygon points=\"", f);
    for (int i = 0; i < 6; i++)
        fprintf(f, "%.2f,%.2f ", smap(a, pow(10, px[i])), ymap(a, pow(10, py[i])));
    fprintf(f, "\" fill=\"%s\"/>\n", fill);
}

void rp_svg_scatter(FILE *f, const char *title, const char *xlabel, const char *ylabel,
                    const struct rp_point *p, int n, const char *const *groups, int ngroups)
{
    double lo = NAN, hi = NAN;
    for (int i = 0; i < n; i++) {
        range_add(&lo, &hi, p[i].x);
        range_add(&lo, &hi, p[i].y);
    }
    struct yaxis a = yaxis_fit(lo, hi, 1);
    /* the legend: up to two columns of LEGEND_ROWS; beyond that the last entry says how
     * many models it leaves out (every point names its model on hover) */
    int cols = ngroups > LEGEND_ROWS ? 2 : 1, rows = (ngroups + cols - 1) / cols;
    if (rows > LEGEND_ROWS)
        rows = LEGEND_ROWS;
    int shown = ngroups > cols * rows ? cols * rows - 1 : ngroups;
    head(f, title, W, H);
    fprintf(f, "<desc data-kind=\"scatter\" data-axis-lo=\"%.9g\" data-axis-hi=\"%.9g\" "
               "data-data-lo=\"%.9g\" data-data-hi=\"%.9g\" data-logy=\"1\" data-plot-top=\"%d\" "
               "data-plot-bottom=\"%d\" data-plot-left=\"%d\" data-plot-right=\"%d\">value "
               "axes</desc>\n",
            a.lo, a.hi, a.dlo, a.dhi, T, H - B, L, L + SIDE);
    band(f, &a, 0.25, "#e4edf9");
    band(f, &a, 0.10, "#c4d6f0");
    double xs[TICKS_MAX];
    int decimals, nt = tick_values(&a, xs, &decimals);
    for (int i = 0; i < nt; i++)
        ytick(f, &a, xs[i], L + SIDE + R, decimals);
    xticks(f, &a);
    fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#555\"/>\n",
            smap(&a, pow(10, a.lo)), ymap(&a, pow(10, a.lo)), smap(&a, pow(10, a.hi)),
            ymap(&a, pow(10, a.hi)));
    axes(f, L + SIDE, xlabel, ylabel);
    for (int i = 0; i < n; i++) {
        int g = p[i].group, style = g + g / 10;
        fprintf(f, "<path class=\"data\" data-x=\"%.9g\" data-y=\"%.9g\" "
                   "transform=\"translate(%.2f,%.2f)\" d=\"%s\" fill=\"%s\" fill-opacity=\"0.85\" "
                   "stroke=\"#fff\" stroke-width=\"0.6\"><title>",
                p[i].x, p[i].y, smap(&a, p[i].x), ymap(&a, p[i].y), shape[style % NSHAPE],
                rp_palette[g % 10]);
        rp_html_escape(f, p[i].label);
        fprintf(f, ": predicted %.4g, simulated %.4g</title></path>\n", p[i].x, p[i].y);
    }
    /* the legend right of the plot: the reference lines, then one marker per group */
    int lx = L + SIDE + 24, ly = T + 8;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>"
               "<text x=\"%d\" y=\"%d\">y = x</text>\n"
               "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"9\" fill=\"#c4d6f0\"/>"
               "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"9\" fill=\"#e4edf9\"/>"
               "<text x=\"%d\" y=\"%d\">error &#177;10%% / &#177;25%%</text>\n",
            lx, ly - 3, lx + 14, ly - 3, lx + 18, ly + 1, lx, ly + 9, lx + 14, ly + 9, lx + 32,
            ly + 17);
    for (int g = 0; g < shown; g++) {
        int x = lx + (g / rows) * 105, y = ly + 34 + 16 * (g % rows), style = g + g / 10;
        marker(f, style, x + 6, y - 3, rp_palette[g % 10], "key");
        fprintf(f, "<text x=\"%d\" y=\"%d\">", x + 14, y + 1);
        rp_html_escape(f, groups[g]);
        fputs("</text>\n", f);
    }
    if (shown < ngroups)
        fprintf(f, "<text class=\"more\" x=\"%d\" y=\"%d\">+%d more (hover a point)</text>\n",
                lx + (shown / rows) * 105, ly + 35 + 16 * (shown % rows), ngroups - shown);
    fputs("</svg>\n", f);
}
