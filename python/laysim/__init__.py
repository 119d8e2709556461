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
import os
from dataclasses import dataclass, field

from . import _lib
from ._core import Error, Handle, InputError, LimitError, call, need, strings, using
from ._core import b as _b
from ._core import s as _s
from ._lib import lib

IGNORE_MISMATCH = 1     # LAYSIM_IGNORE_MISMATCH

__all__ = ["Error", "InputError", "LimitError", "Model", "Target", "Table", "Instance",
           "Problem", "Solution", "Program", "SimResult", "EngineResult", "version", "zoo",
           "model_options", "solvers", "calibrate", "validate_measured"]


def _text(x, what):
    """A required string argument (a str or a path) as bytes: TypeError otherwise."""
    if isinstance(x, os.PathLike):
        x = os.fspath(x)
    if not isinstance(x, (str, bytes)):
        raise TypeError(f"{what}: expected a string or a path, got {type(x).__name__}")
    return x if isinstance(x, bytes) else x.encode()


def _opt_text(x, what):
    return None if x is None else _text(x, what)


def _out(fn, *args):
    """call(fn, *args, &handle) for a constructor; the new handle."""
    h = ctypes.c_void_p()
    call(fn, *args, ctypes.byref(h))
    return h.value


def version():
    return _s(lib.laysim_version())


def zoo():
    """The names of the built-in zoo models (use them as Model("zoo:NAME"))."""
    return [_s(lib.laysim_zoo_name(i)) for i in range(lib.laysim_zoo_count())]


def model_options():
    """The names of the model options (Model keywords; the CLI's --NAME VALUE)."""
    return [_s(lib.laysim_model_option_name(i)) for i in range(lib.laysim_model_option_count())]


def _dims(dims):
    """An input shape: "1x128" as it is, or a sequence of ints joined by x."""
    if isinstance(dims, str):
        return dims
    return "x".join(str(int(d)) for d in dims)


def _model_option_list(options):
    """Model keywords as the C API's "NAME=VALUE" strings. input= is a dict {name: dims},
    one "NAME=DIMS" string or a list of them (dims: "1x128" or (1, 128)); autocast= also
    takes True (matmul) and False (none)."""
    out = []
    for key, value in options.items():
        if key == "input":
            if isinstance(value, dict):
                entries = [f"{name}={_dims(d)}" for name, d in value.items()]
            else:
                entries = [value] if isinstance(value, str) else list(value)
            out += [f"input={e}" for e in entries]
        elif key == "autocast" and isinstance(value, bool):
            out.append(f"autocast={'matmul' if value else 'none'}")
        else:
            out.append(f"{key}={value}")
    return out


def solvers():
    """{name: one-line summary} of the registered solvers."""
    return {_s(lib.laysim_solver_name(i)): _s(lib.laysim_solver_summary(i))
            for i in range(lib.laysim_solver_count())}


class Model(Handle):
    """A model: "zoo:NAME", a .lg file, a HuggingFace config.json, an ONNX model, a TF.js
    model.json, with every model option of the CLI as a keyword (model_options(): layers,
    seq, batch, hidden, image, dtype, autocast, decode, input), e.g.
    Model("m.onnx", input={"x": (1, 128)}, batch=2)."""
    _free = "laysim_model_free"

    def __init__(self, spec, **options):
        opts = strings(_model_option_list(options))
        super().__init__(_out(lib.laysim_model_load, _text(spec, "spec"), opts))
        self.spec = spec

    @property
    def ops(self):
        with using(self) as (h,):
            return lib.laysim_model_ops(h)

    @property
    def tensors(self):
        with using(self) as (h,):
            return lib.laysim_model_tensors(h)

    def _describe(self):
        return f"{self.spec!r}: {self.ops} ops, {self.tensors} tensors"


