nosym.bc
