# tuner/: the sweetspot command, in parts (folders), each built with the
# include path of the parts below it (the Makefile's INC_tuner_*), so that
# an include against the layering fails to compile:
#
#   cmd/        the commands, the CLI                 sees every part
#   verify/     verify's race, verdict, proof, sbatch export engine decide store model plan
#   report/     figures (gnuplot), the report's page  export engine decide store model plan
#   export/     runtime files; one export_run()       engine decide store model plan
#   calibrate/  the model against a spec: calibrate,  engine decide store model plan
#               fit, predict, check, search, smpi
#   engine/     the sweep engine (runner)             decide store model plan
#   decide/     statistics, decisions, search, replay store model plan
#   store/      the results database, the record      model plan
#   model/      the pure model: parameters, machine,  (kernels/sched only)
#               simulator, SimGrid platform
#   plan/       point, spec, plan, generate, colls    (common, launch, kernels/sched)
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
