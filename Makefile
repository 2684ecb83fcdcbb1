# sweetspot: top-level build. Each source folder adds its own rules through a
# module.mk fragment, so that adding a file never means editing this one.
#
#   make            build bin/sweetspot and bin/sweetspot-kernel
#   make check      run every test under prove (TAP)
#   make check-fresh  the part of check that CI runs in a fresh root (.ci/fresh-root.sh)
#   make mpich      bin/mpich/sweetspot-kernel, the kernel built with MPICH
#   make smpi       bin/smpi/sweetspot-kernel, the kernel built with SimGrid SMPI
#   make bench      run the benchmarks, printing measured ratios
#   make demo       a local sweep into results/sweetspot.db, its table, a recommendation,
#                   and its report page (results/report/index.html, path printed); then
#                   Open MPI's baseline, its rules, and verify of them on the collective
#                   loop (sweetspot-loop)
#   make install    PREFIX (default /usr/local) and DESTDIR are honoured:
#                   programs, profiles, man pages, bash completion
#   make uninstall  removes what install put there

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/sweetspot
DESTDIR ?=

CC      ?= cc
# Open MPI's compiler by its own name where MPICH is installed beside it:
# plain mpicc is whichever family the alternatives system points at.
MPICC   ?= $(if $(shell command -v mpicc.openmpi 2>/dev/null),mpicc.openmpi,mpicc)
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
VERSION := 0.1.0
DEFS    := -DSWEETSPOT_VERSION='"$(VERSION)"'

BUILD   := build
BIN     := bin

# The tuner never links MPI or verbs.
TUNER_LIBS := -lconfig -lsqlite3 -ljansson -lm
KERNEL_LIBS := -libverbs -lm

PROGRAMS :=
UNIT_TESTS :=

all: programs

# Each part sees only the headers it may use, so a forbidden include fails to
# compile: common/ sees itself; launch/ common/ and itself; kernels/sched/
# (the schedule builders: pure C, no MPI) common/ and itself; kernels/
# common/, the builders and itself; the tuner everything but the kernel's
# MPI side (it runs the builders in its model, never MPI or verbs).
INC_common  := -Icommon
INC_launch  := -Icommon -Ilaunch
INC_sched   := -Icommon -Ikernels/sched
INC_kernels := -Icommon -Ikernels/sched -Ikernels
INC_tuner_plan   := -Icommon -Ilaunch -Ikernels/sched -Ituner/plan
INC_tuner_model  := -Icommon -Ikernels/sched -Ituner/model
INC_tuner_store  := $(INC_tuner_plan) -Ituner/model -Ituner/store
INC_tuner_decide := $(INC_tuner_store) -Ituner/decide
INC_tuner_engine := $(INC_tuner_decide) -Ituner/engine
INC_tuner_calibrate := $(INC_tuner_engine) -Ituner/calibrate
INC_tuner_export := $(INC_tuner_engine) -Ituner/export
INC_tuner_verify := $(INC_tuner_export) -Ituner/verify
INC_tuner_report := $(INC_tuner_export) -Ituner/report
INC_tuner_cmd    := $(INC_tuner_calibrate) -Ituner/export -Ituner/verify -Ituner/report -Ituner/cmd
# The tests and fuzzers see the whole tuner.
INC_tuner   := $(INC_tuner_cmd)
# A source file's include path: its folder's (tuner/plan/x.c: INC_tuner_plan),
# else its top folder's (kernels/x.c: INC_kernels).
inc_of = $(or $(INC_$(subst /,_,$(patsubst %/,%,$(dir $1)))),$(INC_$(firstword $(subst /, ,$1))))

# The schedule builders (kernels/sched/) go into the kernel and the tuner's
# library alike.
SCHED_SRC  := $(wildcard kernels/sched/*.c)
SCHED_OBJ  := $(SCHED_SRC:%.c=$(BUILD)/%.o)

include common/module.mk
include tuner/module.mk
include launch/module.mk
include kernels/module.mk
include kernels/mpich.mk
include kernels/smpi.mk
include tests/module.mk
include tests/fuzz/module.mk

programs: $(PROGRAMS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) $(call inc_of,$*) -MMD -MP -c -o $@ $<

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

MANDIR  ?= $(PREFIX)/share/man
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
MAN1    := tuner/sweetspot.1 kernels/sweetspot-kernel.1 kernels/loop/sweetspot-loop.1
MAN5    := tuner/sweetspot.cfg.5

# Installed profiles name the installed kernel: a relative host_bin would be
# taken from the profile's own folder, where no kernel is. The path written
# is the one the programs will have at run time (PREFIX, not DESTDIR).
install: programs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/profiles \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(COMPDIR)
	install -m 0755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	for f in profiles/*.cfg; do \
		sed 's|^\([[:space:]]*host_bin[[:space:]]*=[[:space:]]*\)"[^"/]*/*\.\./bin/sweetspot-kernel"|\1"$(BINDIR)/sweetspot-kernel"|' \
			"$$f" >$(DESTDIR)$(DATADIR)/profiles/.tmp && \
		chmod 0644 $(DESTDIR)$(DATADIR)/profiles/.tmp && \
		mv $(DESTDIR)$(DATADIR)/profiles/.tmp $(DESTDIR)$(DATADIR)/profiles/$${f#profiles/} || exit 1; \
	done
	install -m 0644 profiles/*.machine $(DESTDIR)$(DATADIR)/profiles/
	install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 tuner/sweetspot.bash $(DESTDIR)$(COMPDIR)/sweetspot

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(PROGRAMS)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,$(wildcard profiles/*.cfg profiles/*.machine))
	-rmdir $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -f $(DESTDIR)$(COMPDIR)/sweetspot

# The main job: a local sweep (Open MPI on this machine, onload workers) kept
# in results/sweetspot.db, then its table and the recommendation. The spec
# is made for this machine by `sweetspot init --local` (results/demo.cfg), which
# says what it chose and why. Running it again resumes: what is already
# measured is not measured twice.
DEMO_DB := results/sweetspot.db
DEMO_SPEC := results/demo.cfg
demo: programs
	$(BIN)/sweetspot init --local --force -o $(DEMO_SPEC)
	$(BIN)/sweetspot run $(DEMO_SPEC) --db $(DEMO_DB)
	$(BIN)/sweetspot results --db $(DEMO_DB)
	$(BIN)/sweetspot recommend $(DEMO_SPEC) --db $(DEMO_DB)
	$(BIN)/sweetspot report $(DEMO_SPEC) --db $(DEMO_DB) -o results/report
	$(BIN)/sweetspot baseline $(DEMO_SPEC) --db $(DEMO_DB)
	$(BIN)/sweetspot export --format ompi-rules --db $(DEMO_DB) -o results/demo.rules --force $(DEMO_SPEC)
	$(BIN)/sweetspot verify $(DEMO_SPEC) --export results/demo.rules --db $(DEMO_DB)

clean:
	rm -rf $(BUILD) $(BIN)

.PHONY: all programs install uninstall clean check check-asan check-fresh bench demo

# A part's include path, for tests/cli/layers.t: make -s print-inc-tuner_plan
print-inc-%:
	@echo $(INC_$*)