class Target(Handle):
    """A hardware target: a built-in name ("nc-v2", "nc-v3") or an INI file; set() keys."""
    _free = "laysim_target_free"

    def __init__(self, name_or_file="nc-v2", **settings):
        super().__init__(_out(lib.laysim_target_load, _text(name_or_file, "target")))
        for k, v in settings.items():
            self.set(k.replace("__", "."), v)

    def set(self, key, value):
        """Set one key ("pe.rows", 64); the target is unchanged when this raises."""
        if isinstance(value, bool):
            value = int(value)
        with using(self) as (h,):
            call(lib.laysim_target_set, h, _text(key, "key"), _b(value))
        return self

    @property
    def name(self):
        with using(self) as (h,):
            return _s(lib.laysim_target_name(h))

    @property
    def hash(self):
        with using(self) as (h,):
            return f"{lib.laysim_target_hash(h):016x}"

    def _describe(self):
        return f"{self.name} (hash {self.hash})"


class Table(Handle):
    """A latency table: Table.default(target), Table.load(path), or calibrate()."""
    _free = "laysim_table_free"

    def __init__(self, handle, origin=""):
        super().__init__(handle)
        self.origin = origin

    @classmethod
    def default(cls, target):
        with using(need(target, Target, "target")) as (t,):
            return cls(_out(lib.laysim_table_default, t), f"default of {target.name}")

    @classmethod
    def load(cls, path):
        return cls(_out(lib.laysim_table_load, _text(path, "path")), f"from {path}")

    def write(self, path):
        with using(self) as (h,):
            call(lib.laysim_table_write, h, _text(path, "path"))

    def _describe(self):
        return self.origin


def calibrate(target, traces=(), microbench=False, prior=None, programs=None,
              keep_worse=False, with_verdict=False):
    """Fit a latency table from .lstrace files and/or the microbenchmarks, as
    `laysim calibrate` does. programs: one program path per trace (their dependencies
    give the dependency latency). The prior comes back when the fit predicts held-out
    traces or left-out models worse (unless keep_worse); with_verdict=True returns
    (table, is_prior)."""
    need(target, Target, "target")
    need(prior, Table, "prior", optional=True)
    h = ctypes.c_void_p()
    is_prior = ctypes.c_int(0)
    progs = strings([_text(p, "programs") for p in programs]) if programs is not None else None
    trs = strings([_text(t, "traces") for t in traces])
    with using(target, prior) as (t, pr):
        call(lib.laysim_calibrate_ex, t, pr, trs, progs, int(bool(microbench)),
             1 if keep_worse else 0, ctypes.byref(h), ctypes.byref(is_prior))
    table = Table(h.value, "calibrated" + (" (the prior)" if is_prior.value else ""))
    return (table, bool(is_prior.value)) if with_verdict else table


class _Reward:
    """The C reward callback around a Python function. An exception in it (which cannot
    cross C) stops the solver; the solve then raises that exception itself."""

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(f"reward: expected a function, got {type(fn).__name__}")
        self.fn, self.exc = fn, None
        self.c_fn = _lib.REWARD_FN(self._call)

    def _call(self, _user, cfg, nops, out):
        if self.exc is not None:
            return 1
        try:
            out[0] = float(self.fn([cfg[i] for i in range(nops)]))
            return 0
        except BaseException as e:    # KeyboardInterrupt too: re-raised after the solve
            self.exc = e
            return 1


def _solve_options(time_limit, seed, threads, node_limit, params, reward, keep):
    """laysim_solve_options from solve()'s keywords; keep holds what C points into."""
    o = _lib.SolveOptions()
    lib.laysim_solve_options_init(ctypes.byref(o))
    o.time_limit = time_limit or 0.0
    o.seed, o.threads, o.node_limit = seed, threads, node_limit
    if params:
        keep.append(strings([f"{k}={v}" for k, v in params.items()]))
        o.params = ctypes.cast(keep[-1], ctypes.POINTER(ctypes.c_char_p))
    if reward is not None:
        keep.append(_Reward(reward))
        o.reward = keep[-1].c_fn
    return o


