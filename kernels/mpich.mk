# kernels/mpich.mk: `make mpich` builds the same kernel sources with MPICH's
# compiler (mpicc.mpich, called by name: plain mpicc is Open MPI's while
# both are installed) into bin/mpich/sweetspot-kernel, with its own object
# folder so that neither family's objects mix with the other's. hydra
# sweeps (system.launcher = "hydra") run this binary: a kernel of one
# family started by the other's launcher runs as one-rank jobs.
MPICH_CC    ?= mpicc.mpich
MPICH_KOBJ  := $(KERNEL_SRC:%.c=$(BUILD)/mpich/%.o)
# MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1 and declares its
# status arguments with GCC's access attribute: GCC 12 then reports every
# MPI_Testall(..., MPI_STATUSES_IGNORE) as a write into a region of size 0.
# Open MPI's header has no such attribute; the warning says nothing of
# our code there.
MPICH_WARN  := $(WARN) -Wno-stringop-overflow

$(BUILD)/mpich/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICH_CC) $(MPICH_WARN) $(DEFS) $(CFLAGS) $(INC_$(if $(filter kernels/sched/%,$<),sched,kernels)) -MMD -MP -c -o $@ $<

$(BIN)/mpich/sweetspot-kernel: $(MPICH_KOBJ)
	@mkdir -p $(dir $@)
	$(MPICH_CC) $(CFLAGS) -o $@ $^ $(KERNEL_LIBS)

$(BIN)/mpich/sweetspot-loop: $(LOOP_SRC:%.c=$(BUILD)/mpich/%.o)
	@mkdir -p $(dir $@)
	$(MPICH_CC) $(CFLAGS) -o $@ $^

mpich: $(BIN)/mpich/sweetspot-kernel $(BIN)/mpich/sweetspot-loop

# tests/cli/hydra-*.t run this binary under mpiexec.hydra.
check: mpich

.PHONY: mpich
