#!/usr/bin/env python3
"""desktop_idle.py — how busy the desktop app is while nobody touches it: starts it
on a virtual display (Xvfb), lets it settle for 3 s, then reads its CPU time
(/proc/PID/stat, user + system) over 5 s. It waits for events between frames
(glfwWaitEvents), so this should be near 0 %.
  python3 tests/bench/desktop_idle.py build/native/attention_lab
"""
import os
import subprocess
import sys
import time


def cpu_seconds(pid):
    fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def main(app, settle=3.0, seconds=5.0):
    display = f':{100 + os.getpid() % 400}'
    xvfb = subprocess.Popen(['Xvfb', display, '-screen', '0', '1280x800x24'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        proc = subprocess.Popen([app], env=dict(os.environ, DISPLAY=display, LANG='C'))
        try:
            time.sleep(settle)
            if proc.poll() is not None:
                sys.exit(f'desktop app exited early with {proc.returncode}')
            c0, t0 = cpu_seconds(proc.pid), time.monotonic()
            time.sleep(seconds)
            c1, t1 = cpu_seconds(proc.pid), time.monotonic()
            print(f'desktop app idle (Xvfb, 1280x800): {100 * (c1 - c0) / (t1 - t0):.1f} % of a core '
                  f'over {t1 - t0:.1f} s untouched')
        finally:
            proc.terminate()
            proc.wait()
    finally:
        xvfb.terminate()
        xvfb.wait()


if __name__ == '__main__':
    main(sys.argv[1])
