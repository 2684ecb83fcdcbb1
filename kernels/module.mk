# kernels/: the MPMD benchmark program, built with mpicc. The common/ helpers
# it uses (number parsing, xalloc) are compiled again here; it sees no other part.
# kernels/sched/ holds the schedule builders, pure C: the kernel runs them,
# and the tuner links them too (its model simulates exactly what runs).
KERNEL_SRC := $(wildcard kernels/*.c) $(SCHED_SRC) common/parse.c common/sort.c common/xalloc.c
KERNEL_OBJ := $(KERNEL_SRC:%.c=$(BUILD)/mpi/%.o)

$(BUILD)/mpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(WARN) $(DEFS) $(CFLAGS) $(INC_$(if $(filter kernels/sched/%,$<),sched,kernels)) -MMD -MP -c -o $@ $<

$(BIN)/sweetspot-kernel: $(KERNEL_OBJ)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(KERNEL_LIBS)

ifneq ($(wildcard kernels/main.c),)
PROGRAMS += $(BIN)/sweetspot-kernel
endif

# The kernel's unit tests (tests/unit/kernel-*-t.c) compile kernel modules
# in directly: they are rebuilt when any of those change.
KERNEL_UNIT := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/kernel-*-t.c))
$(KERNEL_UNIT): $(wildcard kernels/*.c kernels/*.h kernels/sched/*.c kernels/sched/*.h)

# The builders in the tuner's library: compiled with their own include path.
$(BUILD)/kernels/sched/%.o: kernels/sched/%.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) $(INC_sched) -MMD -MP -c -o $@ $<

# kernels/loop/: sweetspot-loop, the collective loop `sweetspot verify` runs
# when given no program; it times as the kernel's --mode mpi does (batch.c).
LOOP_SRC := kernels/loop/loop.c kernels/batch.c kernels/hosts.c kernels/idle.c common/parse.c common/sort.c common/xalloc.c
LOOP_OBJ := $(LOOP_SRC:%.c=$(BUILD)/mpi/%.o)

$(BIN)/sweetspot-loop: $(LOOP_OBJ)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^

PROGRAMS += $(BIN)/sweetspot-loop
