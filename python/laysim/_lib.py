"""Loading liblaysim.so and declaring the C functions (include/laysim/laysim.h)."""
import ctypes
import ctypes.util
import glob
import os

c_int, c_int32, c_int64, c_uint64, c_double = (ctypes.c_int, ctypes.c_int32, ctypes.c_int64,
                                              ctypes.c_uint64, ctypes.c_double)
c_char_p, c_void_p, POINTER = ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER

ENGINES = 5

REWARD_FN = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(c_int32), c_int32, POINTER(c_double))


class SolveOptions(ctypes.Structure):
    _fields_ = [("time_limit", c_double), ("seed", c_uint64), ("threads", c_int),
                ("node_limit", c_uint64), ("params", POINTER(c_char_p)),
                ("reward", REWARD_FN), ("reward_user", c_void_p)]


class EngineResult(ctypes.Structure):
    _fields_ = [("instructions", c_uint64), ("busy_cycles", c_uint64), ("utilization", c_double)]


class SimResult(ctypes.Structure):
    _fields_ = [("cycles", c_uint64), ("ns", c_double), ("instructions", c_uint64),
                ("dma_bytes", c_uint64), ("conversion_share", c_double),
                ("engine", EngineResult * ENGINES)]


class Fidelity(ctypes.Structure):
    _fields_ = [("models", c_int32), ("rows", c_int32), ("pairs", c_int32),
                ("pairs_correct", c_int32), ("pairs_identical", c_int32),
                ("pairwise_accuracy", c_double), ("kendall_tau", c_double),
                ("median_rel_error", c_double), ("max_rel_error", c_double),
                ("exact_within_1pct_all", c_int32)]


