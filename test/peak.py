#!/usr/bin/env python3
"""peak.py KB CMD...: run CMD, then print "flat" when its peak RSS (with
its children's) stayed under KB kilobytes, else what it was; CMD's
status.  For the tests that bound memory (issue 36)."""
import resource
import subprocess
import sys

rc = subprocess.call(sys.argv[2:])
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("flat" if kb < int(sys.argv[1]) else "%d KB" % kb)
sys.exit(rc)
