import pathlib
import sys

# Lets tests import the shared helpers in tests/oracle.py.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