def _solve(c_solve, owner, problem, solver, time_limit=None, seed=1, threads=1, node_limit=0,
           params=None, reward=None):
    keep = []
    o = _solve_options(time_limit, seed, threads, node_limit, params, reward, keep)
    h = ctypes.c_void_p()
    with using(owner) as (oh,):
        try:
            call(c_solve, oh, _text(solver, "solver"), ctypes.byref(o), ctypes.byref(h))
        except Error as e:
            r = keep[-1] if keep and isinstance(keep[-1], _Reward) else None
            if r is not None and r.exc is not None:
                raise r.exc from e       # the callback's own exception and traceback
            raise
    return Solution(h.value, problem)


class Problem(Handle):
    """A layout selection problem (.lsp): Problem.read(path), Problem.new() to build one,
    or Instance.problem."""
    _free = "laysim_problem_free"

    def __init__(self, handle, owner=None):
        super().__init__(handle)
        self._owner = owner          # an instance's problem lives as long as the instance

    @classmethod
    def read(cls, path):
        return cls(_out(lib.laysim_problem_read, _text(path, "path")))

    @classmethod
    def new(cls):
        """An empty problem to build by hand: add_tensor, add_op, add_config, finish."""
        return cls(_out(lib.laysim_problem_new))

    def acquire(self):               # a borrowed problem: its instance is in use too
        if self._owner is not None:
            self._owner.acquire()
        try:
            return super().acquire()
        except BaseException:
            if self._owner is not None:
                self._owner.release()
            raise

    def release(self):
        super().release()
        if self._owner is not None:
            self._owner.release()

    def _destroy(self):
        if self._owner is None:      # borrowed: the instance frees it
            super()._destroy()
        self._h = None

    def add_tensor(self, name, layouts, transpose=None):
        """layouts: the number of layouts, or their labels; transpose: L rows of L costs
        (None when L == 1). Returns the tensor's id."""
        labels = None if isinstance(layouts, int) else [str(x) for x in layouts]
        n = layouts if labels is None else len(labels)
        flat = [int(c) for row in transpose for c in row] if transpose is not None else []
        tr = (ctypes.c_int64 * len(flat))(*flat) if flat else None
        i = ctypes.c_int32()
        with using(self) as (h,):
            call(lib.laysim_problem_add_tensor_n, h, _text(name, "name"), n, strings(labels),
                 len(flat), tr, ctypes.byref(i))
        return i.value

    def add_op(self, name, kind, inputs=(), output=None):
        """inputs: tensor ids (already produced); output: a declared tensor id or None.
        Returns the op's id; its configurations follow with add_config."""
        ins = (ctypes.c_int32 * max(len(inputs), 1))(*inputs)
        i = ctypes.c_int32()
        with using(self) as (h,):
            call(lib.laysim_problem_add_op, h, _text(name, "name"), _text(kind, "kind"),
                 len(inputs), ins, -1 if output is None else output, ctypes.byref(i))
        return i.value

    def add_config(self, op, cost, layouts):
        """A configuration of the last added op: the layouts of its inputs, then output."""
        layouts = list(layouts)
        arr = (ctypes.c_int32 * max(len(layouts), 1))(*layouts)
        with using(self) as (h,):
            call(lib.laysim_problem_add_config_n, h, op, int(cost), len(layouts), arr)

    def finish(self):
        with using(self) as (h,):
            call(lib.laysim_problem_finish, h)
        return self

    def write(self, path):
        with using(self) as (h,):
            call(lib.laysim_problem_write, h, _text(path, "path"))

    @property
    def ops(self):
        with using(self) as (h,):
            return [_s(lib.laysim_problem_op_name(h, i)) for i in range(lib.laysim_problem_ops(h))]

    @property
    def tensors(self):
        with using(self) as (h,):
            return [_s(lib.laysim_problem_tensor_name(h, i))
                    for i in range(lib.laysim_problem_tensors(h))]

    def evaluate(self, configs):
        """The objective of a full assignment (one configuration index per op)."""
        configs = list(configs)
        arr = (ctypes.c_int32 * max(len(configs), 1))(*configs)
        with using(self) as (h,):
            nops = lib.laysim_problem_ops(h)
            if len(configs) != nops:
                raise InputError(1, f"expected {nops} configurations, got {len(configs)}")
            v = lib.laysim_problem_eval(h, arr)
        if v < 0:
            raise InputError(1, "a configuration index is out of range (or the problem is not "
                             "finished)")
        return v

    def solve(self, solver="rulebased", **options):
        """Run a solver. Keywords: time_limit (s), seed, threads, node_limit, params (a dict
        of the solver's knobs), reward (mcts: a function of the configuration list, lower
        is better; a bare problem has no simulator, so mcts needs one)."""
        return _solve(lib.laysim_solve, self, self, solver, **options)

    def read_solution(self, path):
        with using(self) as (h,):
            return Solution(_out(lib.laysim_solution_read, h, _text(path, "path")), self)

    def _describe(self):
        with using(self) as (h,):
            nops, nt = lib.laysim_problem_ops(h), lib.laysim_problem_tensors(h)
        whose = " of an instance" if self._owner is not None else ""
        return f"{nops} ops, {nt} tensors{whose}"


