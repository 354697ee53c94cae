"""mdl: compile models of mechanical systems with fast vibrations and simulate them.

A model written in the .mdl language is compiled to native kernels in-process; it is then
simulated with any method of ``mdl run`` (classical integrators, HMM, stroboscopic averaging,
stiff HMM) by the same library code, so the numbers equal the command line's bit for bit::

    import mdl
    m = mdl.compile_file("models/kapitza.mdl")       # or mdl.compile(source_text)
    m.parameters["omega"] = 1e4
    r = m.simulate(method="hmm", stop=1.0, step=1/80)
    r.t, r["q"], r.stats.force_evaluations
    f = m.force(0.0, q, v)                            # kernels on NumPy arrays
    s = mdl.sweep(m, {"omega": [1e3, 1e4]}, method="hmm", stop=1.0)
    mdl.export_fmu(m, "kapitza.fmu", method="hmm")     # or mdl.export_c_library(m, "out/")

Errors: ``mdl.CompileError`` (the clang-style report in ``.report``), ``mdl.NumericalFailure``
(``.time``, ``.variable``, ``.method``), ``ValueError`` for a bad option (the message names
it as ``mdl run`` does: "--step: ..."). The GIL is released while a model compiles or
simulates, so threads run simulations in parallel. See docs/python.md.
"""

import itertools
import warnings
from collections.abc import MutableMapping

# NumPy is imported here, in the importing thread: its first import from a sweep's worker
# thread (when _mdl makes the first array) deadlocked against the pool starting its threads.
import numpy

from . import _mdl

__all__ = ["compile_file", "compile", "Model", "Result", "Statistics", "sweep", "SweepRun",
           "export_fmu", "export_c_library", "set_warning_handler",
           "CompileError", "NumericalFailure", "options", "PeriodicOrbit", "Branch",
           "StabilityChart", "Modes"]


class CompileError(Exception):
    """The model could not be compiled.

    ``report`` is the full clang-style report (``file:line:col: error: ...``, the source line,
    a caret); ``messages`` one entry per diagnostic."""
    report = ""
    messages = []


class NumericalFailure(RuntimeError):
    """The integration failed: ``kind`` ("non-finite value", "step size underflow", ...) at
    ``time`` in ``variable`` (a variable or constraint, or "") with ``method``; ``detail``
    gives the numbers and the usual remedy. ``str()`` is the message ``mdl run`` prints."""
    time = float("nan")
    method = ""
    variable = ""
    kind = ""
    detail = ""


_mdl._register_exceptions(CompileError, NumericalFailure)

Statistics = _mdl.Statistics
StabilityChart = _mdl.StabilityChart


def options():
    """The simulation options ``Model.simulate`` takes, as ``mdl run`` names its flags
    (with ``_`` for ``-``): method, stop, step, rtol, micro_steps_per_period, ..."""
    return [name.replace("-", "_") for name in _mdl._setting_names()]


class Parameters(MutableMapping):
    """The model's parameters by name; setting one recomputes those defined from it (no
    recompilation). Integer parameters are fixed when compiling (``parameters=`` of
    ``compile_file``)."""

    def __init__(self, model):
        self._model = model

    def __getitem__(self, name):
        if name not in self._model.parameter_names:
            raise KeyError(name)
        return self._model.parameter(name)

    def __setitem__(self, name, value):
        self._model.set_parameter(name, float(value))

    def __delitem__(self, name):
        raise TypeError("a model's parameters cannot be removed; reset() restores the defaults")

    def __iter__(self):
        return iter(self._model.parameter_names)

    def __len__(self):
        return len(self._model.parameter_names)

    def reset(self):
        """Back to the model's defaults."""
        self._model.reset_parameters()

    def __repr__(self):
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self.items()) + "}"


