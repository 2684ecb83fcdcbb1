# tuner/: the sweetspot command. Every tuner/*.c but main.c goes into a static
# library that the unit tests link too.
TUNER_SRC  := $(filter-out tuner/main.c,$(wildcard tuner/*.c))
TUNER_OBJ  := $(TUNER_SRC:%.c=$(BUILD)/%.o)
LAUNCH_SRC := $(wildcard launch/*.c)
LAUNCH_OBJ := $(LAUNCH_SRC:%.c=$(BUILD)/%.o)
LIBSWEETSPOT := $(BUILD)/libsweetspot.a

$(LIBSWEETSPOT): $(COMMON_OBJ) $(TUNER_OBJ) $(LAUNCH_OBJ) $(SCHED_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN)/sweetspot: $(BUILD)/tuner/main.o $(LIBSWEETSPOT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(TUNER_LIBS)

PROGRAMS += $(BIN)/sweetspot
