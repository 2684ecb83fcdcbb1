# launch/: argv builders, sbatch scripts, spawning with a time limit. Its
# objects go into libsweetspot.a with the tuner's (see tuner/module.mk).