class Result:
    """A simulated trajectory: one row per output state, the columns of ``mdl run``'s CSV.

    ``t`` (rows), ``positions``, ``velocities`` (rows x n), ``states`` (rows x k),
    ``residuals``, ``multipliers`` (rows x m, or None without constraints), ``energy`` (rows,
    or None) are NumPy arrays; ``r["q"]``, ``r["der(q)"]``, ``r["lambda(rod)"]`` a column by
    its CSV name; ``columns`` their names; ``units`` the unit of each column by name ("s", "m",
    "rad/s"; "" where unknown or when the model declares no units); ``stats`` the cost (steps,
    force_evaluations, ...); ``to_dict()`` the columns by name
    (``pandas.DataFrame(r.to_dict())``)."""

    def __init__(self, native, units=None):
        self.columns = native.columns
        self.units = {name: (units(name) if units else "") for name in self.columns}
        self.stats = native.stats
        arrays = native._take()
        self.t = arrays["t"]
        self.positions = arrays["positions"]
        self.velocities = arrays["velocities"]
        self.states = arrays["states"]
        self.residuals = arrays["residuals"]
        self.multipliers = arrays["multipliers"]
        self.energy = arrays["energy"]

    def __len__(self):
        return len(self.t)

    def _blocks(self):
        yield self.t.reshape(-1, 1)
        for block in (self.positions, self.velocities, self.states, self.residuals,
                      self.multipliers):
            if block is not None:
                yield block
        if self.energy is not None:
            yield self.energy.reshape(-1, 1)

    def __getitem__(self, name):
        if name not in self.columns:
            raise KeyError(f"no column {name!r}; the columns are {', '.join(self.columns)}")
        index = self.columns.index(name)
        for block in self._blocks():
            if index < block.shape[1]:
                return block[:, index]
            index -= block.shape[1]
        raise KeyError(name)

    def to_dict(self):
        """The columns by their CSV names, each a NumPy array (views, no copies)."""
        return {name: self[name] for name in self.columns}

    def __repr__(self):
        return f"<mdl.Result: {len(self)} rows, columns {self.columns}; {self.stats.summary}>"