class Solution(Handle):
    """A solver's answer for a problem: status, cost, bound, configs, layouts."""
    _free = "laysim_solution_free"

    def __init__(self, handle, problem):
        super().__init__(handle)
        self.problem = problem

    @property
    def status(self):
        with using(self) as (h,):
            return _s(lib.laysim_solution_status_name(h))

    @property
    def cost(self):
        with using(self) as (h,):
            return lib.laysim_solution_cost(h) if lib.laysim_solution_has_assignment(h) else None

    @property
    def has_assignment(self):
        with using(self) as (h,):
            return bool(lib.laysim_solution_has_assignment(h))

    @property
    def bound(self):
        bound = ctypes.c_int64()
        with using(self) as (h,):
            return bound.value if lib.laysim_solution_bound(h, ctypes.byref(bound)) else None

    @property
    def seconds(self):
        with using(self) as (h,):
            return lib.laysim_solution_seconds(h)

    @property
    def configs(self):
        """{op name: configuration index}."""
        with using(self.problem, self) as (p, h):
            return {_s(lib.laysim_problem_op_name(p, i)): lib.laysim_solution_config(h, i)
                    for i in range(lib.laysim_problem_ops(p))}

    @property
    def layouts(self):
        """{tensor name: layout label (or index when the problem has no labels)}."""
        out = {}
        with using(self.problem, self) as (p, h):
            for t in range(lib.laysim_problem_tensors(p)):
                label = ctypes.c_char_p()
                idx = lib.laysim_solution_layout(p, h, t, ctypes.byref(label))
                out[_s(lib.laysim_problem_tensor_name(p, t))] = (_s(label.value) if label.value
                                                                 else idx)
        return out

    def layout_listing(self):
        """What `laysim solve --layouts --json` lists under "layouts": per tensor a dict with
        tensor, layout (label, or index as a string), producer, producer_cfg, consumers
        [{op, slot, layout}] and the conversions paid [{to, cost}]. [] without an
        assignment."""
        with using(self.problem, self) as (p, h):
            if not lib.laysim_solution_has_assignment(h):
                return []
            return [_tensor_listing(p, h, t) for t in range(lib.laysim_problem_tensors(p))]

    def write(self, path):
        with using(self.problem, self) as (p, h):
            call(lib.laysim_solution_write, p, h, _text(path, "path"))

    def as_dict(self):
        return {"status": self.status, "cost": self.cost, "bound": self.bound,
                "seconds": self.seconds, "configs": self.configs}

    def _describe(self):
        unit = " cycles" if getattr(self.problem, "_owner", None) is not None else ""
        bound = self.bound
        cost = "no assignment" if self.cost is None else f"cost {self.cost}{unit}"
        return f"{self.status}, {cost}" + ("" if bound is None else f", bound {bound}{unit}")


