"""Runs a command with a directory made read-only for it: the directory and
its files lose their write bits, and when run as root (which ignores them)
the command runs as nobody. For measure_cache_readonly.test.
usage: read_only.py DIR CMD [ARGS...]"""
import os
import sys

d = sys.argv[1]
for name in os.listdir(d):
    os.chmod(os.path.join(d, name), 0o444)
os.chmod(d, 0o555)
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
os.execvp(sys.argv[2], sys.argv[2:])
