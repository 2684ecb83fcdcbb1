/* tests/unit/plot_style-t.c: the figures' layout. Titles wrap at words to
 * the canvas and keep their quotes escaped; the key gets as many columns
 * as fit and the rows it needs, the canvas grows by them; panels sit on a
 * grid with the same margins, inside the canvas, and the plots take at
 * least 60% of its width whatever the key and the title hold. */
#include "tap.h"
#include "plot_style.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The lines of a wrapped title (joined by the two characters "\n"). */
static int title_lines(const struct plot_frame *fr, size_t *longest)
{
	const char *p = fr->title, *nl;
	int n = 0;

	*longest = 0;
	for (;; p = nl + 2) {
		nl = strstr(p, "\\n");
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		n++;
		if (len > *longest)
			*longest = len;
		if (!nl)
			return n;
	}
}

/* The screen fractions of the margins plot_frame_panel() writes. */
struct margins {
	double l, r, t, b;
};

static struct margins panel(const struct plot_frame *fr, size_t i)
{
	char buf[2048];
	struct margins m = { -1, -1, -1, -1 };
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	plot_frame_panel(f, fr, i, "y");
	fclose(f);
	sscanf(strstr(buf, "lmargin"), "lmargin at screen %lf", &m.l);
	sscanf(strstr(buf, "rmargin"), "rmargin at screen %lf", &m.r);
	sscanf(strstr(buf, "tmargin"), "tmargin at screen %lf", &m.t);
	sscanf(strstr(buf, "bmargin"), "bmargin at screen %lf", &m.b);
	return m;
}

int main(void)
{
	struct plot_frame fr, wide;
	const char *t =
		"bcast (direct) at 4M: offload efficiency against workers, one line per WPN, "
		"median and 95% CI (the DPU-Bench paper's figure), and a \"quoted\" word";
	size_t longest;
	double area;

	plan(17);

	plot_frame_layout(&fr, 1, "short", 0, 0, NULL);
	is_int(fr.w, 900, "one panel: 900 px wide");
	is_str(fr.title, "short", "a short title stays one line");
	is_int(fr.key_h, 0, "no key, no strip");

	plot_frame_layout(&fr, 1, t, 4, 10, NULL);
	ok(title_lines(&fr, &longest) == 2 && longest * 9 <= (size_t)fr.w - 40,
	   "a long title wraps into lines that fit (%s)", fr.title);
	ok(strstr(fr.title, "a \\\"quoted\\\" word") != NULL, "its quotes escaped for gnuplot");
	ok(!strstr(fr.title, " \\n") && !strstr(fr.title, "\\n "), "wrapped at a space, none kept");
	is_int(fr.key_rows, 1, "4 short entries: one row");
	is_int(fr.key_cols, 4, "in 4 columns");

	plot_frame_layout(&wide, 1, t, 4, 80, NULL);
	ok(wide.key_cols * (80 * 6.6 + 100) <= wide.w, "long entries: the columns that fit (%d)",
	   wide.key_cols);
	ok(wide.h > fr.h && wide.key_rows * wide.key_cols >= 4,
	   "the canvas grows by the rows needed");

	plot_frame_layout(&fr, 2, t, 9, 12, "a note under the key");
	is_int(fr.cols * fr.rows, 2, "two panels side by side");
	{
		struct margins a = panel(&fr, 0), b = panel(&fr, 1);

		ok(a.l > 0 && a.r < b.l && b.r < 1 && a.b > 0 && a.t < 1,
		   "inside the canvas, apart");
		ok(a.t == b.t && a.b == b.b && fabs((a.r - a.l) - (b.r - b.l)) < 1e-3,
		   "with the same margins");
		area = (a.r - a.l) + (b.r - b.l);
		ok(area >= 0.6, "the plots take %.0f%% of the width", area * 100);
		ok(a.b * fr.h >= fr.key_h + fr.note_h, "the key and the note fit below them");
	}

	plot_frame_layout(&fr, 5, t, 3, 20, NULL);
	is_int(fr.cols * 10 + fr.rows, 32, "five panels: 3 columns, 2 rows");
	{
		struct margins a = panel(&fr, 0), e = panel(&fr, 4);

		ok(e.t < a.b && e.b > 0 && e.l == panel(&fr, 1).l,
		   "the second row below the first");
	}
	return done_testing();
}
