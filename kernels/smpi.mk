# kernels/smpi.mk: `make smpi` builds the same kernel sources with SimGrid's
# compiler (smpicc) into bin/smpi/sweetspot-kernel, in a build folder of its
# own (build/smpi/), so that no object of a real MPI mixes with these.
# smpirun runs it on a simulated platform (the model's platform files:
# tuner/model/model_platform.c): the real kernel, its real schedules and RMA
# calls, the machine's times simulated. Only the rma transport means
# anything there; the verbs backend is compiled as it is (it finds no
# device in the simulation, so --transport auto picks rma, and --transport
# verbs is refused as on any machine without one).
SMPI_CC    ?= smpicc
SMPI_KOBJ  := $(KERNEL_SRC:%.c=$(BUILD)/smpi/%.o)
# smpicc's headers redefine nanosleep, sleep and clock_gettime (smpi_helpers.h)
# and declare MPI's status arguments as MPICH's do (see mpich.mk).
SMPI_WARN  := $(WARN) -Wno-stringop-overflow

$(BUILD)/smpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(SMPI_CC) $(SMPI_WARN) $(DEFS) $(CFLAGS) $(INC_$(if $(filter kernels/sched/%,$<),sched,kernels)) -MMD -MP -c -o $@ $<

$(BIN)/smpi/sweetspot-kernel: $(SMPI_KOBJ)
	@mkdir -p $(dir $@)
	$(SMPI_CC) $(CFLAGS) -o $@ $^ $(KERNEL_LIBS)

smpi: $(BIN)/smpi/sweetspot-kernel

.PHONY: smpi

# tests/cli/smpi.t runs this binary under smpirun.
check: smpi
