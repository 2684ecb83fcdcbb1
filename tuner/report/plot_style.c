/*
 * tuner/report/plot_style.c: the figures' look (plot_style.h). Sizes are worked
 * out in pixels from an average character width of the fonts, generous
 * rather than tight, and given to gnuplot as screen fractions, so that the
 * same figure keeps the same plot area in PNG and SVG.
 */
#include "plot_style.h"

#include <string.h>

#define PLOT_FONT	   "sans,10"
#define PLOT_TITLE_FONT	   "sans,12"
/* Average character widths of the two fonts, in pixels: generous, so that
 * a title wrapped to them and a key laid out with them fit. */
#define PLOT_CHAR_PX	   6.6
#define PLOT_TITLE_CHAR_PX 9.0
/* A panel's margins: tic labels and the y label on the left, tic labels
 * and the x label below, the panel's own title above. */
#define PANEL_LEFT	   72
#define PANEL_RIGHT	   22
#define PANEL_TOP	   28
#define PANEL_BOTTOM	   52
#define KEY_ROW_PX	   18

/* Okabe and Ito's palette ("Color Universal Design", 2008), which reads
 * apart under the common colour blindnesses; black and yellow (faint on
 * white) last. Each colour has its own marker, so lines differ in grey too;
 * the open circle (pt 6) is left for the indifference set's rings. */
static const struct {
	const char *rgb;
	int pt;
} plot_lt[] = {
	{ "#0072B2", 7 },  { "#D55E00", 5 }, { "#009E73", 9 }, { "#CC79A7", 11 },
	{ "#E69F00", 13 }, { "#56B4E9", 4 }, { "#000000", 8 }, { "#F0E442", 12 },
};

void plot_style_put(FILE *gp)
{
	size_t n = sizeof(plot_lt) / sizeof(plot_lt[0]);

	fputs("set datafile missing '?'\nset grid lc rgb '#d9d9d9' lw 1 dt solid\n", gp);
	for (size_t i = 0; i < n; i++)
		fprintf(gp, "set linetype %zu lc rgb '%s' lw 2 pt %d ps 1.2 dt solid\n", i + 1,
			plot_lt[i].rgb, plot_lt[i].pt);
	fprintf(gp, "set linetype cycle %zu\n", n);
}

/* title wrapped at width characters (words kept whole unless one is
 * longer), as the body of a gnuplot double-quoted string. Returns the
 * lines. */
static int wrap_title(const char *title, size_t width, char *out, size_t cap)
{
	size_t o = 0, col = 0;
	int lines = 1;

	while (*title && o + 8 < cap) {
		size_t word = strcspn(title, " ");

		if (col && col + 1 + word > width) {
			memcpy(out + o, "\\n", 2);
			o += 2;
			col = 0;
			lines++;
		} else if (col) {
			out[o++] = ' ';
			col++;
		}
		for (size_t i = 0; i < word && o + 4 < cap; i++) {
			if (title[i] == '"' || title[i] == '\\')
				out[o++] = '\\';
			out[o++] = title[i];
			col++;
		}
		title += word;
		title += strspn(title, " ");
	}
	out[o] = '\0';
	return lines;
}

