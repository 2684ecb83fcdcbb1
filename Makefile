# sweetspot: top-level build. Each source folder adds its own rules through a
# module.mk fragment, so that adding a file never means editing this one.
#
#   make            build bin/sweetspot and bin/sweetspot-kernel
#   make check      run every test under prove (TAP)
#   make bench      run the benchmarks, printing measured ratios
#   make demo       a local sweep into results/sweetspot.db, its table, a recommendation
#   make install    PREFIX (default /usr/local) and DESTDIR are honoured

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/sweetspot
DESTDIR ?=

CC      ?= cc
MPICC   ?= mpicc
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

include tuner/module.mk
include launch/module.mk
include kernels/module.mk
include tests/module.mk

programs: $(PROGRAMS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -Ituner -Ilaunch -MMD -MP -c -o $@ $<

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

install: programs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/profiles
	install -m 0755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	install -m 0644 profiles/*.cfg $(DESTDIR)$(DATADIR)/profiles/

# The main job: a local sweep (Open MPI on this machine, onload workers) kept
# in results/sweetspot.db, then its table and the recommendation. Running it again resumes: what is
# already measured is not measured twice.
DEMO_DB := results/sweetspot.db
demo: programs
	$(BIN)/sweetspot run profiles/local.cfg --db $(DEMO_DB)
	$(BIN)/sweetspot results --db $(DEMO_DB)
	$(BIN)/sweetspot recommend profiles/local.cfg --db $(DEMO_DB)

clean:
	rm -rf $(BUILD) $(BIN)

.PHONY: all programs install clean check bench demo
