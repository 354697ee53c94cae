"""What the Python tests share: the mdl program of this build, the shipped models, and
mdl run's CSV read back exactly (float() of the shortest round-trip text is the same double)."""
import csv
import os
import subprocess
import tempfile

MDL = os.environ["MDL_EXE"]
SOURCE_DIR = os.environ["MDL_SOURCE_DIR"]


def model(name):
    return os.path.join(SOURCE_DIR, "models", name)


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(x) for x in row] for row in rows[1:]]


def run_cli(args):
    """mdl ARGS; returns (exit status, standard error)."""
    done = subprocess.run([MDL] + args, capture_output=True, text=True)
    return done.returncode, done.stderr


def cli_rows(model_file, args):
    """mdl run MODEL ARGS -q: the header and the rows."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "run.csv")
        status, errors = run_cli(["run", model(model_file)] + args + ["-q", "-o", out])
        assert status == 0, errors
        return read_csv(out)


def rows_of(result):
    """A result's rows in the CSV's column order, as Python floats."""
    columns = [result[name] for name in result.columns]
    return [[float(c[i]) for c in columns] for i in range(len(result))]


def same_bits(a, b):
    """Equal rows, double for double, also the sign of a zero (repr is exact)."""
    return len(a) == len(b) and all(
        len(x) == len(y) and all(repr(u) == repr(v) for u, v in zip(x, y)) for x, y in zip(a, b))
