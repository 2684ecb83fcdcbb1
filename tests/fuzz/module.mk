# tests/fuzz/: libFuzzer targets for every parser of outside input (specs,
# hostlists, kernel records, replay tables, the kernel's options), built with
# clang (a dependency: tests/deps.sh) under ASan+UBSan into $(BUILD)/fuzz/.
#
#   make fuzz           fuzz each target FUZZ_SECONDS (60), seeded read-only by
#                       tests/fuzz/corpus/<name>/; new inputs go to
#                       $(BUILD)/fuzz/corpus-<name>/, crashes to
#                       $(BUILD)/fuzz/crashes-<name>/; stops at the first crash
#   make fuzz-regress   each target once over its corpus and every crash ever
#                       found (tests/fuzz/crashes/<name>/*): tests/cli/fuzz-regress.t
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZERS      := spec hostlist record replay kopts
FUZZ_BINS    := $(FUZZERS:%=$(BUILD)/fuzz/%)
# Inputs longer than any real one of each kind only slow the search down.
FUZZ_LEN_spec     := 4096
FUZZ_LEN_hostlist := 256
FUZZ_LEN_record   := 2048
FUZZ_LEN_replay   := 4096
FUZZ_LEN_kopts    := 512
# A hang is a crash (10 s for one input), and so is a parser eating memory.
FUZZ_RUN_FLAGS := -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512
# Leaks inside third-party libraries (tests/fuzz/lsan.supp says which).
FUZZ_ENV := LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp

FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJ   := $(patsubst $(BUILD)/%,$(BUILD)/fuzz/obj/%,$(COMMON_OBJ) $(TUNER_OBJ) $(LAUNCH_OBJ) $(SCHED_OBJ))
FUZZ_LIB   := $(BUILD)/fuzz/libsweetspot.a

# The library is instrumented for coverage but has no main of libFuzzer's.
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) $(DEFS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(call inc_of,$*) -MMD -MP -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%-fuzz.c tests/fuzz/fuzzfile.c tests/fuzz/fuzzfile.h $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) $(DEFS) $(FUZZ_FLAGS) -fsanitize=fuzzer -Itests/fuzz $(INC_tuner) \
		-o $@ $< tests/fuzz/fuzzfile.c $(FUZZ_LIB) $(TUNER_LIBS)

# kopts compiles the kernel's modules in (tests/fuzz/kopts-fuzz.c).
$(BUILD)/fuzz/kopts: $(wildcard kernels/*.c kernels/*.h kernels/sched/*.c kernels/sched/*.h)

fuzz-build: $(FUZZ_BINS)

# Each target in turn; stderr of the parsers (their error messages) is
# closed, libFuzzer's own report is not. On a crash: the reproducer's path
# and a nonzero status.
fuzz: $(FUZZ_BINS)
	@for f in $(FUZZERS); do \
		mkdir -p $(BUILD)/fuzz/corpus-$$f $(BUILD)/fuzz/crashes-$$f; \
		echo "== fuzz $$f for $(FUZZ_SECONDS) s"; \
		$(FUZZ_ENV) $(BUILD)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_LEN_$$f) \
			$(FUZZ_RUN_FLAGS) -close_fd_mask=2 -print_final_stats=0 \
			-artifact_prefix=$(BUILD)/fuzz/crashes-$$f/ \
			$(BUILD)/fuzz/corpus-$$f tests/fuzz/corpus/$$f >$(BUILD)/fuzz/$$f.log 2>&1; \
		st=$$?; \
		if [ $$st -ne 0 ]; then \
			tail -40 $(BUILD)/fuzz/$$f.log; \
			echo "fuzz: $$f failed (status $$st); reproducer: $$(ls -t $(BUILD)/fuzz/crashes-$$f/* 2>/dev/null | head -1)"; \
			echo "fuzz: keep it as tests/fuzz/crashes/$$f/<name> once fixed"; \
			exit 1; \
		fi; \
		grep -E '^Done [0-9]+ runs' $(BUILD)/fuzz/$$f.log; \
	done

fuzz-regress: $(FUZZ_BINS)
	SWEETSPOT_ROOT=$(CURDIR) sh tests/cli/fuzz-regress.t

# `make check` (and check-fresh) run tests/cli/fuzz-regress.t, which needs the
# targets.
check check-fresh: $(FUZZ_BINS)

.PHONY: fuzz fuzz-build fuzz-regress
