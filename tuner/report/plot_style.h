/*
 * tuner/report/plot_style.h: the one look of sweetspot's figures, in one place
 * (plot.c draws what; this says how). Okabe and Ito's colour-blind-safe
 * palette, each colour with a marker of its own; a canvas laid out in
 * pixels before gnuplot draws it: the title wrapped to the canvas width
 * above, one or more panels (small multiples) on a grid, each with the
 * same margins, and the key in columns in a strip below them, so that
 * neither the key nor the title takes width from the plots or is clipped.
 */
#ifndef SWEETSPOT_PLOT_STYLE_H
#define SWEETSPOT_PLOT_STYLE_H

#include <stddef.h>
#include <stdio.h>

/* At most this many panels in one figure. */
#define PLOT_PANELS 8

/* A figure's canvas, in pixels. */
struct plot_frame {
	int w, h;	/* the canvas */
	int cols, rows; /* the panels' grid */
	int panel_w, panel_h;
	int title_h, key_h, note_h;
	int key_cols, key_rows;
	char title[768]; /* wrapped: lines joined by gnuplot's "\n" */
	char note[768];	 /* below the key, wrapped as the title */
};

/* The palette as gnuplot linetypes 1..8 and the grid; once per script. */
void plot_style_put(FILE *gp);

/* Lays out a figure of npanels panels titled title (one line of text),
 * with a key of nkeys entries whose longest title has longest characters
 * (nkeys 0: no key), and a note below it (NULL: none). */
void plot_frame_layout(struct plot_frame *fr, size_t npanels, const char *title, size_t nkeys,
		       size_t longest, const char *note);

/* Opens the figure's output stem.png (svg 0) or stem.svg (svg 1) and its
 * multiplot, with the title on top. */
void plot_frame_begin(FILE *gp, const struct plot_frame *fr, const char *stem, int svg);
/* The margins of panel i (row by row), with the key in the strip below
 * when key is set (for the first panel only: the panels share one key),
 * and the y label on the left column only. ylabel may be NULL. */
void plot_frame_panel(FILE *gp, const struct plot_frame *fr, size_t i, const char *ylabel);
/* After a panel's plot command: the title is drawn once. */
void plot_frame_drawn(FILE *gp, size_t i);
void plot_frame_end(FILE *gp);

#endif