class Model:
    """A compiled model: names, parameters, start values, kernels and simulate()."""

    def __init__(self, native):
        self._native = native
        self.parameters = Parameters(native)

    name = property(lambda self: self._native.name)
    position_names = property(lambda self: self._native.position_names)
    velocity_names = property(lambda self: self._native.velocity_names)
    state_names = property(lambda self: self._native.state_names)
    constraint_names = property(lambda self: self._native.constraint_names)
    vibration_names = property(lambda self: self._native.vibration_names)

    def unit(self, name):
        """The unit of a parameter, position, velocity, state or column by name ("m", "N/m",
        "rad/s"), declared or inferred; "" when unknown or the model declares no units."""
        return self._native.unit(name)

    def start(self):
        """The start values (q, v, x) with the current parameters, as NumPy arrays."""
        return self._native.start()

    def phases(self, t):
        """The vibrations' phases theta_i(t)."""
        return self._native.phases(t)

    def force(self, t, q, v, x=None):
        """f(t, q, v, x, theta(t)): the applied forces, without constraint forces."""
        return self._native.kernel("force", t, q, v, x)

    def potential(self, t, q):
        """The potential energy U(t, q) (a 1-element array)."""
        return self._native.kernel("potential", t, q)

    def constraint(self, q):
        """The constraints' residuals g(q)."""
        return self._native.kernel("constraint", 0.0, q)

    def constraint_jacobian(self, q):
        """G = dg/dq, m x n."""
        g = self._native.kernel("constraint_jacobian", 0.0, q)
        return g.reshape(len(self.constraint_names), len(self.position_names))

    def mass_matrix(self, q):
        """M(q), n x n."""
        n = len(self.position_names)
        return self._native.kernel("mass_matrix", 0.0, q).reshape(n, n)

    def rates(self, t, q, v, x):
        """x' of the first-order states."""
        return self._native.kernel("rates", t, q, v, x)

    def with_parameters(self, **parameters):
        """A model with these parameters set, sharing this one's compiled code."""
        return Model(self._native.with_parameters(parameters))

    def stability_chart(self, ranges, grid=(41, 41), at=None, orbit=False, period=0.0,
                        tolerance=1e-6, stability_tolerance=1e-6, threads=0):
        """The Floquet stability of a periodic solution over a grid of two Real parameters,
        boundaries refined by bisection (``mdl stability-chart``, docs/analysis.md)::

            c = m.stability_chart({"a": (-2, 10), "q": (0, 5)}, grid=(61, 26))
            c.x, c.y, c.verdict[i, j], c.max_multiplier, c.boundary["x"], c.svg()

        ``ranges``: two parameters in order (the first varies slowest, the plot's x), each
        (lo, hi) or (lo, hi, "log"). ``at``: a dict replacing start values ({"q": math.pi});
        that state must stay a solution under the forcing. ``orbit``: the periodic orbit found
        by shooting from it instead. ``threads`` 0: the hardware threads."""
        if len(ranges) != 2:
            raise ValueError("ranges: two parameters, as {'a': (0, 5), 'q': (0, 5)}")
        if len(grid) != 2:
            raise ValueError("grid: two numbers of points, as (50, 50)")
        axes = []
        for (name, spec), points in zip(ranges.items(), grid):
            if len(spec) == 3 and spec[2] not in ("log", "lin"):
                raise ValueError(f"{name}: the spacing is 'lin' or 'log', not {spec[2]!r}")
            if len(spec) not in (2, 3):
                raise ValueError(f"{name}: a range is (lo, hi) or (lo, hi, 'log')")
            axes.append((name, float(spec[0]), float(spec[1]), int(points),
                         len(spec) == 3 and spec[2] == "log"))
        return _mdl._stability_chart(self._native, axes[0], axes[1],
                                     [(k, float(v)) for k, v in (at or {}).items()],
                                     bool(orbit), float(period or 0.0), float(tolerance),
                                     float(stability_tolerance), int(threads))

    def simulate(self, method=None, **options):
        """Simulates the model with its current parameters and returns a ``Result``.

        ``method`` and the options are those of ``mdl run`` (``mdl.options()`` lists them,
        with ``_`` for ``-``): ``stop``, ``step``, ``start``, ``rtol``, ``atol``, ``every``,
        ``algorithm``, ``filter``, ``window``, ``micro_steps_per_period``, ``macro_time``,
        ``period``, ``order``, ``macro``, ``micro``, ``omega``, ``reproject_every``, ... An
        option left out (or None) falls back to the model's annotation, then to the method's
        default. Raises ``ValueError`` for a bad option and ``NumericalFailure`` when the
        integration fails. The GIL is released while it runs."""
        return Result(self._native.simulate(method=method, **options), self._native.unit)

    def modes(self, at=None, search="auto", tolerance=1e-10, max_iterations=50):
        """The equilibrium, linearization and natural modes, as ``mdl modes`` computes them
        (docs/analysis.md), returned as a ``Modes``: ``omega`` [rad/s], ``frequency_hz`` and
        ``damping_ratio`` (NumPy vectors, one entry per mode, sorted by omega), ``kind``
        ("rigid body", "oscillatory", "overdamped", "unstable"), ``shapes`` (modes x positions,
        mass-normalized), ``equilibrium``, ``multipliers`` and the matrices ``mass``,
        ``damping``, ``stiffness`` (n x n). ``at``: start values by position name; ``search``:
        "rest" (downhill to a rest position), "nearest" (Newton's method: the equilibrium
        nearest the start, stable or not) or "auto" (nearest with ``at``, else rest). Raises ``NumericalFailure`` when no equilibrium is found and
        ``ValueError`` for a model outside the analysis (first-order states, forcing that
        depends on time, moving constraints)."""
        return Modes(_mdl._modes(self._native, dict(at or {}), str(search), float(tolerance),
                                 int(max_iterations)))
    def periodic_orbit(self, period=None, q=None, v=None, samples=200, tolerance=1e-10,
                       max_iterations=40, **parameters):
        """The periodic orbit by shooting, as ``mdl periodic`` finds it (docs/analysis.md):
        a ``PeriodicOrbit`` with ``period``, ``q``, ``v`` (the state at t = 0),
        ``multipliers`` (complex, by decreasing modulus), ``max_modulus``, ``stable``,
        ``stability``, ``monodromy`` (2n x 2n), ``t`` and ``orbit`` (samples + 1 rows: the
        positions then the velocities over one period). ``period``: needed when the force uses
        time explicitly, a first guess for an autonomous model; ``q``, ``v``: a first guess
        (default: the start values); other keywords set parameters. Raises
        ``NumericalFailure`` when Newton does not converge, ``ValueError`` for a model it does
        not cover."""
        native = self._native.with_parameters(parameters) if parameters else self._native
        return PeriodicOrbit(_mdl._periodic_orbit(native, {}, float(period or 0.0), q, v,
                                                  int(samples), float(tolerance),
                                                  int(max_iterations)))

    def continuation(self, parameter, start, stop, ds=0.05, ds_min=1e-7, ds_max=0.2,
                     max_points=5000, period=None, q=None, v=None, samples=256,
                     tolerance=1e-10, **parameters):
        """Continues the periodic orbit in ``parameter`` from ``start`` towards ``stop``, as
        ``mdl continue -p name=start:stop`` (docs/analysis.md): a ``Branch`` of NumPy arrays,
        one row per point, ``parameter``, ``period``, ``amplitude`` (points x n),
        ``q``, ``v``, ``multipliers`` (points x 2n, complex), ``max_modulus``, ``stable``,
        and ``labels`` ("fold", "period-doubling", "neimark-sacker", "peak", "start", "end"
        or ""). Other keywords set parameters."""
        native = self._native.with_parameters(parameters) if parameters else self._native
        return Branch(_mdl._continuation(native, parameter, float(start), float(stop), {},
                                         float(ds), float(ds_min), float(ds_max),
                                         int(max_points), float(period or 0.0), q, v,
                                         int(samples), float(tolerance)))

    def __repr__(self):
        return f"<mdl.Model {self.name!r}: positions {self.position_names}>"


