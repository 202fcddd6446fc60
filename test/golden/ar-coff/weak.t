dup-nolib.obj
