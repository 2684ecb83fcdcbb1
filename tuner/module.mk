# tuner/: the sweetspot command, in parts (folders), each built with the
# include path of the parts below it (the Makefile's INC_tuner_*), so that
# an include against the layering fails to compile:
#
#   cmd/     the commands, the CLI                    sees every part
#   verify/  verify's race, verdict, proof, sbatch    export engine decide store sim plan
#   report/  figures (gnuplot), the report's page     export engine decide store sim plan
#   export/  runtime files; one export_run()          engine decide store sim plan
#   model/   calibrate, predict, check                engine decide store sim plan
#   engine/  the sweep engine (runner)                decide store sim plan
#   decide/  statistics, decisions, search, replay    store sim plan
#   store/   the results database, the record         sim plan
#   sim/     the model's simulator (pure)             (kernels/sched only)
#   plan/    point, spec, plan, generate, colls       (common, launch, kernels/sched)
#
# Every tuner/*/*.c but cmd/main.c goes into a static library that the unit
# tests link too.
TUNER_SRC  := $(filter-out tuner/cmd/main.c,$(wildcard tuner/*/*.c))
TUNER_OBJ  := $(TUNER_SRC:%.c=$(BUILD)/%.o)
LAUNCH_SRC := $(wildcard launch/*.c)
LAUNCH_OBJ := $(LAUNCH_SRC:%.c=$(BUILD)/%.o)
LIBSWEETSPOT := $(BUILD)/libsweetspot.a

$(LIBSWEETSPOT): $(COMMON_OBJ) $(TUNER_OBJ) $(LAUNCH_OBJ) $(SCHED_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN)/sweetspot: $(BUILD)/tuner/cmd/main.o $(LIBSWEETSPOT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(TUNER_LIBS)

PROGRAMS += $(BIN)/sweetspot