class Modes:
    """The result of ``Model.modes()``: arrays by attribute (see its help)."""

    def __init__(self, values):
        self.__dict__.update(values)

    def __len__(self):
        return len(self.omega)

    def __repr__(self):
        listed = ", ".join(f"{w:.6g}" for w in self.omega[:6])
        more = ", ..." if len(self) > 6 else ""
        return (f"<mdl.Modes: {len(self)} modes, {self.degrees_of_freedom} degrees of freedom; "
                f"omega [rad/s] {listed}{more}>")
class PeriodicOrbit:
    """A periodic orbit and its Floquet multipliers (Model.periodic_orbit)."""

    def __init__(self, d):
        self.__dict__.update(d)
        self.t = self.orbit[:, 0]

    def __repr__(self):
        return (f"<mdl.PeriodicOrbit: period {self.period:.10g}, {self.stability}, "
                f"max |mu| {self.max_modulus:.6g}>")


class Branch:
    """A continued branch of periodic orbits (Model.continuation); arrays by point."""

    def __init__(self, d):
        self.__dict__.update(d)

    def __len__(self):
        return len(self.parameter)

    def points(self, label):
        """The indices of the points with this label ("fold", "peak", ...)."""
        return [i for i, name in enumerate(self.labels) if name == label]

    def __repr__(self):
        return f"<mdl.Branch in {self.parameter_name}: {len(self)} points; {self.stop}>"


def compile_file(path, parameters=None, library=(), no_cache=False):
    """Compiles a .mdl file. ``parameters``: values by name, Integer ones (array sizes) fixing
    the structure as ``mdl run -p`` does, the others set after compiling; ``library``:
    folders of component models; ``no_cache``: not the code cache on disk. Raises
    ``CompileError``."""
    return Model(_mdl._compile_file(str(path), dict(parameters or {}), list(library), no_cache))


def compile(source, name="<model>", parameters=None, library=(), no_cache=False):
    """Compiles model source text (``name`` appears in diagnostics); as ``compile_file``."""
    return Model(_mdl._compile(source, name, dict(parameters or {}), list(library), no_cache))


class SweepRun:
    """One point of a sweep: ``parameters`` (name -> value), ``status`` ("ok", "failed",
    "error", "interrupted"), ``message`` and ``notes``; in memory also ``result`` (a Result)
    or ``error`` (the exception: NumericalFailure, ValueError)."""

    def __init__(self, index, parameters, result=None, error=None):
        self.index = index
        self.parameters = parameters
        self.result = result
        self.error = error
        self.status = "ok" if error is None else "failed"  # as summary.csv's status column
        self.message = "" if error is None else str(error)
        self.notes = []  # what the run told: SimulationStatistics::notes

    def __repr__(self):
        status = self.status if self.error is None else f"{type(self.error).__name__}: {self.error}"
        return f"<mdl.SweepRun {self.index} {self.parameters}: {status}>"