void plot_frame_layout(struct plot_frame *fr, size_t npanels, const char *title, size_t nkeys,
		       size_t longest, const char *note)
{
	int lines, entry_w;

	if (!npanels)
		npanels = 1;
	fr->cols = npanels <= 3 ? (int)npanels : npanels == 4 ? 2 : 3;
	fr->rows = ((int)npanels + fr->cols - 1) / fr->cols;
	fr->panel_w = fr->cols == 1 ? 900 : 460;
	fr->panel_h = fr->cols == 1 ? 420 : 340;
	fr->w = fr->cols * fr->panel_w;
	lines = wrap_title(title, (size_t)((fr->w - 40) / PLOT_TITLE_CHAR_PX), fr->title,
			   sizeof(fr->title));
	fr->title_h = 20 + 20 * lines;
	/* Key entries side by side as many as fit: a sample, a gap, the text. */
	entry_w = (int)(longest * PLOT_CHAR_PX) + 100;
	fr->key_cols = nkeys ? (fr->w - 40) / entry_w : 0;
	if (nkeys && fr->key_cols < 1)
		fr->key_cols = 1;
	if ((size_t)fr->key_cols > nkeys)
		fr->key_cols = (int)nkeys;
	fr->key_rows = nkeys ? ((int)nkeys + fr->key_cols - 1) / fr->key_cols : 0;
	fr->key_h = nkeys ? 12 + KEY_ROW_PX * fr->key_rows : 0;
	fr->note_h = 0;
	if (note && *note)
		fr->note_h = 8 + KEY_ROW_PX * wrap_title(note,
							 (size_t)((fr->w - 40) / PLOT_CHAR_PX),
							 fr->note, sizeof(fr->note));
	fr->h = fr->title_h + fr->rows * fr->panel_h + fr->key_h + fr->note_h;
}

void plot_frame_begin(FILE *gp, const struct plot_frame *fr, const char *stem, int svg)
{
	if (svg)
		fprintf(gp,
			"set terminal svg size %d,%d fixed noenhanced font '%s' background "
			"'#ffffff'\n",
			fr->w, fr->h, PLOT_FONT);
	else
		fprintf(gp,
			"set terminal pngcairo size %d,%d noenhanced font '%s' background "
			"'#ffffff'\n",
			fr->w, fr->h, PLOT_FONT);
	fprintf(gp, "set output '%s.%s'\nset multiplot\n", stem, svg ? "svg" : "png");
	/* The title's first line 16 px from the top; gnuplot centres a
	 * label's lines on its position, so the block is moved down by half. */
	fprintf(gp, "set label 1001 \"%s\" at screen 0.5, screen %.4f center font '%s'\n",
		fr->title, 1.0 - (fr->title_h / 2.0 + 2) / fr->h, PLOT_TITLE_FONT);
	if (fr->note_h)
		fprintf(gp, "set label 1002 \"%s\" at screen 0.5, screen %.4f center\n", fr->note,
			(fr->note_h / 2.0 + 2) / fr->h);
}

void plot_frame_panel(FILE *gp, const struct plot_frame *fr, size_t i, const char *ylabel)
{
	int c = (int)i % fr->cols, r = (int)i / fr->cols;
	double x0 = c * fr->panel_w, y0 = fr->title_h + r * fr->panel_h;

	fprintf(gp,
		"set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
		"set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
		(x0 + PANEL_LEFT) / fr->w, (x0 + fr->panel_w - PANEL_RIGHT) / fr->w,
		1.0 - (y0 + PANEL_TOP) / fr->h, 1.0 - (y0 + fr->panel_h - PANEL_BOTTOM) / fr->h);
	if (c == 0 && ylabel)
		fprintf(gp, "set ylabel \"%s\"\n", ylabel);
	else
		fputs("unset ylabel\n", gp);
	if (i == 0 && fr->key_rows)
		/* gnuplot gives every column the longest entry's width and fills
		 * them top to bottom: key_rows rows make key_cols columns. */
		fprintf(gp,
			"set key at screen 0.5, screen %.4f center top vertical maxrows %d "
			"Left reverse samplen 2.5 spacing 1.1 width 0 noopaque nobox\n",
			(fr->note_h + fr->key_h - 6.0) / fr->h, fr->key_rows);
	else
		fputs("unset key\n", gp);
}

void plot_frame_drawn(FILE *gp, size_t i)
{
	if (i == 0)
		fputs("unset label 1001\nunset label 1002\n", gp);
}

void plot_frame_end(FILE *gp)
{
	fputs("unset multiplot\nunset output\n", gp);
}
