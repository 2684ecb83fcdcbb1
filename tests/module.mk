# tests/: unit tests are tests/unit/<module>-t.c, linked with libsweetspot.a;
# command-line tests are tests/cli/*.t (sh); testbed-driven tests are
# tests/testbed/*.t. All print TAP and run under prove.
UNIT_SRC   := $(wildcard tests/unit/*-t.c)
UNIT_TESTS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
CLI_TESTS  := $(sort $(wildcard tests/cli/*.t) $(wildcard tests/testbed/*.t))
PROVE      ?= prove
PROVE_FLAGS ?=

$(BUILD)/tests/%: tests/unit/%.c $(LIBSWEETSPOT)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -Itests/lib -Ituner -Ilaunch -o $@ $< $(LIBSWEETSPOT) $(TUNER_LIBS)

check: programs $(UNIT_TESTS)
	SWEETSPOT_ROOT=$(CURDIR) $(PROVE) $(PROVE_FLAGS) $(UNIT_TESTS) $(CLI_TESTS)

BENCHES := $(sort $(wildcard tests/bench/*.sh))
bench: programs
	@set -e; for b in $(BENCHES); do echo "== $$b"; SWEETSPOT_ROOT=$(CURDIR) sh $$b; done