def _candidates():
    """Where the library may be: $LAYSIM_LIBRARY, in the package (a pip install bundles it,
    python/setup.py), beside the installed package (PREFIX/lib/python3/site-packages/laysim
    -> PREFIX/lib), then the linker's path."""
    env = os.environ.get("LAYSIM_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, "liblaysim.so")
    if os.path.isfile(bundled):
        yield bundled
    libdir = os.path.normpath(os.path.join(here, "..", "..", ".."))
    yield from sorted(glob.glob(os.path.join(libdir, "liblaysim.so*")), key=len)
    found = ctypes.util.find_library("laysim")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise ImportError("laysim: cannot load liblaysim.so (set LAYSIM_LIBRARY to its path); tried: "
                      + ("; ".join(tried) or "nothing found"))


# name: (result type, argument types)
_H = c_void_p
_PROTOTYPES = {
    "laysim_version": (c_char_p, []),
    "laysim_new": (_H, []),
    "laysim_free": (None, [_H]),
    "laysim_errcode": (c_int, [_H]),
    "laysim_errmsg": (c_char_p, [_H]),
    "laysim_model_load": (c_int, [_H, c_char_p, POINTER(c_char_p), POINTER(_H)]),
    "laysim_model_free": (None, [_H]),
    "laysim_model_ops": (c_int32, [_H]),
    "laysim_model_option_count": (c_int32, []),
    "laysim_model_option_name": (c_char_p, [c_int32]),
    "laysim_model_tensors": (c_int32, [_H]),
    "laysim_zoo_count": (c_int32, []),
    "laysim_zoo_name": (c_char_p, [c_int32]),
    "laysim_target_load": (c_int, [_H, c_char_p, POINTER(_H)]),
    "laysim_target_set": (c_int, [_H, _H, c_char_p, c_char_p]),
    "laysim_target_free": (None, [_H]),
    "laysim_target_name": (c_char_p, [_H]),
    "laysim_target_hash": (c_uint64, [_H]),
    "laysim_table_default": (c_int, [_H, _H, POINTER(_H)]),
    "laysim_table_load": (c_int, [_H, c_char_p, POINTER(_H)]),
    "laysim_table_write": (c_int, [_H, _H, c_char_p]),
    "laysim_table_free": (None, [_H]),
    "laysim_calibrate": (c_int, [_H, _H, _H, POINTER(c_char_p), c_int, POINTER(_H)]),
    "laysim_calibrate_ex": (c_int, [_H, _H, _H, POINTER(c_char_p), POINTER(c_char_p), c_int,
                                    ctypes.c_uint, POINTER(_H), POINTER(c_int)]),
    "laysim_instance_new": (c_int, [_H, _H, _H, _H, POINTER(_H)]),
    "laysim_instance_free": (None, [_H]),
    "laysim_instance_problem": (_H, [_H]),
    "laysim_problem_read": (c_int, [_H, c_char_p, POINTER(_H)]),
    "laysim_problem_write": (c_int, [_H, _H, c_char_p]),
    "laysim_problem_free": (None, [_H]),
    "laysim_problem_new": (c_int, [_H, POINTER(_H)]),
    "laysim_problem_add_tensor": (c_int, [_H, _H, c_char_p, c_int32, POINTER(c_char_p),
                                          POINTER(c_int64), POINTER(c_int32)]),
    "laysim_problem_add_op": (c_int, [_H, _H, c_char_p, c_char_p, c_int32, POINTER(c_int32),
                                      c_int32, POINTER(c_int32)]),
    "laysim_problem_add_config": (c_int, [_H, _H, c_int32, c_int64, POINTER(c_int32)]),
    "laysim_problem_add_tensor_n": (c_int, [_H, _H, c_char_p, c_int32, POINTER(c_char_p),
                                            c_int64, POINTER(c_int64), POINTER(c_int32)]),
    "laysim_problem_add_config_n": (c_int, [_H, _H, c_int32, c_int64, c_int32,
                                            POINTER(c_int32)]),
    "laysim_problem_finish": (c_int, [_H, _H]),
    "laysim_problem_ops": (c_int32, [_H]),
    "laysim_problem_tensors": (c_int32, [_H]),
    "laysim_problem_op_name": (c_char_p, [_H, c_int32]),
    "laysim_problem_op_kind": (c_char_p, [_H, c_int32]),
    "laysim_problem_tensor_name": (c_char_p, [_H, c_int32]),
    "laysim_problem_op_configs": (c_int32, [_H, c_int32]),
    "laysim_problem_eval": (c_int64, [_H, POINTER(c_int32)]),
    "laysim_solve_options_init": (None, [POINTER(SolveOptions)]),
    "laysim_solver_count": (c_int32, []),
    "laysim_solver_name": (c_char_p, [c_int32]),
    "laysim_solver_summary": (c_char_p, [c_int32]),
    "laysim_solve": (c_int, [_H, _H, c_char_p, POINTER(SolveOptions), POINTER(_H)]),
    "laysim_instance_solve": (c_int, [_H, _H, c_char_p, POINTER(SolveOptions), POINTER(_H)]),
    "laysim_solution_read": (c_int, [_H, _H, c_char_p, POINTER(_H)]),
    "laysim_solution_write": (c_int, [_H, _H, _H, c_char_p]),
    "laysim_solution_free": (None, [_H]),
    "laysim_solution_status_name": (c_char_p, [_H]),
    "laysim_solution_has_assignment": (c_int, [_H]),
    "laysim_solution_cost": (c_int64, [_H]),
    "laysim_solution_bound": (c_int, [_H, POINTER(c_int64)]),
    "laysim_solution_seconds": (c_double, [_H]),
    "laysim_solution_config": (c_int32, [_H, c_int32]),
    "laysim_solution_layout": (c_int32, [_H, _H, c_int32, POINTER(c_char_p)]),
    "laysim_problem_tensor_producer": (c_int32, [_H, c_int32]),
    "laysim_problem_tensor_uses": (c_int32, [_H, c_int32]),
    "laysim_solution_use_layout": (c_int32, [_H, _H, c_int32, c_int32, POINTER(c_int32),
                                             POINTER(c_int32), POINTER(c_char_p)]),
    "laysim_solution_conversion": (c_int32, [_H, _H, c_int32, c_int32, POINTER(c_char_p),
                                             POINTER(c_int64)]),
    "laysim_compile": (c_int, [_H, _H, _H, POINTER(_H)]),
    "laysim_compile_ex": (c_int, [_H, _H, _H, ctypes.c_uint, POINTER(_H)]),
    "laysim_program_load": (c_int, [_H, c_char_p, POINTER(_H)]),
    "laysim_program_write": (c_int, [_H, _H, c_char_p]),
    "laysim_program_free": (None, [_H]),
    "laysim_program_instructions": (c_uint64, [_H]),
    "laysim_engine_name": (c_char_p, [c_int]),
    "laysim_simulate": (c_int, [_H, _H, _H, c_char_p, POINTER(SimResult)]),
    "laysim_validate_measured": (c_int, [_H, c_char_p, c_double, POINTER(Fidelity)]),
}

lib = _load()
for _name, (_res, _args) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args
