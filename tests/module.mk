# tests/: unit tests are tests/unit/<module>-t.c, linked with libsweetspot.a;
# command-line tests are tests/cli/*.t (sh); testbed-driven tests are
# tests/testbed/*.t. All print TAP and run under prove.
UNIT_SRC   := $(wildcard tests/unit/*-t.c)
UNIT_TESTS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# tests/bench/baseline-rank.sh's helper: two measures' rankings of the
# algorithms compared pair by pair with verify's statistics (libsweetspot).
RANK_PAIRS := $(BUILD)/tests/rank-pairs
$(RANK_PAIRS): tests/bench/rank-pairs.c $(LIBSWEETSPOT)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) $(INC_tuner) -o $@ $< $(LIBSWEETSPOT) $(TUNER_LIBS)

CLI_TESTS  := $(sort $(wildcard tests/cli/*.t) $(wildcard tests/testbed/*.t))
PROVE      ?= prove
PROVE_FLAGS ?=

$(BUILD)/tests/%: tests/unit/%.c $(LIBSWEETSPOT)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -Itests/lib $(INC_tuner) -o $@ $< $(LIBSWEETSPOT) $(TUNER_LIBS)

# The unit tests once more under AddressSanitizer and UBSan (any report is
# fatal), built apart in $(BUILD)/asan: `make check` runs both builds.
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_OBJ   := $(patsubst $(BUILD)/%,$(BUILD)/asan/%,$(COMMON_OBJ) $(TUNER_OBJ) $(LAUNCH_OBJ) $(SCHED_OBJ))
ASAN_LIB   := $(BUILD)/asan/libsweetspot.a
ASAN_TESTS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/asan/tests/%)

$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(ASAN_CFLAGS) $(call inc_of,$*) -MMD -MP -c -o $@ $<

$(ASAN_LIB): $(ASAN_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/asan/tests/%: tests/unit/%.c $(ASAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(ASAN_CFLAGS) -Itests/lib $(INC_tuner) -o $@ $< $(ASAN_LIB) $(TUNER_LIBS)

$(ASAN_TESTS): $(wildcard kernels/*.c kernels/*.h)

check-asan: $(ASAN_TESTS)
	SWEETSPOT_ROOT=$(CURDIR) $(PROVE) $(PROVE_FLAGS) $(ASAN_TESTS)

check: programs $(UNIT_TESTS) $(ASAN_TESTS) $(RANK_PAIRS)
	SWEETSPOT_ROOT=$(CURDIR) $(PROVE) $(PROVE_FLAGS) $(UNIT_TESTS) $(ASAN_TESTS) $(CLI_TESTS)

# What CI runs in a fresh Debian 12 root (.ci/fresh-root.sh), where the full
# check would take too long beside the one on the machine: every kind of
# product built and run once. The programs, the MPICH and SMPI kernels, the
# fuzz targets (tests/fuzz/module.mk adds them); the unit tests in both
# builds, the fuzz regressions, and the kernel under each runtime: Open MPI's
# mpirun, MPICH's hydra, SimGrid's smpirun.
FRESH_TESTS := tests/cli/fuzz-regress.t tests/cli/run-local.t tests/cli/hydra-run.t tests/cli/smpi.t
check-fresh: programs mpich smpi $(UNIT_TESTS) $(ASAN_TESTS)
	SWEETSPOT_ROOT=$(CURDIR) $(PROVE) $(PROVE_FLAGS) $(UNIT_TESTS) $(ASAN_TESTS) $(FRESH_TESTS)

BENCHES := $(sort $(wildcard tests/bench/*.sh))
bench: programs $(RANK_PAIRS)
	@set -e; for b in $(BENCHES); do echo "== $$b"; SWEETSPOT_ROOT=$(CURDIR) sh $$b; done

