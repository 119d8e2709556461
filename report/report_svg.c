/* report/report_svg: inline SVG plots (CDFs, bar charts, grouped bars, a heatmap). */
#include <math.h>
#include <stdio.h>

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

static void axes(FILE *f, const char *xlabel, const char *ylabel)
{
    fprintf(f,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n"
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
            L, H - B, W - R, H - B, L, T, L, H - B);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (L + W - R) / 2, H - 10);
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

static void ytick(FILE *f, const struct yaxis *a, double x, int width, int decimals)
{
    double v = a->logy ? pow(10, x) : x, y = ymap(a, v);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
               "<text class=\"ytick\" data-v=\"%.9g\" x=\"%d\" y=\"%.1f\" "
               "text-anchor=\"end\">",
            L, y, width - R, y, v, L - 4, y + 4);
    if (a->logy)
        fprintf(f, "%g", v);
    else
        fprintf(f, "%.*f", decimals, x);
    fputs("</text>\n", f);
}

static void yticks(FILE *f, const struct yaxis *a, int width)
{
    yaxis_attrs(f, a);
    double step = nice_step(a->hi - a->lo);
    if (a->logy && step < 1) {
        /* under a decade per tick: 1, 2 and 5 x 10^k */
        int n = 0;
        for (double k = floor(a->lo); k <= a->hi; k++)
            for (int i = 0; i < 3; i++) {
                double x = k + log10((double[]){1, 2, 5}[i]);
                if (x >= a->lo - 1e-9 && x <= a->hi + 1e-9) {
                    ytick(f, a, x, width, 0);
                    n++;
                }
            }
        if (n == 0) {
            /* an axis between two of them (3.1 .. 4.5): round values in linear steps */
            double vlo = pow(10, a->lo), vhi = pow(10, a->hi), vs = nice_step(vhi - vlo);
            for (double i = ceil(vlo / vs - 1e-9); i * vs <= vhi * (1 + 1e-9); i++)
                ytick(f, a, log10(i * vs), width, 0);
        }
        return;
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
    int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    for (double x = ceil(a->lo / step - 1e-9) * step; x <= a->hi + step * 1e-9; x += step)
        ytick(f, a, fabs(x) < step * 1e-9 ? 0 : x, width, decimals);
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

static void cdf_series(FILE *f, const struct yaxis *a, const struct rp_series *s)
{
    /* a step function: point i covers [i/n, (i+1)/n) of the models */
    fprintf(f, "<polyline class=\"data\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
               "points=\"",
            s->color, s->dashed ? " stroke-dasharray=\"6,3\"" : "");
    for (int i = 0; i < s->n; i++) {
        double y = ymap(a, s->y[i]);
        fprintf(f, "%.2f,%.2f %.2f,%.2f ", xmap(100.0 * i / s->n), y, xmap(100.0 * (i + 1) / s->n),
                y);
    }
    fputs("\"/>\n", f);
}

void rp_svg_cdf(FILE *f, const char *title, const char *ylabel, const struct rp_series *s,
                int ns, int logy, double hline)
{
    double lo = NAN, hi = NAN;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++)
            range_add(&lo, &hi, s[k].y[i]);
    struct yaxis a = yaxis_fit(lo, hi, logy);
    head(f, title, W, H + 18 * ((ns + 2) / 3));
    yticks(f, &a, W);
    for (int i = 0; i <= 4; i++)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
                xmap(25.0 * i), H - B + 14, 25 * i);
    axes(f, "% of models", ylabel);
    ref_line(f, &a, hline, W);
    for (int k = 0; k < ns; k++)
        if (s[k].n > 0)
            cdf_series(f, &a, &s[k]);
    for (int k = 0; k < ns; k++) {
        int lx = L + 10 + (k % 3) * 150, ly = H + 4 + 18 * (k / 3);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">",
                lx, ly - 4, s[k].color, lx + 18, ly + 1);
        rp_html_escape(f, s[k].name);
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
    axes(f, xlabel, ylabel);
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

void rp_svg_heatmap(FILE *f, const char *title, const int heat[5][5])
{
    int cw = 44, x0 = 90, y0 = 40, hh = y0 + 5 * cw + 60, ww = x0 + 5 * cw + 40;
    head(f, title, ww, hh);
    int mx = 0;
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++)
            if (heat[x][y] > mx)
                mx = heat[x][y];
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++) {
            /* y bin 0 (fastest) at the bottom */
            int px = x0 + x * cw, py = y0 + (4 - y) * cw;
            double u = mx ? (double)heat[x][y] / mx : 0;
            int shade = 255 - (int)(u * 200);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                       "fill=\"rgb(%d,%d,255)\" stroke=\"#fff\"/>"
                       "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%d</text>\n",
                    px, py, cw, cw, shade, shade, px + cw / 2, py + cw / 2 + 4,
                    u > 0.6 ? "#fff" : "#000", heat[x][y]);
        }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\" "
               "stroke-dasharray=\"5,4\"/>\n",
            x0, y0 + 5 * cw, x0 + 5 * cw, y0);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">predicted cost (min .. max)</text>\n",
            x0 + 5 * cw / 2, y0 + 5 * cw + 20);
    fprintf(f, "<text x=\"30\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 30 %d)\">"
               "simulated time (min .. max)</text>\n",
            y0 + 5 * cw / 2, y0 + 5 * cw / 2);
    fputs("</svg>\n", f);
}
