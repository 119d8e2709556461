"""laysim from Python: the C library's handles (include/laysim/laysim.h) as objects.

    import laysim
    model = laysim.Model("zoo:bert-base", layers=2, seq=128)
    target = laysim.Target("nc-v2")
    with laysim.Instance(model, target) as inst:
        sol = inst.solve("exact")
        res = inst.compile(sol).simulate(target)
        print(sol.cost, res.cycles)

Errors raise laysim.Error (InputError for bad input, LimitError for a limit reached) with
the library's message. Objects free their C handle on close(), at the end of a with
block, or when collected. Standard library only (ctypes). docs/python.md."""
import ctypes
import threading
from dataclasses import dataclass, field

from . import _lib
from ._lib import lib

IGNORE_MISMATCH = 1     # LAYSIM_IGNORE_MISMATCH

__all__ = ["Error", "InputError", "LimitError", "Model", "Target", "Table", "Instance",
           "Problem", "Solution", "Program", "SimResult", "EngineResult", "version", "zoo",
           "solvers", "calibrate", "validate_measured"]


class Error(Exception):
    """A failed laysim call: code (enum laysim_status) and the library's message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class InputError(Error, ValueError):
    """Bad input: a malformed file, an unknown name, a bad option (the CLI's exit 2)."""


class LimitError(Error):
    """A time or size limit was reached."""


_ERRORS = {1: InputError, 4: LimitError}
_tls = threading.local()


def _ctx():
    """This thread's context: it only carries the last error message, and every call's
    error is read right after the call, so one per thread is enough."""
    cx = getattr(_tls, "cx", None)
    if cx is None:
        cx = _tls.cx = _Context()
    return cx.handle


class _Context:
    def __init__(self):
        self.handle = lib.laysim_new()
        if not self.handle:
            raise MemoryError("laysim_new")

    def __del__(self):
        if lib and self.handle:
            lib.laysim_free(self.handle)


def _check(rc):
    if rc:
        msg = lib.laysim_errmsg(_ctx()).decode(errors="replace")
        raise _ERRORS.get(rc, Error)(rc, msg)


def _b(s):
    return None if s is None else str(s).encode()


def _s(b):
    return None if b is None else b.decode(errors="replace")


def _strings(items):
    """A NULL-terminated char ** for a list of strings, or None for an empty one (the
    ctypes array holds references to its bytes, so they live as long as it does)."""
    if not items:
        return None
    return (ctypes.c_char_p * (len(items) + 1))(*[_b(x) for x in items], None)


class _Handle:
    """An owned C handle, freed by close(), a with block or collection."""
    _free = None
    _h = None        # a constructor that raised before __init__ leaves nothing to free

    def __init__(self, handle):
        self._h = handle

    @property
    def handle(self):
        if not self._h:
            raise ValueError(f"{type(self).__name__} is closed")
        return self._h

    def close(self):
        if self._h and self._free:
            getattr(lib, self._free)(self._h)
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if lib:
            self.close()


def version():
    return _s(lib.laysim_version())


def zoo():
    """The names of the built-in zoo models (use them as Model("zoo:NAME"))."""
    return [_s(lib.laysim_zoo_name(i)) for i in range(lib.laysim_zoo_count())]


def solvers():
    """{name: one-line summary} of the registered solvers."""
    return {_s(lib.laysim_solver_name(i)): _s(lib.laysim_solver_summary(i))
            for i in range(lib.laysim_solver_count())}


class Model(_Handle):
    """A model: "zoo:NAME", a .lg file or a HuggingFace config.json, with the CLI's scaling
    options as keywords (layers, seq, batch, hidden, image, dtype, autocast)."""
    _free = "laysim_model_free"

    def __init__(self, spec, **options):
        h = ctypes.c_void_p()
        opts = _strings([f"{k}={v}" for k, v in options.items()])
        _check(lib.laysim_model_load(_ctx(), _b(spec), opts, ctypes.byref(h)))
        super().__init__(h.value)
        self.spec = spec

    @property
    def ops(self):
        return lib.laysim_model_ops(self.handle)

    @property
    def tensors(self):
        return lib.laysim_model_tensors(self.handle)


class Target(_Handle):
    """A hardware target: a built-in name ("nc-v2", "nc-v3") or an INI file; set() keys."""
    _free = "laysim_target_free"

    def __init__(self, name_or_file="nc-v2", **settings):
        h = ctypes.c_void_p()
        _check(lib.laysim_target_load(_ctx(), _b(name_or_file), ctypes.byref(h)))
        super().__init__(h.value)
        for k, v in settings.items():
            self.set(k.replace("__", "."), v)

    def set(self, key, value):
        """Set one key ("pe.rows", 64); the target is unchanged when this raises."""
        if isinstance(value, bool):
            value = int(value)
        _check(lib.laysim_target_set(_ctx(), self.handle, _b(key), _b(value)))
        return self

    @property
    def name(self):
        return _s(lib.laysim_target_name(self.handle))

    @property
    def hash(self):
        return f"{lib.laysim_target_hash(self.handle):016x}"


class Table(_Handle):
    """A latency table: Table.default(target), Table.load(path), or calibrate()."""
    _free = "laysim_table_free"

    @classmethod
    def default(cls, target):
        h = ctypes.c_void_p()
        _check(lib.laysim_table_default(_ctx(), target.handle, ctypes.byref(h)))
        return cls(h.value)

    @classmethod
    def load(cls, path):
        h = ctypes.c_void_p()
        _check(lib.laysim_table_load(_ctx(), _b(path), ctypes.byref(h)))
        return cls(h.value)

    def write(self, path):
        _check(lib.laysim_table_write(_ctx(), self.handle, _b(path)))


def calibrate(target, traces=(), microbench=False, prior=None, programs=None,
              keep_worse=False, with_verdict=False):
    """Fit a latency table from .lstrace files and/or the microbenchmarks, as
    `laysim calibrate` does. programs: one program path per trace (their dependencies
    give the dependency latency). The prior comes back when the fit predicts held-out
    traces or left-out models worse (unless keep_worse); with_verdict=True returns
    (table, is_prior)."""
    h = ctypes.c_void_p()
    is_prior = ctypes.c_int(0)
    progs = _strings(list(programs)) if programs is not None else None
    _check(lib.laysim_calibrate_ex(_ctx(), target.handle, prior.handle if prior else None,
                                   _strings(list(traces)), progs, int(bool(microbench)),
                                   1 if keep_worse else 0, ctypes.byref(h),
                                   ctypes.byref(is_prior)))
    table = Table(h.value)
    return (table, bool(is_prior.value)) if with_verdict else table


def _solve_options(time_limit, seed, threads, node_limit, params, reward, keep):
    """laysim_solve_options from solve()'s keywords; keep holds what C points into."""
    o = _lib.SolveOptions()
    lib.laysim_solve_options_init(ctypes.byref(o))
    o.time_limit = time_limit or 0.0
    o.seed, o.threads, o.node_limit = seed, threads, node_limit
    if params:
        keep.append(_strings([f"{k}={v}" for k, v in params.items()]))
        o.params = ctypes.cast(keep[-1], ctypes.POINTER(ctypes.c_char_p))
    if reward is not None:
        def trampoline(_user, cfg, nops, out):
            try:
                out[0] = float(reward([cfg[i] for i in range(nops)]))
                return 0
            except Exception:      # an exception cannot cross C: stop the solver instead
                return 1
        keep.append(_lib.REWARD_FN(trampoline))
        o.reward = keep[-1]
    return o


def _solve(c_solve, handle, problem, solver, time_limit=None, seed=1, threads=1, node_limit=0,
           params=None, reward=None):
    keep = []
    o = _solve_options(time_limit, seed, threads, node_limit, params, reward, keep)
    h = ctypes.c_void_p()
    _check(c_solve(_ctx(), handle, _b(solver), ctypes.byref(o), ctypes.byref(h)))
    return Solution(h.value, problem)


class Problem(_Handle):
    """A layout selection problem (.lsp): Problem.read(path), Problem.new() to build one,
    or Instance.problem."""
    _free = "laysim_problem_free"

    def __init__(self, handle, owner=None):
        super().__init__(handle)
        self._owner = owner          # an instance's problem lives as long as the instance

    @classmethod
    def read(cls, path):
        h = ctypes.c_void_p()
        _check(lib.laysim_problem_read(_ctx(), _b(path), ctypes.byref(h)))
        return cls(h.value)

    @classmethod
    def new(cls):
        """An empty problem to build by hand: add_tensor, add_op, add_config, finish."""
        h = ctypes.c_void_p()
        _check(lib.laysim_problem_new(_ctx(), ctypes.byref(h)))
        return cls(h.value)

    def add_tensor(self, name, layouts, transpose=None):
        """layouts: the number of layouts, or their labels; transpose: L rows of L costs
        (None when L == 1). Returns the tensor's id."""
        labels = None if isinstance(layouts, int) else list(layouts)
        n = layouts if labels is None else len(labels)
        tr = None
        if transpose is not None:
            flat = [int(c) for row in transpose for c in row]
            tr = (ctypes.c_int64 * len(flat))(*flat)
        i = ctypes.c_int32()
        _check(lib.laysim_problem_add_tensor(_ctx(), self.handle, _b(name), n, _strings(labels),
                                             tr, ctypes.byref(i)))
        return i.value

    def add_op(self, name, kind, inputs=(), output=None):
        """inputs: tensor ids (already produced); output: a declared tensor id or None.
        Returns the op's id; its configurations follow with add_config."""
        ins = (ctypes.c_int32 * max(len(inputs), 1))(*inputs)
        i = ctypes.c_int32()
        _check(lib.laysim_problem_add_op(_ctx(), self.handle, _b(name), _b(kind), len(inputs),
                                         ins, -1 if output is None else output, ctypes.byref(i)))
        return i.value

    def add_config(self, op, cost, layouts):
        """A configuration of the last added op: the layouts of its inputs, then output."""
        arr = (ctypes.c_int32 * max(len(layouts), 1))(*layouts)
        _check(lib.laysim_problem_add_config(_ctx(), self.handle, op, int(cost), arr))

    def finish(self):
        _check(lib.laysim_problem_finish(_ctx(), self.handle))
        return self

    def close(self):
        if self._owner is not None:  # borrowed: the instance frees it
            self._h = None
        else:
            super().close()

    def write(self, path):
        _check(lib.laysim_problem_write(_ctx(), self.handle, _b(path)))

    @property
    def ops(self):
        return [_s(lib.laysim_problem_op_name(self.handle, i))
                for i in range(lib.laysim_problem_ops(self.handle))]

    @property
    def tensors(self):
        return [_s(lib.laysim_problem_tensor_name(self.handle, i))
                for i in range(lib.laysim_problem_tensors(self.handle))]

    def evaluate(self, configs):
        """The objective of a full assignment (one configuration index per op)."""
        arr = (ctypes.c_int32 * len(configs))(*configs)
        if len(configs) != lib.laysim_problem_ops(self.handle):
            raise InputError(1, f"expected {lib.laysim_problem_ops(self.handle)} configurations")
        v = lib.laysim_problem_eval(self.handle, arr)
        if v < 0:
            raise InputError(1, "a configuration index is out of range")
        return v

    def solve(self, solver="rulebased", **options):
        """Run a solver. Keywords: time_limit (s), seed, threads, node_limit, params (a dict
        of the solver's knobs), reward (mcts: a function of the configuration list, lower
        is better; a bare problem has no simulator, so mcts needs one)."""
        return _solve(lib.laysim_solve, self.handle, self, solver, **options)

    def read_solution(self, path):
        h = ctypes.c_void_p()
        _check(lib.laysim_solution_read(_ctx(), self.handle, _b(path), ctypes.byref(h)))
        return Solution(h.value, self)


class Solution(_Handle):
    """A solver's answer for a problem: status, cost, bound, configs, layouts."""
    _free = "laysim_solution_free"

    def __init__(self, handle, problem):
        super().__init__(handle)
        self.problem = problem

    @property
    def status(self):
        return _s(lib.laysim_solution_status_name(self.handle))

    @property
    def cost(self):
        return lib.laysim_solution_cost(self.handle) if self.has_assignment else None

    @property
    def has_assignment(self):
        return bool(lib.laysim_solution_has_assignment(self.handle))

    @property
    def bound(self):
        b = ctypes.c_int64()
        return b.value if lib.laysim_solution_bound(self.handle, ctypes.byref(b)) else None

    @property
    def seconds(self):
        return lib.laysim_solution_seconds(self.handle)

    @property
    def configs(self):
        """{op name: configuration index}."""
        p = self.problem.handle
        return {_s(lib.laysim_problem_op_name(p, i)): lib.laysim_solution_config(self.handle, i)
                for i in range(lib.laysim_problem_ops(p))}

    @property
    def layouts(self):
        """{tensor name: layout label (or index when the problem has no labels)}."""
        p, out = self.problem.handle, {}
        for t in range(lib.laysim_problem_tensors(p)):
            label = ctypes.c_char_p()
            idx = lib.laysim_solution_layout(p, self.handle, t, ctypes.byref(label))
            out[_s(lib.laysim_problem_tensor_name(p, t))] = _s(label.value) if label.value else idx
        return out

    def layout_listing(self):
        """What `laysim solve --layouts --json` lists under "layouts": per tensor a dict with
        tensor, layout (label, or index as a string), producer, producer_cfg, consumers
        [{op, slot, layout}] and the conversions paid [{to, cost}]. [] without an
        assignment."""
        if not self.has_assignment:
            return []
        n = lib.laysim_problem_tensors(self.problem.handle)
        return [self._tensor_listing(t) for t in range(n)]

    def _tensor_listing(self, t):
        p, s = self.problem.handle, self.handle
        label = ctypes.c_char_p()

        def name(idx):                     # the CLI's spelling: the label, else the index
            return _s(label.value) if label.value else str(idx)

        producer = lib.laysim_problem_tensor_producer(p, t)
        out = {"tensor": _s(lib.laysim_problem_tensor_name(p, t)),
               "layout": name(lib.laysim_solution_layout(p, s, t, ctypes.byref(label))),
               "producer": _s(lib.laysim_problem_op_name(p, producer)),
               "producer_cfg": lib.laysim_solution_config(s, producer),
               "consumers": [], "conversions": []}
        op, slot, cost = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int64()
        for i in range(lib.laysim_problem_tensor_uses(p, t)):
            layout = lib.laysim_solution_use_layout(p, s, t, i, ctypes.byref(op),
                                                    ctypes.byref(slot), ctypes.byref(label))
            out["consumers"].append({"op": _s(lib.laysim_problem_op_name(p, op.value)),
                                     "slot": slot.value, "layout": name(layout)})
        i = 0
        while (to := lib.laysim_solution_conversion(p, s, t, i, ctypes.byref(label),
                                                    ctypes.byref(cost))) >= 0:
            out["conversions"].append({"to": name(to), "cost": cost.value})
            i += 1
        return out

    def write(self, path):
        _check(lib.laysim_solution_write(_ctx(), self.problem.handle, self.handle, _b(path)))

    def as_dict(self):
        return {"status": self.status, "cost": self.cost, "bound": self.bound,
                "seconds": self.seconds, "configs": self.configs}


class Instance(_Handle):
    """A model priced on a target with a latency table (default: the target's datasheet
    table): its problem, solving (mcts rewarded by the simulated time unless given a
    reward), compiling. The model must stay open while the instance is used."""
    _free = "laysim_instance_free"

    def __init__(self, model, target, table=None):
        h = ctypes.c_void_p()
        _check(lib.laysim_instance_new(_ctx(), model.handle, target.handle,
                                       table.handle if table else None, ctypes.byref(h)))
        super().__init__(h.value)
        self.model = model
        self.problem = Problem(lib.laysim_instance_problem(self._h), owner=self)

    def close(self):
        if self._h:
            self.problem.close()
        super().close()

    def solve(self, solver="rulebased", **options):
        """As Problem.solve, on this instance's problem."""
        return _solve(lib.laysim_instance_solve, self.handle, self.problem, solver, **options)

    def compile(self, solution=None, ignore_mismatch=False):
        """The program of a solution (None: configuration 0 everywhere). A solution whose
        hash headers name another model, target, table or problem raises InputError
        saying what differs, unless ignore_mismatch."""
        h = ctypes.c_void_p()
        flags = IGNORE_MISMATCH if ignore_mismatch else 0
        _check(lib.laysim_compile_ex(_ctx(), self.handle, solution.handle if solution else None,
                                     flags, ctypes.byref(h)))
        return Program(h.value)


@dataclass
class EngineResult:
    instructions: int
    busy_cycles: int
    utilization: float


@dataclass
class SimResult:
    cycles: int
    ns: float
    instructions: int
    dma_bytes: int
    conversion_share: float
    engines: dict = field(default_factory=dict)   # {"pe": EngineResult, ...}


class Program(_Handle):
    """An instruction program: Instance.compile(...) or Program.load(path)."""
    _free = "laysim_program_free"

    @classmethod
    def load(cls, path):
        h = ctypes.c_void_p()
        _check(lib.laysim_program_load(_ctx(), _b(path), ctypes.byref(h)))
        return cls(h.value)

    def write(self, path):
        _check(lib.laysim_program_write(_ctx(), self.handle, _b(path)))

    @property
    def instructions(self):
        return lib.laysim_program_instructions(self.handle)

    def simulate(self, target, trace=None):
        """Run on the simulator; trace: a .lstrace path to write."""
        r = _lib.SimResult()
        _check(lib.laysim_simulate(_ctx(), target.handle, self.handle, _b(trace), ctypes.byref(r)))
        engines = {_s(lib.laysim_engine_name(e)): EngineResult(r.engine[e].instructions,
                                                               r.engine[e].busy_cycles,
                                                               r.engine[e].utilization)
                   for e in range(_lib.ENGINES)}
        return SimResult(r.cycles, r.ns, r.instructions, r.dma_bytes, r.conversion_share, engines)


def validate_measured(manifest, base_mhz=0.0):
    """The fidelity figures of a `laysim validate --emit` manifest filled with measured
    times (`laysim validate --measured`): a dict of models, rows, pairs, pairs_correct,
    pairs_identical, pairwise_accuracy, kendall_tau, median_rel_error, max_rel_error,
    exact_within_1pct_all. base_mhz: the clock of rows without one (0: nc-v2's 1400)."""
    r = _lib.Fidelity()
    _check(lib.laysim_validate_measured(_ctx(), _b(manifest), float(base_mhz), ctypes.byref(r)))
    d = {name: getattr(r, name) for name, _ in _lib.Fidelity._fields_}
    d["exact_within_1pct_all"] = bool(d["exact_within_1pct_all"])
    return d
