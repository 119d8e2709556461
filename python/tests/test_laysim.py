"""The Python binding against the built liblaysim.so (CTest: python_binding; run by hand
with LAYSIM_LIBRARY=build/liblaysim.so PYTHONPATH=python python3 -m unittest discover
-s python/tests)."""
import json
import os
import subprocess
import tempfile
import unittest

import laysim


class Loop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.target = laysim.Target("nc-v2")
        cls.model = laysim.Model("zoo:cnn")
        cls.inst = laysim.Instance(cls.model, cls.target)

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()
        cls.model.close()
        cls.target.close()
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_lookups(self):
        self.assertRegex(laysim.version(), r"^\d+\.\d+\.\d+$")
        self.assertIn("bert-base", laysim.zoo())
        self.assertIn("exact", laysim.solvers())

    def test_exact_solution(self):
        sol = self.inst.solve("exact")
        self.assertEqual(sol.status, "optimal")
        self.assertEqual(sol.bound, sol.cost)
        configs = sol.configs
        self.assertEqual(list(configs), self.inst.problem.ops)
        self.assertEqual(self.inst.problem.evaluate(list(configs.values())), sol.cost)
        layouts = sol.layouts
        self.assertEqual(set(layouts), set(self.inst.problem.tensors))
        self.assertTrue(any(isinstance(v, str) and v.startswith("p:") for v in layouts.values()))
        self.assertEqual(sol.as_dict()["cost"], sol.cost)

    def test_files_round_trip(self):
        sol = self.inst.solve("greedy")
        self.inst.problem.write(self.path("p.lsp"))
        sol.write(self.path("p.sol"))
        with laysim.Problem.read(self.path("p.lsp")) as p:
            self.assertEqual(p.ops, self.inst.problem.ops)
            again = p.read_solution(self.path("p.sol"))
            self.assertEqual(again.cost, sol.cost)
            self.assertEqual(again.configs, sol.configs)
            self.assertEqual(p.solve("exact").cost, self.inst.solve("exact").cost)

    def test_build_by_hand(self):
        with laysim.Problem.new() as p:
            x = p.add_tensor("x", ["p:a", "p:b"], [[0, 5], [7, 0]])
            src = p.add_op("src", "source", [], x)
            p.add_config(src, 1, [0])
            p.add_config(src, 3, [1])
            use = p.add_op("use", "matmul", [x], None)
            p.add_config(use, 10, [1])
            p.add_config(use, 20, [0])
            with self.assertRaises(laysim.InputError):
                p.solve("exact")            # not finished yet
            p.finish()
            sol = p.solve("exact")
            self.assertEqual(sol.cost, 13)  # src in b (3) + use reading b (10), no transpose
            self.assertEqual(sol.layouts, {"x": "p:b"})
            self.assertEqual(p.evaluate([0, 0]), 1 + 10 + 5)
            with self.assertRaises(laysim.InputError):
                p.add_tensor("y", 1)        # finished problems are read-only

    def test_compile_and_simulate(self):
        prog = self.inst.compile(self.inst.solve("rulebased"))
        self.assertGreater(prog.instructions, 0)
        res = prog.simulate(self.target, trace=self.path("t.lstrace"))
        self.assertGreater(res.cycles, 0)
        self.assertEqual(sorted(res.engines), sorted(["pe", "act", "dve", "pool", "dma"]))
        self.assertTrue(os.path.getsize(self.path("t.lstrace")) > 0)
        prog.write(self.path("p.prog"))
        self.assertEqual(laysim.Program.load(self.path("p.prog")).simulate(self.target).cycles,
                         res.cycles)
        table = laysim.calibrate(self.target, traces=[self.path("t.lstrace")])
        table.write(self.path("fitted.json"))
        laysim.Table.load(self.path("fitted.json")).close()

    def test_layout_listing_is_the_clis(self):
        sol = self.inst.solve("exact")
        listing = sol.layout_listing()
        self.assertEqual([x["tensor"] for x in listing], self.inst.problem.tensors)
        for x in listing:
            self.assertEqual(x["layout"], str(sol.layouts[x["tensor"]]))
        cli = os.environ.get("LAYSIM_BIN")
        if not cli:
            self.skipTest("LAYSIM_BIN not set: no CLI to compare with")
        out = subprocess.run([cli, "solve", "zoo:cnn", "--solver", "exact", "--layouts",
                              "--json"], check=True, capture_output=True, text=True).stdout
        self.assertEqual(listing, json.loads(out)["layouts"])

    def test_mismatched_solution_refused(self):
        sol = self.inst.solve("greedy")
        sol.write(self.path("tied.sol"))
        other_target = laysim.Target("nc-v2", **{"dma.transpose": 1})
        with laysim.Instance(self.model, other_target) as other:
            tied = other.problem.read_solution(self.path("tied.sol"))
            with self.assertRaises(laysim.InputError) as e:
                other.compile(tied)
            self.assertIn("target differs", str(e.exception))
            self.assertGreater(other.compile(tied, ignore_mismatch=True).instructions, 0)
        with open(self.path("tied.sol")) as f:
            heads = [line.split(":")[0] for line in f if line.startswith("# ")]
        self.assertEqual(heads, ["# model-hash", "# target-hash", "# table-hash",
                                 "# codegen-version", "# problem-hash"])

    def test_imported_models(self):
        data = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data")
        for rel in ("onnx/tiny_cnn.onnx", "onnx/tiny_attn.onnx", "tfjs/cnn.json"):
            with laysim.Model(os.path.join(data, rel)) as m, laysim.Instance(m, self.target) as i:
                self.assertGreater(m.ops, 0)
                res = i.compile(i.solve("rulebased")).simulate(self.target)
                self.assertGreater(res.cycles, 0)
        with self.assertRaises(laysim.InputError) as e:
            laysim.Model(os.path.join(data, "onnx", "bad", "truncated.onnx"))
        self.assertIn("truncated.onnx", str(e.exception))

    def test_reward_callback(self):
        seen = []

        def reward(cfg):
            seen.append(tuple(cfg))
            return float(sum(cfg))

        sol = self.inst.solve("mcts", params={"tune.evaluations": 6}, reward=reward)
        self.assertTrue(seen)
        self.assertEqual(len(seen[0]), len(self.inst.problem.ops))
        self.assertTrue(sol.has_assignment)

    def test_simulated_reward_by_default(self):
        sol = self.inst.solve("mcts", params={"tune.evaluations": 4})
        self.assertTrue(sol.has_assignment)

    def test_errors_carry_the_message(self):
        with self.assertRaises(laysim.InputError) as e:
            laysim.Model("zoo:no-such-model")
        self.assertIn("no-such-model", str(e.exception))
        with self.assertRaises(laysim.InputError) as e:
            laysim.Model("zoo:cnn", layers=0)
        self.assertIn("layers", e.exception.message)
        with self.assertRaises(laysim.InputError):
            self.inst.solve("no-such-solver")
        with self.assertRaises(laysim.InputError):
            laysim.Problem.read(self.path("missing.lsp"))
        t = laysim.Target("nc-v2")
        before = t.hash
        with self.assertRaises(laysim.InputError) as e:
            t.set("pe.rows", "banana")
        self.assertIn("pe.rows", str(e.exception))
        self.assertEqual(t.hash, before)
        t.set("pe.rows", 64)
        self.assertNotEqual(t.hash, before)

    def test_closed_handles(self):
        m = laysim.Model("zoo:cnn")
        m.close()
        with self.assertRaises(ValueError):
            m.ops


if __name__ == "__main__":
    unittest.main()
