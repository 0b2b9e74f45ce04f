"""Puts contrib/kube-sim on sys.path, so `import kubesim` works however the
tests are started (run.py, `python3 -m unittest discover`, one file)."""

import os
import sys

KUBESIM_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if KUBESIM_ROOT not in sys.path:
    sys.path.insert(0, KUBESIM_ROOT)
