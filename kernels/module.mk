# kernels/: the MPMD benchmark program, built with mpicc. Pure-C helpers it
# shares with the tuner (number parsing) are compiled again here.
KERNEL_SRC := $(wildcard kernels/*.c) tuner/parse.c
KERNEL_OBJ := $(KERNEL_SRC:%.c=$(BUILD)/mpi/%.o)

$(BUILD)/mpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(WARN) $(DEFS) $(CFLAGS) -Ikernels -Ituner -MMD -MP -c -o $@ $<

$(BIN)/sweetspot-kernel: $(KERNEL_OBJ)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(KERNEL_LIBS)

ifneq ($(wildcard kernels/main.c),)
PROGRAMS += $(BIN)/sweetspot-kernel
endif

# The kernel's unit tests (tests/unit/kernel-*-t.c) compile kernel modules
# in directly: they are rebuilt when any of those change.
KERNEL_UNIT := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/kernel-*-t.c))
$(KERNEL_UNIT): $(wildcard kernels/*.c kernels/*.h)
