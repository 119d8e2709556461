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

static double ymap(double v, double ymin, double ymax, int logy)
{
    double a, b, x;
    if (logy) {
        a = log10(ymin);
        b = log10(ymax);
        x = log10(v < ymin ? ymin : v);
    } else {
        a = ymin;
        b = ymax;
        x = v;
    }
    double u = b > a ? (x - a) / (b - a) : 0;
    if (u < 0)
        u = 0;
    if (u > 1)
        u = 1;
    return (H - B) - u * (H - B - T);
}

static void yticks(FILE *f, double ymin, double ymax, int logy)
{
    if (logy) {
        for (double v = pow(10, floor(log10(ymin))); v <= ymax * 1.0001; v *= 10) {
            if (v < ymin * 0.999)
                continue;
            double y = ymap(v, ymin, ymax, 1);
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                       "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                    L, y, W - R, y, L - 4, y + 4, v);
        }
        return;
    }
    for (int i = 0; i <= 5; i++) {
        double v = ymin + (ymax - ymin) * i / 5.0, y = ymap(v, ymin, ymax, 0);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
                L, y, W - R, y, L - 4, y + 4, v);
    }
}

static double xmap(double pct)
{
    return L + pct / 100.0 * (W - R - L);
}

void rp_svg_cdf(FILE *f, const char *title, const char *ylabel, const struct rp_series *s,
                int ns, double ymin, double ymax, int logy, double hline)
{
    head(f, title, W, H + 18 * ((ns + 2) / 3));
    yticks(f, ymin, ymax, logy);
    for (int i = 0; i <= 4; i++)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
                xmap(25.0 * i), H - B + 14, 25 * i);
    axes(f, "% of models", ylabel);
    if (!isnan(hline)) {
        double y = ymap(hline, ymin, ymax, logy);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" "
                   "stroke-dasharray=\"5,4\"/>\n",
                L, y, W - R, y);
    }
    for (int k = 0; k < ns; k++) {
        if (s[k].n <= 0)
            continue;
        /* a step function: point i covers [i/n, (i+1)/n) of the models */
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
                s[k].color, s[k].dashed ? " stroke-dasharray=\"6,3\"" : "");
        for (int i = 0; i < s[k].n; i++) {
            double y = ymap(s[k].y[i], ymin, ymax, logy);
            fprintf(f, "%.1f,%.1f %.1f,%.1f ", xmap(100.0 * i / s[k].n), y,
                    xmap(100.0 * (i + 1) / s[k].n), y);
        }
        fputs("\"/>\n", f);
    }
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

void rp_svg_bars(FILE *f, const char *title, const char *xlabel, const char *ylabel,
                 const char *const *cats, const double *vals, int n, const char *color,
                 int percent_labels)
{
    head(f, title, W, H);
    double ymax = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(vals[i]) && vals[i] > ymax)
            ymax = vals[i];
    ymax = ymax > 0 ? ymax * 1.15 : 1;
    yticks(f, 0, ymax, 0);
    axes(f, xlabel, ylabel);
    double slot = n ? (double)(W - R - L) / n : 0;
    for (int i = 0; i < n; i++) {
        double v = isnan(vals[i]) ? 0 : vals[i];
        double x = L + slot * i + slot * 0.15, w = slot * 0.7, y = ymap(v, 0, ymax, 0);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                x, y, w, (H - B) - y, color);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f%s</text>\n",
                x + w / 2, y - 3, v, percent_labels ? "%" : "");
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x + w / 2, H - B + 14);
        rp_html_escape(f, cats[i]);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
}

void rp_svg_grouped(FILE *f, const char *title, const char *ylabel, const char *const *cats,
                    int ncat, const char *const *snames, const char *const *colors, int nser,
                    const double *vals, double hline)
{
    int w = ncat * (nser * 14 + 20) + L + R;
    if (w < W)
        w = W;
    int h = H + 18 * ((nser + 2) / 3) + 40;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
            "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
            "<text x=\"%d\" y=\"18\" text-anchor=\"middle\" font-size=\"13\" "
            "font-weight=\"bold\">",
            w, h, w, h, w, h, w / 2);
    rp_html_escape(f, title);
    fputs("</text>\n", f);
    double ymax = 0;
    for (int i = 0; i < ncat * nser; i++)
        if (!isnan(vals[i]) && vals[i] > ymax)
            ymax = vals[i];
    ymax = ymax > 0 ? ymax * 1.1 : 1;
    for (int i = 0; i <= 5; i++) {
        double v = ymax * i / 5.0, y = ymap(v, 0, ymax, 0);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
                L, y, w - R, y, L - 4, y + 4, v);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n", L, H - B,
            w - R, H - B);
    fprintf(f, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">",
            (T + H - B) / 2, (T + H - B) / 2);
    rp_html_escape(f, ylabel);
    fputs("</text>\n", f);
    if (!isnan(hline)) {
        double y = ymap(hline, 0, ymax, 0);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" "
                   "stroke-dasharray=\"5,4\"/>\n", L, y, w - R, y);
    }
    double slot = (double)(w - R - L) / (ncat ? ncat : 1), bw = (slot - 12) / (nser ? nser : 1);
    for (int c = 0; c < ncat; c++) {
        for (int s = 0; s < nser; s++) {
            double v = vals[s * ncat + c];
            if (isnan(v))
                continue;
            double x = L + slot * c + 6 + bw * s, y = ymap(v, 0, ymax, 0);
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                       "fill=\"%s\"><title>%.4g</title></rect>\n",
                    x, y, bw * 0.9, (H - B) - y, colors[s], v);
        }
        double cx = L + slot * c + slot / 2;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" "
                   "transform=\"rotate(-35 %.1f %d)\">",
                cx, H - B + 12, cx, H - B + 12);
        rp_html_escape(f, cats[c]);
        fputs("</text>\n", f);
    }
    for (int s = 0; s < nser; s++) {
        int lx = L + 10 + (s % 3) * 170, ly = H + 44 + 18 * (s / 3);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">",
                lx, ly - 9, colors[s], lx + 14, ly);
        rp_html_escape(f, snames[s]);
        fputs("</text>\n", f);
    }
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
