# common/: the floor every part stands on (errors, argv vectors, x-alloc,
# strict number parsing, files, time stamps, sorting doubles). It includes
# nothing of the other parts. Its objects go into libsweetspot.a; the
# kernel compiles the ones it uses again with mpicc (kernels/module.mk).
COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