def sweep(model, grid, jobs=None, method=None, output=None, isolation="thread",
          summary_only=False, **options):
    """Runs the Cartesian product of the parameter values in ``grid`` (name -> values) with
    one compiled model, each point with its own parameters (no recompilation), by the library's
    sweep (the one ``mdl sweep`` runs): points numbered in its order (the first parameter
    varies slowest), ``jobs`` at once (default: one per core). Returns the list of
    ``SweepRun``.

    Without ``output``: on threads, the results in memory; a point that fails carries its
    exception (NumericalFailure, ValueError) instead of a result, and each result's notes are
    in ``result.stats.notes``. With ``output`` (a directory): as ``mdl sweep --output`` writes
    it (run_<i>.csv unless ``summary_only``, summary.csv; docs/sweeps.md), on threads or, with
    ``isolation="process"``, in worker processes (a run that crashes is one failed row); each
    ``SweepRun`` then has ``status``, ``message`` and ``notes`` and no result. The GIL is
    released while the runs go."""
    names = list(grid)
    axes = [(name, [float(v) for v in grid[name]]) for name in names]
    native = model._native
    if output is None:
        if isolation != "thread":
            raise ValueError("isolation: worker processes write their runs to files; "
                             "give output=DIRECTORY")
        runs = []
        for index, (parameters, result, failure) in enumerate(
                _mdl._sweep_results(native, axes, jobs or 0, method=method, **options)):
            run = SweepRun(index, dict(parameters))
            if result is not None:
                run.result = Result(result, native.unit)
                run.notes = list(result.stats.notes)
            elif failure is not None:
                try:
                    failure.raise_()
                except (NumericalFailure, ValueError) as error:
                    run.error = error
                    run.status = "failed" if isinstance(error, NumericalFailure) else "error"
                    run.message = str(error)
            else:
                run.status, run.message = "interrupted", "not started"
            runs.append(run)
        return runs
    if isolation not in ("thread", "process"):
        raise ValueError(f"isolation: 'thread' or 'process', got {isolation!r}")
    outcomes = _mdl._sweep_files(native, axes, str(output), jobs or 0, isolation == "process",
                                 not summary_only, method=method, **options)
    points = [dict(zip(names, values))
              for values in itertools.product(*(values for _, values in axes))]
    runs = []
    for index, (status, message, notes) in enumerate(outcomes):
        run = SweepRun(index, points[index])
        run.status, run.message = status, message
        run.notes = notes.splitlines()
        runs.append(run)
    return runs


def export_fmu(model, path, method=None, parameters=None, cpu=None, **options):
    """Exports ``model`` (a .mdl file's path, or a ``Model`` with its current parameters) as an
    FMI 2.0 FMU at ``path``, integrating with ``method`` and the options of ``mdl run`` (as
    ``mdl export --fmu``; docs/fmi.md). ``parameters``: exported values by name (Integer ones fix
    the structure of a model file); ``cpu``: the kernels' CPU (default x86-64). Returns a dict:
    identifier, method, model_exchange, variables."""
    return _mdl._export_fmu(_export_source(model), str(path), method=method,
                            parameters=parameters, cpu=cpu or "x86-64", **options)


def export_c_library(model, folder, method=None, parameters=None, cpu=None, **options):
    """Exports ``model`` as a C library into ``folder`` (libNAME.a, libNAME.so, NAME.h with
    NAME_simulate), as ``mdl export --c-library``; the arguments as ``export_fmu``."""
    return _mdl._export_c_library(_export_source(model), str(folder), method=method,
                                  parameters=parameters, cpu=cpu or "x86-64", **options)


def _export_source(model):
    return model._native if isinstance(model, Model) else str(model)


def set_warning_handler(handler):
    """Where the library's warnings go (a damaged code-cache entry, a sweep's worker process that
    could not be replaced): ``handler(text)``, or None to drop them. By default they are issued
    as ``RuntimeWarning`` with ``warnings.warn``."""
    _mdl._set_warning_handler(handler)


def _warn(text):
    warnings.warn(text, RuntimeWarning, stacklevel=2)


set_warning_handler(_warn)
