/* tests/unit/mpich-t.c: reading MPICH's algorithm names from mpivars'
 * descriptions (tuner/export/mpich.c): the aligned list with its line breaks
 * dropped, as MPICH 4.0.2 prints it, and lists that are not one. */
#include "tap.h"

#include "error.h"
#include "mpich.h"

#include <stdlib.h>
#include <string.h>

static const char bcast[] =
	"Variable to select bcast algorithmauto - Internal algorithm selection (can be overridden "
	"with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)binomial                                - "
	"Force Binomial Treenb                                      - Force nonblocking "
	"algorithmsmp"
	"                                     - Force smp "
	"algorithmscatter_recursive_doubling_allgather"
	"    - Force Scatter Recursive-Doubling Allgatherscatter_ring_allgather                  - "
	"Force Scatter Ring";

static char *joined(const struct strvec *v)
{
	char *s = strvec_join_quoted(v);

	return s;
}

int main(void)
{
	struct strvec n = STRVEC_INIT;
	char *s, *text;

	plan(11);
	is_int(mpich_parse_description(bcast, &n), 5, "bcast: 5 algorithms");
	s = joined(&n);
	is_str(s, "binomial nb smp scatter_recursive_doubling_allgather scatter_ring_allgather",
	       "in MPICH's order, without auto");
	free(s);
	strvec_clear(&n);
	is_int(mpich_parse_description(
		       "Variable to select gather algorithmauto - Internal algorithm "
		       "selection (x)binomial - Force binomial algorithmnb       - "
		       "Force nonblocking algorithm",
		       &n),
	       2, "gather: 2, padded to one width");
	s = joined(&n);
	is_str(s, "binomial nb", "binomial nb");
	free(s);
	strvec_clear(&n);
	is_int(mpich_parse_description("k value for tree based ibcast", &n), -1,
	       "not a list: refused");
	is_int(mpich_parse_description("Select algorithmauto - Internal (x)a - Force ab  - Force",
				       &n),
	       -1, "a list that is not aligned: refused");
	text = malloc(sizeof(bcast) + 200);
	strcpy(text,
	       "344 MPI Control Variables\n\tMPIR_CVAR_BCAST_MIN_PROCS       =8\tSCOPE_ALL_EQ\tx\n"
	       "\tMPIR_CVAR_BCAST_INTRA_ALGORITHM =0\tSCOPE_ALL_EQ\tNo-object\tMPI_INT\tV\t");
	strcat(text, bcast);
	strcat(text, "\n");
	is_int(mpich_parse_mpivars(text, "bcast", &n), 5, "found in mpivars' output");
	is_int(mpich_parse_mpivars(text, "gather", &n), -1, "a variable it does not list: refused");
	free(text);
	strvec_clear(&n);
	s = mpich_force_env("allgather", "ring");
	is_str(s, "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM=ring", "the forcing entry");
	free(s);
	is_str(mpich_record_algorithm("mpich:binomial"), "binomial", "mpich:NAME read");
	ok(!mpich_record_algorithm("tuned:6") && !mpich_record_algorithm("mpich:"),
	   "other algorithm fields are not MPICH's");
	return done_testing();
}
