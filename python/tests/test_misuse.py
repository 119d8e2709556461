"""Misuse of the binding raises a Python exception and never crashes the interpreter
(CTest: python_binding, and under LAYSIM_SANITIZE with the ASan runtime preloaded, so an
invalid read or write in the library fails the run). One test per kind of misuse: closed
parents and children, wrong handle types, None, close() racing a call from another
thread or from a reward callback, short arrays, objects of two models mixed, handles of
another kind handed straight to the C API."""
import ctypes
import os
import tempfile
import threading
import traceback
import unittest

import laysim
from laysim import _core, _lib

ONNX = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "onnx",
                    "tiny_cnn.onnx")


class Misuse(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.target = laysim.Target("nc-v2")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()
        cls.tmp.cleanup()

    def instance(self, spec="zoo:cnn"):
        with laysim.Model(spec) as m:
            return laysim.Instance(m, self.target)

    def test_instance_outlives_its_model(self):
        t = laysim.Target("nc-v2")
        with laysim.Model("zoo:cnn") as m:
            inst = laysim.Instance(m, t)
            ops = m.ops
        t.close()
        others = [laysim.Model(ONNX) for _ in range(3)]   # reuse the freed memory
        s = inst.solve("greedy")
        p = inst.compile(s)
        self.assertEqual(len(inst.problem.ops), ops)
        self.assertGreater(p.simulate(self.target).cycles, 0)
        for o in others:
            o.close()
        inst.close()
        self.assertEqual(s.cost, s.cost)            # a solution owns its own memory
        with self.assertRaises(ValueError):
            s.configs                                # ... but its problem went with inst

    def test_closed_handles_raise(self):
        inst = self.instance()
        sol = inst.solve("greedy")
        prog = inst.compile(sol)
        problem = inst.problem
        inst.close()
        prog.close()
        table = laysim.Table.default(self.target)
        table.close()
        model = laysim.Model("zoo:cnn")
        model.close()
        for call in (lambda: inst.solve("greedy"), lambda: inst.compile(sol),
                     lambda: problem.ops, lambda: problem.solve("greedy"),
                     lambda: sol.layouts, lambda: sol.write(os.path.join(self.tmp.name, "s")),
                     lambda: prog.simulate(self.target), lambda: prog.instructions,
                     lambda: table.write(os.path.join(self.tmp.name, "t.json")),
                     lambda: laysim.Instance(model, self.target), lambda: model.ops,
                     lambda: laysim.Table.default(laysim.Target("nc-v2").close() or model)):
            with self.assertRaises((ValueError, TypeError)):
                call()
        inst.close()                                 # twice is harmless
        model.close()

    def test_wrong_handle_types(self):
        with self.instance() as inst:
            prog = inst.compile()
            model = laysim.Model("zoo:cnn")
            for call in (lambda: prog.simulate(prog), lambda: laysim.Instance(self.target, model),
                         lambda: laysim.Instance(model, self.target, table=model),
                         lambda: inst.compile(prog), lambda: laysim.Table.default(model),
                         lambda: laysim.calibrate(model, traces=["x"]),
                         lambda: laysim.calibrate(self.target, prior=self.target,
                                                  microbench=True),
                         lambda: inst.solve("mcts", reward=42), lambda: laysim.Model(3)):
                with self.assertRaises(TypeError):
                    call()
            model.close()

    def test_none_arguments(self):
        with self.instance() as inst:
            prog = inst.compile()
            sol = inst.solve("greedy")
            for call in (lambda: laysim.Model(None), lambda: laysim.Target(None),
                         lambda: laysim.Instance(None, self.target),
                         lambda: laysim.Instance(laysim.Model("zoo:cnn"), None),
                         lambda: prog.simulate(None), lambda: inst.solve(None),
                         lambda: sol.write(None), lambda: prog.write(None),
                         lambda: laysim.Problem.read(None), lambda: laysim.Table.load(None),
                         lambda: inst.problem.read_solution(None),
                         lambda: self.target.set(None, 1)):
                with self.assertRaises(TypeError):
                    call()

    def test_c_api_refuses_a_handle_of_another_kind(self):
        with self.instance() as inst:
            prog = inst.compile()
            r = _lib.SimResult()
            with self.assertRaises(laysim.InputError) as e:
                _core.call(_lib.lib.laysim_simulate, prog.handle, prog.handle, None,
                           ctypes.byref(r))
            self.assertIn("not a live laysim_target", str(e.exception))
            out = ctypes.c_void_p()
            with self.assertRaises(laysim.InputError):
                _core.call(_lib.lib.laysim_compile_ex, prog.handle, None, 0, ctypes.byref(out))
            self.assertEqual(_lib.lib.laysim_model_ops(prog.handle), 0)
            self.assertIsNone(_lib.lib.laysim_target_name(inst.handle))
            _lib.lib.laysim_target_free(prog.handle)     # ignored: not a target
            self.assertGreater(prog.instructions, 0)

    def test_close_from_another_thread_during_a_call(self):
        inst = self.instance()
        inside, release = threading.Event(), threading.Event()
        result = {}

        def reward(cfg):
            inside.set()
            release.wait(10)
            return float(sum(cfg))

        def run():
            try:
                result["sol"] = inst.solve("mcts", params={"tune.evaluations": 4}, reward=reward)
            except Exception as e:      # noqa: BLE001 -- reported below
                result["exc"] = e

        th = threading.Thread(target=run)
        th.start()
        self.assertTrue(inside.wait(10))
        inst.close()                    # deferred: the solve still uses the instance
        release.set()
        th.join(30)
        self.assertNotIn("exc", result)
        self.assertTrue(result["sol"].has_assignment)
        with self.assertRaises(ValueError):
            inst.solve("greedy")

    def test_close_racing_many_calls(self):
        for _ in range(5):
            with self.instance() as inst:
                prog = inst.compile(inst.solve("greedy"))
            errors = []

            def use():
                for _ in range(20):
                    try:
                        prog.simulate(self.target)
                        _ = prog.instructions
                    except ValueError:
                        return
                    except Exception as e:  # noqa: BLE001
                        errors.append(e)
                        return

            threads = [threading.Thread(target=use) for _ in range(3)]
            for th in threads:
                th.start()
            prog.close()
            for th in threads:
                th.join(30)
            self.assertEqual(errors, [])

    def test_close_inside_the_reward_callback(self):
        inst = self.instance()

        def reward(cfg):
            inst.close()
            return 1.0

        sol = inst.solve("mcts", params={"tune.evaluations": 4}, reward=reward)
        self.assertTrue(sol.has_assignment)
        with self.assertRaises(ValueError):
            inst.compile(sol)
        with self.assertRaises(ValueError):
            sol.layouts

    def test_reward_exception_propagates_with_its_traceback(self):
        with self.instance() as inst:
            def reward(cfg):
                raise KeyError("from the reward")

            try:              # not assertRaises: it drops the traceback
                inst.solve("mcts", params={"tune.evaluations": 4}, reward=reward)
                self.fail("the reward's KeyError was swallowed")
            except KeyError as e:
                self.assertIsInstance(e.__cause__, laysim.Error)
                frames = [f.name for f in traceback.extract_tb(e.__traceback__)]
                self.assertEqual(frames[-1], "reward")
            self.assertGreater(inst.solve("greedy").cost, 0)   # the instance still works

    def test_short_layout_lists(self):
        with laysim.Problem.new() as p:
            with self.assertRaises(laysim.InputError):
                p.add_tensor("x", ["p:a", "p:b"], [[0, 5]])        # one row of two
            with self.assertRaises(laysim.InputError):
                p.add_tensor("x", 3, [[0, 1], [1, 0]])
            x = p.add_tensor("x", ["p:a", "p:b"], [[0, 5], [7, 0]])
            y = p.add_tensor("y", 2, [[0, 1], [1, 0]])
            src = p.add_op("src", "source", [], x)
            with self.assertRaises(laysim.InputError):
                p.add_config(src, 1, [])
            p.add_config(src, 1, [0])
            op = p.add_op("use", "matmul", [x], y)
            for short in ([], [0], [0, 0, 0]):
                with self.assertRaises(laysim.InputError) as e:
                    p.add_config(op, 10, short)
                self.assertIn("use", str(e.exception))
            with self.assertRaises(laysim.InputError):
                p.add_config(src, 1, [0])                           # not the last op
            p.add_config(op, 10, [1, 0])
            p.finish()
            self.assertEqual(p.solve("exact").cost, 16)    # 1 + 10 + converting x to b
            with self.assertRaises(laysim.InputError):
                p.evaluate([0])
        with laysim.Problem.new() as p:     # a list long enough to get a buffer of its own
            x = p.add_tensor("x", 2, [[0, 1], [1, 0]])
            p.add_config(p.add_op("src", "source", [], x), 1, [0])
            wide = p.add_op("wide", "concat", [x] * 8, None)
            with self.assertRaises(laysim.InputError) as e:
                p.add_config(wide, 1, [0] * 7)
            self.assertIn("7 layouts for 8 inputs", str(e.exception))
            p.add_config(wide, 1, [1] * 8)

    def test_two_models_mixed(self):
        with self.instance("zoo:cnn") as a, self.instance(ONNX) as b:
            sol_a = a.solve("greedy")
            with self.assertRaises(laysim.InputError):
                b.compile(sol_a)
            with self.assertRaises(laysim.InputError):
                b.compile(sol_a, ignore_mismatch=True)
            path = os.path.join(self.tmp.name, "a.sol")
            sol_a.write(path)
            with self.assertRaises(laysim.InputError):
                b.problem.read_solution(path)
            with self.assertRaises(laysim.InputError):
                b.problem.evaluate(list(sol_a.configs.values()))

    def test_reprs(self):
        inst = self.instance()
        sol = inst.solve("greedy")
        prog = inst.compile(sol)
        objs = {laysim.Model("zoo:cnn"): "'zoo:cnn': 29 ops", self.target: "nc-v2",
                laysim.Table.default(self.target): "default of nc-v2", inst: "on nc-v2",
                inst.problem: "29 ops", sol: "cycles", prog: "instructions"}
        for obj, part in objs.items():
            self.assertIn(part, repr(obj))
            self.assertTrue(repr(obj).startswith(f"<laysim.{type(obj).__name__} "))
        for obj in objs:
            if obj is not self.target:
                obj.close()
                self.assertIn("(closed)", repr(obj))
        self.assertIn("(closed)", repr(inst.problem))


if __name__ == "__main__":
    unittest.main()