def _tensor_listing(p, s, t):
    """One entry of Solution.layout_listing (p, s: handles in use)."""
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


class Instance(Handle):
    """A model priced on a target with a latency table (default: the target's datasheet
    table): its problem, solving (mcts rewarded by the simulated time unless given a
    reward), compiling. It keeps its model alive (closing the model first is safe)."""
    _free = "laysim_instance_free"

    def __init__(self, model, target, table=None):
        need(model, Model, "model")
        need(target, Target, "target")
        need(table, Table, "table", optional=True)
        with using(model, target, table) as (m, t, tb):
            super().__init__(_out(lib.laysim_instance_new, m, t, tb))
        self.model, self.target, self.table = model, target, table
        self.problem = Problem(lib.laysim_instance_problem(self._h), owner=self)

    def close(self):
        if getattr(self, "problem", None) is not None:
            self.problem.close()
        super().close()

    def solve(self, solver="rulebased", **options):
        """As Problem.solve, on this instance's problem."""
        return _solve(lib.laysim_instance_solve, self, self.problem, solver, **options)

    def compile(self, solution=None, ignore_mismatch=False):
        """The program of a solution (None: configuration 0 everywhere). A solution whose
        hash headers name another model, target, table or problem raises InputError
        saying what differs, unless ignore_mismatch."""
        need(solution, Solution, "solution", optional=True)
        flags = IGNORE_MISMATCH if ignore_mismatch else 0
        with using(self, solution) as (h, s):
            return Program(_out(lib.laysim_compile_ex, h, s, flags))

    def _describe(self):
        with using(self.problem) as (p,):
            nops = lib.laysim_problem_ops(p)
        return f"of {self.model.spec!r} on {self.target.name}: {nops} ops"


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


class Program(Handle):
    """An instruction program: Instance.compile(...) or Program.load(path)."""
    _free = "laysim_program_free"

    @classmethod
    def load(cls, path):
        return cls(_out(lib.laysim_program_load, _text(path, "path")))

    def write(self, path):
        with using(self) as (h,):
            call(lib.laysim_program_write, h, _text(path, "path"))

    @property
    def instructions(self):
        with using(self) as (h,):
            return lib.laysim_program_instructions(h)

    def simulate(self, target, trace=None):
        """Run on the simulator; trace: a .lstrace path to write."""
        need(target, Target, "target")
        r = _lib.SimResult()
        with using(target, self) as (t, h):
            call(lib.laysim_simulate, t, h, _opt_text(trace, "trace"), ctypes.byref(r))
        engines = {_s(lib.laysim_engine_name(e)): EngineResult(r.engine[e].instructions,
                                                               r.engine[e].busy_cycles,
                                                               r.engine[e].utilization)
                   for e in range(_lib.ENGINES)}
        return SimResult(r.cycles, r.ns, r.instructions, r.dma_bytes, r.conversion_share, engines)

    def _describe(self):
        return f"{self.instructions} instructions"


def validate_measured(manifest, base_mhz=0.0):
    """The fidelity figures of a `laysim validate --emit` manifest filled with measured
    times (`laysim validate --measured`): a dict of models, rows, pairs, pairs_correct,
    pairs_identical, pairwise_accuracy, kendall_tau, median_rel_error, max_rel_error,
    exact_within_1pct_all. base_mhz: the clock of rows without one (0: nc-v2's 1400)."""
    r = _lib.Fidelity()
    call(lib.laysim_validate_measured, _text(manifest, "manifest"), float(base_mhz),
         ctypes.byref(r))
    d = {name: getattr(r, name) for name, _ in _lib.Fidelity._fields_}
    d["exact_within_1pct_all"] = bool(d["exact_within_1pct_all"])
    return d
