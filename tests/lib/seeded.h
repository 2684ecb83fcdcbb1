/*
 * tests/lib/seeded.h: a seeded PRNG for the unit tests' replays, so that a
 * statistical test gives the same counts on every run: splitmix64 for
 * uniforms in (0, 1) (never 0, so that log() is finite), Box-Muller for
 * standard normals. The state is the caller's. Header-only.
 */
#ifndef SWEETSPOT_SEEDED_H
#define SWEETSPOT_SEEDED_H

#include <math.h>
#include <stdint.h>

static inline double seeded_unif(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return ((double)((z ^ (z >> 31)) >> 11) + 0.5) * 0x1p-53;
}

static inline double seeded_gauss(uint64_t *state)
{
	double u = seeded_unif(state);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * seeded_unif(state));
}

#endif
