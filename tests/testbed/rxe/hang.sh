#!/bin/sh
# tests/testbed/rxe/hang.sh: a guest test script that never ends, for
# verbs.t to prove that the host's time limit kills a hung guest and that
# the hang is reported as a failure rather than waited out.
echo started >/out/started
while :; do sleep 3600; done
