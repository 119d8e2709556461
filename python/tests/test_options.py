"""Every model option of the CLI is a Model keyword with the CLI's meaning: per option
(laysim.model_options()), the problem of Model(spec, NAME=VALUE) is the .lsp that
`laysim problem SPEC --NAME VALUE` writes (hash headers included), and differs from the
one without it. Needs LAYSIM_BIN (the CLI to compare with)."""
import os
import re
import subprocess
import tempfile
import unittest

import laysim

ATTN = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "onnx",
                    "tiny_attn.onnx")

# option: (spec, keywords every run takes, the option's keywords, its CLI arguments)
CASES = {
    "layers": ("zoo:bert-base", {"layers": 1}, {"layers": 2}, ["--layers", "2"]),
    "seq": ("zoo:bert-base", {"layers": 1}, {"seq": 64}, ["--seq", "64"]),
    "batch": ("zoo:bert-base", {"layers": 1}, {"batch": 2}, ["--batch", "2"]),
    "hidden": ("zoo:bert-base", {"layers": 1}, {"hidden": 256}, ["--hidden", "256"]),
    "image": ("zoo:cnn", {"layers": 1}, {"image": 64}, ["--image", "64"]),
    "dtype": ("zoo:bert-base", {"layers": 1}, {"dtype": "fp16"}, ["--dtype", "fp16"]),
    "autocast": ("zoo:bert-base", {"layers": 1}, {"autocast": False}, ["--autocast", "none"]),
    "decode": ("zoo:olmo-7b", {"layers": 1, "hidden": 256}, {"decode": 64},
               ["--decode", "64"]),
    "input": (ATTN, {}, {"input": {"x": (3, 5, 32), "mask": "3x1x1x5"}},
              ["--input", "x=3x5x32", "--input", "mask=3x1x1x5"]),
}


def problem_text(path):
    """A .lsp's problem and hash headers, without the CLI's other comments."""
    with open(path) as f:
        return "".join(line for line in f
                       if not line.startswith("#") or re.match(r"# [a-z-]+: ", line))


class ModelOptions(unittest.TestCase):
    def setUp(self):
        self.cli = os.environ.get("LAYSIM_BIN")
        if not self.cli:
            self.skipTest("LAYSIM_BIN not set: no CLI to compare with")
        self.tmp = tempfile.TemporaryDirectory()
        self.target = laysim.Target("nc-v2")

    def tearDown(self):
        self.target.close()
        self.tmp.cleanup()

    def api_problem(self, spec, name, **options):
        path = os.path.join(self.tmp.name, name)
        with laysim.Model(spec, **options) as m, laysim.Instance(m, self.target) as inst:
            inst.problem.write(path)
        return problem_text(path)

    def test_every_option(self):
        self.assertEqual(laysim.model_options(), list(CASES))
        for name, (spec, base, opt, args) in CASES.items():
            with self.subTest(option=name):
                api = self.api_problem(spec, name + ".api.lsp", **{**base, **opt})
                cli_path = os.path.join(self.tmp.name, name + ".cli.lsp")
                base_args = [a for k, v in base.items() for a in (f"--{k}", str(v))]
                subprocess.run([self.cli, "problem", spec, *base_args, *args, "-q", "-o",
                                cli_path], check=True)
                self.assertEqual(api, problem_text(cli_path))
                self.assertNotEqual(api, self.api_problem(spec, name + ".base.lsp", **base))

    def test_input_forms(self):
        # a dict, one string or a list of strings: the same model
        forms = [{"x": [3, 5, 32], "mask": (3, 1, 1, 5)}, ["x=3x5x32", "mask=3x1x1x5"]]
        texts = {self.api_problem(ATTN, "f.lsp", input=f) for f in forms}
        self.assertEqual(len(texts), 1)
        with self.assertRaisesRegex(laysim.InputError, r"--input 'x=3xx5'"):
            laysim.Model(ATTN, input="x=3xx5")
        with self.assertRaisesRegex(laysim.InputError, r"no input 'y'"):
            laysim.Model(ATTN, input={"y": (3, 5, 32)})


if __name__ == "__main__":
    unittest.main()
